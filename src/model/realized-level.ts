// Model v2's volatility level where the feed saw each minute's seconds (MinuteClose.seconds): a
// GARCH-style filter on the minutes' realised variances, after Hansen, Huang & Shek's realised GARCH.
// A minute's sixty one-second moves measure its own variance almost exactly, but not the shock that
// raises the next minutes' (its return): the filter reads both — the measured variance corrects the
// level, the return's square moves it on — and projects the level over the horizon, reverting toward
// the slow level at the fitted persistence, where the EWMA level is held flat (docs/model.md).
import type { MinuteClose, SecondsOfMinute } from '../domain/price-history.ts'
import type { ModelV2Params, RealizedDynamics } from './params.ts'
import { minuteOfWeek, seasonalVariance, weekTable } from './seasonal.ts'

const MINUTE_MS = 60_000

/**
 * The square of the move a minute's largest must exceed to be a jump: jumpSd² times the variance of
 * its other 59 moves, net of the noise they carry.
 */
export function jumpThresholdSquare(s: SecondsOfMinute, r: RealizedDynamics): number {
  const rest = Math.max(0, s.squares - s.largest * s.largest - (r.noiseFloor * 59) / 60) / 59
  return r.jumpSd * r.jumpSd * rest
}

/** The seconds' moves of a minute cleaned: the jump it showed (0 for none) and its variance without it. */
export function cleanSeconds(s: SecondsOfMinute, r: RealizedDynamics): { jump: number; variance: number } {
  // a move that towers over the minute's other moves is a jump
  const jump = s.largest * s.largest > jumpThresholdSquare(s, r) ? s.largest : 0
  return { jump, variance: Math.max(0, s.squares - jump * jump - r.noiseFloor) / r.secondsScale }
}

export type RealizedLevel = {
  /** the filter's level for the minute now under way, and the slow level it reverts to */
  near: number
  slow: number
  /** the level averaged over the `minutes` ahead, blended by the fitted weights with the long-run 1 */
  over(minutes: number): number
}

/**
 * The realised-GARCH level from closes oldest first, as of `at` (realizedFilter, fed every close).
 */
export function realizedLevelOfCloses(
  closes: readonly MinuteClose[],
  at: number,
  p: ModelV2Params,
  r: RealizedDynamics,
): RealizedLevel {
  const filter = realizedFilter(p, r)
  for (const c of closes) filter.add(c)
  return filter.levelAt(at)
}

/**
 * The filter itself, fed closes in order. Each whole minute: where its seconds were seen, the level
 * is pulled toward their measured variance by the gain 1 − 2^(−1 / fastHalfLifeMin); then it moves
 * on, h ← (1 − φ)·slow + (φ − α)·h + α·x with x the minute's squared return less any jump. The slow
 * level is an EWMA of the measured variances (of the squared returns where none was seen). Every
 * measure is deseasonalised and clipped at winsorSd² × the slow level, as the EWMA level's are.
 * Closes out of order or unpriced are passed over.
 */
export function realizedFilter(
  p: ModelV2Params,
  r: RealizedDynamics,
): { add(c: MinuteClose): void; levelAt(at: number): RealizedLevel } {
  const v = p.variance
  const base = p.sigmaBar * p.sigmaBar
  const table = weekTable(p.seasonal)
  const cap = v.winsorSd * v.winsorSd
  const gain = 1 - 2 ** (-1 / v.fastHalfLifeMin)
  const slowDecay = Math.exp(-Math.LN2 / v.slowHalfLifeMin)
  const phi = r.persistence
  let h = 1
  let slowNum = 0
  let slowDen = 0
  let prevAt = Number.NaN
  let prevPrice = Number.NaN
  const slowNow = (): number => (slowNum + 1) / (slowDen + 1)
  return {
    add(c) {
      const price = c.priceDollars
      const t = c.at
      if (!(price > 0 && price < Number.POSITIVE_INFINITY && Number.isFinite(t))) return
      const started = !Number.isNaN(prevAt)
      if (started && t <= prevAt) return
      if (started) {
        const minutes = (t - prevAt) / MINUTE_MS
        const oneMinute = minutes === 1 && prevAt % MINUTE_MS === 0
        const span = oneMinute
          ? (table[minuteOfWeek(prevAt)] as number)
          : seasonalVariance(p.seasonal, prevAt, t)
        const baseSpan = base * span
        const seen = oneMinute && c.seconds !== undefined ? cleanSeconds(c.seconds, r) : null
        const slow = slowNow()
        const move = Math.log(price / prevPrice) - (seen?.jump ?? 0)
        // a gap's return is spread over its minutes: one minute's worth of evidence per minute
        const x = Math.min((move * move) / baseSpan, cap * slow * minutes)
        const measured = seen === null ? null : Math.min(seen.variance / baseSpan, cap * slow)
        if (measured !== null) h = (1 - gain) * h + gain * measured
        const decay = slowDecay ** minutes
        slowNum = slowNum * decay + (measured ?? x / minutes)
        slowDen = slowDen * decay + 1
        const slowAfter = slowNow()
        h = (1 - phi) * slowAfter + (phi - r.alpha) * h + (r.alpha * x) / minutes
        // the minutes of a gap beyond the first revert toward the slow level unobserved
        if (minutes > 1) h = slowAfter + (h - slowAfter) * phi ** (minutes - 1)
      }
      prevAt = t
      prevPrice = price
    },
    levelAt(at) {
      const slow = slowNow()
      // a reading later than the last close: the level has reverted by the minutes since
      const age = Number.isNaN(prevAt) ? 0 : Math.max(0, (at - prevAt) / MINUTE_MS)
      const near = slow + (h - slow) * phi ** age
      return {
        near,
        slow,
        over(minutes) {
          const m = Math.max(minutes, 1 / 60)
          const reverting = phi < 1 ? (1 - phi ** m) / (m * (1 - phi)) : 1
          const path = slow + (near - slow) * reverting
          return v.fastWeight * path + v.slowWeight * slow + (1 - v.fastWeight - v.slowWeight)
        },
      }
    },
  }
}
