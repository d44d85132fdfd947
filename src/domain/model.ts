// The first signal model of decisions §3 (`gbm-ewma-1`, kept selectable with MODEL=gbm-ewma-1): a
// driftless GBM probability of the spot finishing at or above the strike, with an EWMA volatility of
// one-minute log returns; and the one rule every model's reading follows to pick its side and publish
// 2-decimal numbers (decisions §11).
import type { Side } from './contest.ts'
import type { ReadingModel } from './reading-model.ts'

export const MODEL_VERSION = 'gbm-ewma-1'

/** RiskMetrics decay for one-minute returns. */
export const EWMA_LAMBDA = 0.94

/**
 * Minute closes the engine hands to the model. With λ = 0.94 the weight of a return 60 minutes old
 * is λ^60 ≈ 2 %, so a longer window changes nothing that survives rounding.
 */
export const EWMA_CLOSES = 61

/**
 * Bounds of a published probability: the venue's smallest tick (0.1 ¢ on Kalshi's tapered grid), never
 * tighter (decisions §11). A tighter clip once met a 99.4/99.6 book and published "down, 1 %, +0.4 ¢".
 */
export const PROBABILITY_FLOOR = 0.001
export const PROBABILITY_CEILING = 0.999

/** Closes v1 needs before its first reading: its σ is meaningless on a handful of returns. */
export const V1_MIN_HISTORY_CLOSES = 30

/** Below this σ·√τ the outcome is treated as already decided (no division by ~0). */
const MIN_DISPERSION = 1e-12

/**
 * Standard normal CDF Φ(x), Hart's double-precision rational approximation as given by West (2005),
 * "Better approximations to cumulative normal functions"; absolute error well below 1e-14.
 */
export function normalCdf(x: number): number {
  if (Number.isNaN(x)) return Number.NaN
  const z = Math.abs(x)
  let tail: number
  if (z > 37) {
    tail = 0
  } else {
    const e = Math.exp((-z * z) / 2)
    if (z < 7.07106781186547) {
      let num = 3.52624965998911e-2 * z + 0.700383064443688
      num = num * z + 6.37396220353165
      num = num * z + 33.912866078383
      num = num * z + 112.079291497871
      num = num * z + 221.213596169931
      num = num * z + 220.206867912376
      let den = 8.83883476483184e-2 * z + 1.75566716318264
      den = den * z + 16.064177579207
      den = den * z + 86.7807322029461
      den = den * z + 296.564248779674
      den = den * z + 637.333633378831
      den = den * z + 793.826512519948
      den = den * z + 440.413735824752
      tail = (e * num) / den
    } else {
      let d = z + 0.65
      d = z + 4 / d
      d = z + 3 / d
      d = z + 2 / d
      d = z + 1 / d
      tail = e / d / 2.506628274631
    }
  }
  return x > 0 ? 1 - tail : tail
}

/**
 * EWMA volatility (per minute) of the one-minute log returns of `closes` (oldest first). The weights
 * λ^age are normalised over the window, so the estimate needs no seed value and does not depend on
 * where the window starts. Fewer than two usable closes give 0.
 */
export function ewmaVolatility(closes: readonly number[], lambda: number = EWMA_LAMBDA): number {
  let weighted = 0
  let weights = 0
  let w = 1
  // newest return first, so its weight is 1 and older ones decay
  for (let i = closes.length - 1; i >= 1; i--) {
    const a = closes[i - 1] as number
    const b = closes[i] as number
    if (!(a > 0 && b > 0 && Number.isFinite(a) && Number.isFinite(b))) continue
    const r = Math.log(b / a)
    weighted += w * r * r
    weights += w
    w *= lambda
  }
  return weights > 0 ? Math.sqrt(weighted / weights) : 0
}

export function clipProbability(p: number): number {
  return Math.min(PROBABILITY_CEILING, Math.max(PROBABILITY_FLOOR, p))
}

/**
 * P(up) = Φ(ln(S/K) / (σ·√τ)), τ in minutes and σ per minute, unbounded (chooseSide bounds it). When σ·√τ is
 * ~0 (no time left or no movement) the answer is the side the price is already on; a tie goes up,
 * as on the venue.
 */
export function probabilityUp(input: {
  spot: number
  strike: number
  sigmaPerMinute: number
  minutesLeft: number
}): number {
  const { spot, strike, sigmaPerMinute, minutesLeft } = input
  if (!(spot > 0) || !(strike > 0)) throw new RangeError('spot and strike must be positive')
  const dispersion = minutesLeft > 0 && sigmaPerMinute > 0 ? sigmaPerMinute * Math.sqrt(minutesLeft) : 0
  if (!(dispersion > MIN_DISPERSION) || !Number.isFinite(dispersion)) {
    return spot >= strike ? 1 : 0
  }
  return normalCdf(Math.log(spot / strike) / dispersion)
}

