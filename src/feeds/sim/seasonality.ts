// Intraday and weekly seasonality of the sandbox's volatility (decisions §3): an hour-of-day cycle,
// bursts at the top of the hour and at the quarter hours, and calmer weekends. The multipliers apply
// to the sd and are scaled so that the variance averages to 1 over a week: σ̄ stays the level.
import type { SimParams } from './sim-params.ts'

const MINUTE_MS = 60_000
const MINUTES_PER_WEEK = 7 * 1440

export type Seasonality = {
  /** the sd multiplier of the minute starting at `minuteStartMs` (UTC) */
  at(minuteStartMs: number): number
}

function rawMultiplier(p: SimParams['seasonality'], minuteStartMs: number): number {
  const d = new Date(minuteStartMs)
  const hour = d.getUTCHours()
  const minute = d.getUTCMinutes()
  const day = d.getUTCDay()
  const hourly = 1 + p.hourAmplitude * Math.cos((2 * Math.PI * (hour - p.peakHourUtc)) / 24)
  const withinHour =
    minute === 0 ? p.topOfHour : minute % 15 === 0 ? p.quarterHour : minute % 5 === 0 ? p.fiveMinuteMark : 1
  const weekend = day === 0 || day === 6 ? p.weekend : 1
  return hourly * withinHour * weekend
}

export function createSeasonality(p: SimParams['seasonality']): Seasonality {
  // one week of raw multipliers from a Monday (1970-01-05 was one), then the variance scale
  const monday = Date.UTC(1970, 0, 5)
  const week = new Float64Array(MINUTES_PER_WEEK)
  let sumSq = 0
  for (let i = 0; i < MINUTES_PER_WEEK; i++) {
    const m = rawMultiplier(p, monday + i * MINUTE_MS)
    week[i] = m
    sumSq += m * m
  }
  const scale = 1 / Math.sqrt(sumSq / MINUTES_PER_WEEK)
  for (let i = 0; i < MINUTES_PER_WEEK; i++) week[i] = (week[i] as number) * scale
  return {
    at(minuteStartMs) {
      const i = Math.floor((minuteStartMs - monday) / MINUTE_MS) % MINUTES_PER_WEEK
      return week[i < 0 ? i + MINUTES_PER_WEEK : i] as number
    },
  }
}
