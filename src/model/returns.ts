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
      const span = seasonalVariance(params.seasonal, prev.at, c.at)
      out.push({
        at: c.at,
        minutes: (c.at - prev.at) / 60_000,
        logReturn: r,
        scaledSquare: (r * r) / (base * span),
      })
    }
    if (!prev || c.at > prev.at) prev = c
  }
  return out
}
