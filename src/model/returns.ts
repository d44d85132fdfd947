// Gap-aware, deseasonalised one-step returns: a return between closes Δt minutes apart counts as Δt
// minutes of seasonal variance, so a missing minute never passes for a one-minute move.
import type { MinuteClose } from '../domain/price-history.ts'
import type { ModelV2Params } from './params.ts'
import { seasonalVariance } from './seasonal.ts'

export type ScaledReturn = {
  /** instant of the later close */
  at: number
  /** minutes between the two closes */
  minutes: number
  /** ln(p_b / p_a) */
  logReturn: number
  /** r² / (σ̄² · Σ seasonal variance of the span): ≈ the volatility level ĥ, 1 on average */
  scaledSquare: number
  /**
   * What the volatility level reads of it: a one-minute return whose minute has a range gives its
   * squared log range over `variance.rangeScale` (as scaled), a far less noisy measure of the same
   * level; any other, `scaledSquare`
   */
  evidence: number
}

/** ln(high/low)² of a close's minute, or null without a usable range. */
export function rangeSquareOf(c: MinuteClose): number | null {
  const { highDollars: h, lowDollars: l } = c
  if (h === undefined || l === undefined || !(l > 0 && h >= l && Number.isFinite(h))) return null
  const x = Math.log(h / l)
  return x * x
}

/**
 * The level's observation of the return ending at `c`: its squared range over the range scale where
 * the return spans exactly its minute and the minute has a range, else the squared return. Both are
 * deseasonalised by `base · span` (σ̄² times the span's seasonal variance).
 */
export function levelEvidence(
  c: MinuteClose,
  minutes: number,
  logReturn: number,
  baseSpan: number,
  rangeScale: number | undefined,
): number {
  const range = minutes === 1 ? rangeSquareOf(c) : null
  if (rangeScale !== undefined && range !== null) return range / rangeScale / baseSpan
  return (logReturn * logReturn) / baseSpan
}

/** Returns between consecutive usable closes (oldest first), skipping unusable prices and disorder. */
export function scaledReturns(closes: readonly MinuteClose[], params: ModelV2Params): ScaledReturn[] {
  const out: ScaledReturn[] = []
  let prev: MinuteClose | null = null
  const base = params.sigmaBar * params.sigmaBar
  for (const c of closes) {
    if (!(c.priceDollars > 0 && Number.isFinite(c.priceDollars) && Number.isFinite(c.at))) continue
    if (prev && c.at > prev.at) {
      const r = Math.log(c.priceDollars / prev.priceDollars)
      const baseSpan = base * seasonalVariance(params.seasonal, prev.at, c.at)
      const minutes = (c.at - prev.at) / 60_000
      out.push({
        at: c.at,
        minutes,
        logReturn: r,
        scaledSquare: (r * r) / baseSpan,
        evidence: levelEvidence(c, minutes, r, baseSpan, params.variance.rangeScale),
      })
    }
    if (!prev || c.at > prev.at) prev = c
  }
  return out
}
