// Which volatility dynamics and tails price a reading: the ranged ones where the feed saw most of the
// last hour's minutes whole, the returns-only ones elsewhere (a one-minute-grain tape, a candle
// warm-up, a feed whose sources sent too few prices). A fit tuned to ranges reads squared returns
// far too eagerly: on real one-minute history it cost v2 0.009 of log loss (docs/model.md).
import type { MinuteClose } from '../domain/price-history.ts'
import type { ModelV2Params } from './params.ts'

/** The span looked back over, and the share of its minutes that must have a range. */
export const RANGED_LOOKBACK_MS = 60 * 60_000
export const RANGED_MIN_SHARE = 0.5

/** Whether at least half the minutes of the hour before `at` have a range, from closes oldest first. */
export function sawMinutesWhole(closes: readonly MinuteClose[], at: number): boolean {
  const needed = Math.ceil((RANGED_MIN_SHARE * RANGED_LOOKBACK_MS) / 60_000)
  let ranged = 0
  for (let i = closes.length - 1; i >= 0; i--) {
    const c = closes[i] as MinuteClose
    if (c.at > at) continue
    if (c.at <= at - RANGED_LOOKBACK_MS) break
    if (c.highDollars !== undefined && c.lowDollars !== undefined && ++ranged >= needed) return true
  }
  return false
}

/** Whether a reading at `at` is priced with `p`'s ranged dynamics (else from the returns alone). */
export function pricedFromRanges(closes: readonly MinuteClose[], at: number, p: ModelV2Params): boolean {
  return p.ranged !== undefined && sawMinutesWhole(closes, at)
}

/** `p` with its ranged dynamics and ν in place, where it has them. */
export function withRangedDynamics(p: ModelV2Params): ModelV2Params {
  return p.ranged === undefined ? p : { ...p, variance: p.ranged.variance, nu: p.ranged.nu }
}

/** The parameters a reading from `closes` is priced with: `p`, its ranged dynamics and ν where they apply. */
export function pricingParams(closes: readonly MinuteClose[], at: number, p: ModelV2Params): ModelV2Params {
  return pricedFromRanges(closes, at, p) ? withRangedDynamics(p) : p
}
