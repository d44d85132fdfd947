// The seasonal table of model v2: bitcoin's per-minute volatility by hour of day (UTC), by minute of
// the hour (bursts right after :00 and :15/:30/:45, smaller at other 5-minute marks) and on weekends.
// Factors multiply the standard deviation; their squares the variance.
import type { MinuteGroup, ModelV2Params } from './params.ts'

const MINUTE_MS = 60_000

export function minuteGroup(minuteOfHour: number): MinuteGroup {
  if (minuteOfHour === 0) return 'hour'
  if (minuteOfHour % 15 === 0) return 'quarter'
  if (minuteOfHour % 5 === 0) return 'five'
  return 'other'
}

const DAY_MS = 86_400_000

/** Saturday or Sunday, UTC (1970-01-01 was a Thursday). Arithmetic, not Date: it runs per close. */
export function isWeekend(at: number): boolean {
  const weekday = (((Math.floor(at / DAY_MS) + 4) % 7) + 7) % 7
  return weekday === 0 || weekday === 6
}

/** The sd multiplier of the one-minute return over the minute that starts at or contains `at`. */
export function seasonalFactor(seasonal: ModelV2Params['seasonal'], at: number): number {
  const minuteOfDay = ((Math.floor(at / MINUTE_MS) % 1440) + 1440) % 1440
  const hour = seasonal.hour[Math.floor(minuteOfDay / 60)] as number
  const minute = seasonal.minute[minuteGroup(minuteOfDay % 60)]
  return hour * minute * (isWeekend(at) ? seasonal.weekend : 1)
}

/**
 * Σ of squared seasonal factors over [from, to) in minutes, counting a partial minute by the share of
 * it covered: the seasonal variance of a span, in units of the deseasonalised per-minute variance.
 */
export function seasonalVariance(seasonal: ModelV2Params['seasonal'], from: number, to: number): number {
  let total = 0
  let t = from
  while (t < to) {
    const next = Math.min(to, (Math.floor(t / MINUTE_MS) + 1) * MINUTE_MS)
    const f = seasonalFactor(seasonal, t)
    total += (f * f * (next - t)) / MINUTE_MS
    t = next
  }
  return total
}
