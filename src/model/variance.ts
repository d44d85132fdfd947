// Model v2's volatility level and the variance of the venue's settlement quantity.
import type { MinuteClose } from '../domain/price-history.ts'
import type { ModelV2Params } from './params.ts'
import { realizedLevelOfCloses } from './realized-level.ts'
import { levelEvidence, type ScaledReturn } from './returns.ts'
import { minuteOfWeek, seasonalVariance, weekTable } from './seasonal.ts'

/** Averaging window of the settlement quantity: the 60 one-second prints before the close. */
export const AVERAGING_MS = 60_000

export type VolatilityLevel = { fast: number; slow: number; level: number; returns: number }

/**
 * The volatility level ĥ (1 = the long-run seasonal level): a blend of a fast and a slow EWMA of the
 * scaled squared returns (a minute's squared range in their place where the feed saw it whole) and
 * the long-run level itself. Each return is one observation weighted by
 * its age in minutes (so a gap reduces the evidence rather than doubling a return's weight), and
 * clipped at winsorSd² times the slow level before it, so one jump cannot dominate an hour.
 */
export function volatilityLevel(
  returns: readonly ScaledReturn[],
  at: number,
  p: ModelV2Params,
): VolatilityLevel {
  const ewma = createLevelEwma(p)
  for (const r of returns) ewma.add(r.at, r.evidence)
  return ewma.level(at)
}

/**
 * volatilityLevel straight from the closes, without building the returns: the same arithmetic in
 * one pass, as the engine runs it on a day of closes every reading.
 */
export function volatilityLevelOfCloses(
  closes: readonly MinuteClose[],
  at: number,
  p: ModelV2Params,
): VolatilityLevel {
  const ewma = createLevelEwma(p)
  const base = p.sigmaBar * p.sigmaBar
  const table = weekTable(p.seasonal)
  const rangeScale = p.variance.rangeScale
  let prevAt = Number.NaN
  let prevPrice = Number.NaN
  for (let i = 0; i < closes.length; i++) {
    const c = closes[i] as MinuteClose
    const price = c.priceDollars
    const t = c.at
    if (!(price > 0 && price < Number.POSITIVE_INFINITY && Number.isFinite(t))) continue
    const started = !Number.isNaN(prevAt)
    if (started && t <= prevAt) continue
    if (started) {
      const r = Math.log(price / prevPrice)
      // one whole minute from the week's table, anything else summed minute by minute
      const oneMinute = t - prevAt === 60_000
      const span =
        oneMinute && prevAt % 60_000 === 0
          ? (table[minuteOfWeek(prevAt)] as number)
          : seasonalVariance(p.seasonal, prevAt, t)
      ewma.add(t, levelEvidence(c, (t - prevAt) / 60_000, r, base * span, rangeScale))
    }
    prevAt = t
    prevPrice = price
  }
  return ewma.level(at)
}

/**
 * The level a reading `minutes` before its close is priced at: the realised-GARCH filter's average
 * over those minutes where the dynamics have one, else the EWMA level, flat over any horizon.
 */
export function levelOver(
  closes: readonly MinuteClose[],
  at: number,
  minutes: number,
  p: ModelV2Params,
): number {
  const realized = p.variance.realized
  return realized === undefined
    ? volatilityLevelOfCloses(closes, at, p).level
    : realizedLevelOfCloses(closes, at, p, realized).over(minutes)
}