export type ReadingInput = {
  spot: number
  strike: number
  /** one-minute closes, oldest first */
  closes: readonly number[]
  minutesLeft: number
  /** the venue's best asks, 0–100 cents; null for a side with no ask */
  quote: { upAskCents: number | null; downAskCents: number | null }
}

export type Reading = {
  side: Side
  /** 100·P(side), 2 decimals */
  confidence: number
  /** the venue's ask for `side`, 2 decimals */
  entryPriceCents: number
  /** confidence − entryPriceCents, exactly, from the published numbers */
  edgeCents: number
}

/**
 * One model reading from the probability of up. All arithmetic after the probability is in integer
 * hundredths, so the published numbers have at most 2 decimals and edge = confidence − entry holds to
 * the cent. The side is the one with the larger edge (up on a tie), as the contract says; the service
 * does not filter, so the edge may be negative. A side without an ask cannot be chosen (decisions §8),
 * and neither can the side a probability was bounded away from (decisions §11) while the other side
 * has an ask: its edge would be the bound's, not the model's. Null only when neither side has an ask.
 */
export function chooseSide(
  probabilityUp: number,
  quote: { upAskCents: number | null; downAskCents: number | null },
): Reading | null {
  const { upAskCents, downAskCents } = quote
  if ((upAskCents !== null && !isCents(upAskCents)) || (downAskCents !== null && !isCents(downAskCents)))
    throw new RangeError('asks must be within 0–100 cents')
  if (Number.isNaN(probabilityUp)) throw new RangeError('the probability must be a number')
  const bounded = clipProbability(probabilityUp)
  // hundredths of a cent: 10 000 = certainty; down is the complement so the two always sum to 100
  const upConf = Math.round(bounded * 10_000)
  const downConf = 10_000 - upConf
  // a side the bound decided against is no edge (decisions §11) — unless it is the only side with an
  // ask: a one-sided book is still a quote, read on its one side at the bound's confidence, so its
  // edge is the bound's minus the ask, never more than a tick (issue 29)
  const onlyOne = (upAskCents === null) !== (downAskCents === null)
  const upAsk =
    upAskCents === null || (probabilityUp < PROBABILITY_FLOOR && !onlyOne)
      ? null
      : Math.round(upAskCents * 100)
  const downAsk =
    downAskCents === null || (probabilityUp > PROBABILITY_CEILING && !onlyOne)
      ? null
      : Math.round(downAskCents * 100)
  if (upAsk === null && downAsk === null) return null
  const upEdge = upAsk === null ? Number.NEGATIVE_INFINITY : upConf - upAsk
  const downEdge = downAsk === null ? Number.NEGATIVE_INFINITY : downConf - downAsk
  const up = upEdge >= downEdge
  return {
    side: up ? 'up' : 'down',
    confidence: (up ? upConf : downConf) / 100,
    entryPriceCents: ((up ? upAsk : downAsk) as number) / 100,
    edgeCents: (up ? upEdge : downEdge) / 100,
  }
}

/** v1's reading from its inputs (spot at the whole minute, unstamped closes). */
export function evaluateReading(input: ReadingInput): Reading {
  const { upAskCents, downAskCents } = input.quote
  if (upAskCents === null && downAskCents === null) throw new RangeError('a reading needs at least one ask')
  const pUp = probabilityUp({
    spot: input.spot,
    strike: input.strike,
    sigmaPerMinute: ewmaVolatility(input.closes),
    minutesLeft: input.minutesLeft,
  })
  const reading = chooseSide(pUp, input.quote)
  if (!reading) throw new RangeError('no side is quotable within the bounds')
  return reading
}

/**
 * v1 as the engine runs it: the time left is counted from the instant the spot was observed
 * (decisions §11), and its closes are the last 61, read as if one minute apart (its known defect).
 */
export const gbmEwma1Model: ReadingModel = {
  version: MODEL_VERSION,
  historyMinutes: EWMA_CLOSES,
  minHistoryCloses: V1_MIN_HISTORY_CLOSES,
  probabilityUp(input) {
    const sigma = ewmaVolatility(input.closes.slice(-EWMA_CLOSES).map((c) => c.priceDollars))
    const minutesLeft = Math.max(0, input.expiresAt - input.spotObservedAt) / 60_000
    // an estimated strike (decisions §14) adds its own variance to the price's
    const strikeVariance = input.strikeEstimateVariance ?? 0
    const dispersion = Math.sqrt(sigma * sigma * minutesLeft + strikeVariance)
    const probabilityUp =
      dispersion > MIN_DISPERSION
        ? normalCdf(Math.log(input.spotDollars / input.strikeDollars) / dispersion)
        : input.spotDollars >= input.strikeDollars
          ? 1
          : 0
    const effectiveMinutes = minutesLeft + (sigma > 0 ? strikeVariance / (sigma * sigma) : 0)
    return { probabilityUp, modelAloneUp: probabilityUp, sigmaPerMinute: sigma, effectiveMinutes }
  },
}

function isCents(x: number): boolean {
  return Number.isFinite(x) && x >= 0 && x <= 100
}
