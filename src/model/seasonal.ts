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
const WEEK_MINUTES = 7 * 1440

/** Minutes since the last Thursday 00:00 UTC (the epoch's weekday), 0..10079. */
export function minuteOfWeek(at: number): number {
  return ((Math.floor(at / MINUTE_MS) % WEEK_MINUTES) + WEEK_MINUTES) % WEEK_MINUTES
}

// squared factors of every minute of the week, per seasonal table: the engine looks up a day of
// minutes each reading
const weekTables = new WeakMap<ModelV2Params['seasonal'], Float64Array>()
export function weekTable(seasonal: ModelV2Params['seasonal']): Float64Array {
  let table = weekTables.get(seasonal)
  if (!table) {
    table = new Float64Array(WEEK_MINUTES)
    for (let m = 0; m < WEEK_MINUTES; m++) {
      const f = seasonalFactor(seasonal, m * MINUTE_MS)
      table[m] = f * f
    }
    weekTables.set(seasonal, table)
  }
  return table
}

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
  // the common case, one whole minute, from the table of the week's minutes
  if (to - from === MINUTE_MS && from % MINUTE_MS === 0)
    return weekTable(seasonal)[minuteOfWeek(from)] as number
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