function createLevelEwma(p: ModelV2Params) {
  const v = p.variance
  const lnFast = Math.LN2 / v.fastHalfLifeMin
  const lnSlow = Math.LN2 / v.slowHalfLifeMin
  const cap = v.winsorSd * v.winsorSd
  let slowNum = 0
  let slowDen = 0
  let fastNum = 0
  let fastDen = 0
  let count = 0
  let lastAt = Number.NaN
  // decays by the minutes between returns, almost always 1: computed again only when that changes
  let lastDt = Number.NaN
  let ds = 1
  let df = 1
  return {
    add(at: number, scaledSquare: number): void {
      const dt = Number.isNaN(lastAt) ? 0 : (at - lastAt) / 60_000
      lastAt = at
      if (dt !== lastDt) {
        ds = Math.exp(-lnSlow * dt)
        df = Math.exp(-lnFast * dt)
        lastDt = dt
      }
      slowNum *= ds
      slowDen *= ds
      fastNum *= df
      fastDen *= df
      // the slow level so far, for the clip; the long-run level until there is some evidence
      const slowSoFar = slowDen > 0.5 ? slowNum / slowDen : 1
      const x = Math.min(scaledSquare, cap * slowSoFar)
      slowNum += x
      slowDen += 1
      fastNum += x
      fastDen += 1
      count++
    },
    level(at: number): VolatilityLevel {
      // the estimates are as of the last return; shrink toward 1 by the weight lost to its age
      const age = Number.isNaN(lastAt) ? 0 : (at - lastAt) / 60_000
      const prior = 1
      const fast =
        fastDen > 0 ? blendPrior(fastNum / fastDen, fastDen * Math.exp(-lnFast * age), prior) : prior
      const slow =
        slowDen > 0 ? blendPrior(slowNum / slowDen, slowDen * Math.exp(-lnSlow * age), prior) : prior
      const level = v.fastWeight * fast + v.slowWeight * slow + (1 - v.fastWeight - v.slowWeight) * prior
      return { fast, slow, level, returns: count }
    },
  }
}

/** An estimate from `n` effective observations, pulled toward the prior by one pseudo-observation. */
function blendPrior(estimate: number, n: number, prior: number): number {
  return (estimate * n + prior) / (n + 1)
}

export type SettlementVariance = {
  /** variance of ln(settlement mean) seen from `observedAt`, in squared log units */
  variance: number
  /** that variance over the per-minute variance at the level used: the effective minutes left */
  effectiveMinutes: number
  /** the per-minute σ at the level used (deseasonalised σ̄·√ĥ), for the stored inputs */
  sigmaPerMinute: number
}

/**
 * The variance of the log of the venue's settlement quantity (the mean of the index over
 * [T − L, T), L = `averagingMs`, 60 s unless the market states another) seen at `observedAt`
 * (decisions §3, §11): before the window σ²·(τ₁ + L/3) with τ₁ the
 * time to the window's start, inside it σ²·τ³/(3L²) with τ the time left — each minute weighted by
 * its seasonal variance — then the forecast scale and the basis estimate's variance.
 */
export function settlementVariance(
  observedAt: number,
  expiresAt: number,
  level: number,
  p: ModelV2Params,
  averagingMs: number = AVERAGING_MS,
  /**
   * the variance of the basis estimate: 0 when the spot is the settlement index itself or the strike
   * is the proxy's own estimate (the basis cancels), the venue's own where it was measured
   */
  basisVariance: number = p.basis.variance,
): SettlementVariance {
  const windowStart = expiresAt - averagingMs
  const perMinute = p.sigmaBar * p.sigmaBar * level
  let units: number
  if (averagingMs <= 0) {
    // a point price at the close (Polymarket before 2026-08-07): the plain variance to the close
    units = seasonalVariance(p.seasonal, Math.min(observedAt, expiresAt), expiresAt)
  } else if (observedAt < windowStart) {
    const last = seasonalVariance(p.seasonal, windowStart, expiresAt)
    units = seasonalVariance(p.seasonal, observedAt, windowStart) + last / 3
  } else {
    const tau = Math.max(0, expiresAt - observedAt) / averagingMs
    units = (seasonalVariance(p.seasonal, windowStart, expiresAt) * (tau * tau * tau)) / 3
  }
  const variance = perMinute * units * p.variance.scale + basisVariance
  return {
    variance,
    effectiveMinutes: perMinute > 0 ? variance / perMinute : 0,
    sigmaPerMinute: Math.sqrt(perMinute),
  }
}
