// Kalshi's weekly trading pause (venue facts §1.13): Thursday 03:00–05:00 America/New_York, when
// `GET /exchange/status` says `trading_active: false` and nothing can be traded.
import { easternOffset } from '../../domain/ticker.ts'
import type { SimParams } from './sim-params.ts'

export function isTradingPaused(p: SimParams['pause'], at: number): boolean {
  const local = new Date(at + easternOffset(at))
  if (local.getUTCDay() !== p.weekdayEastern) return false
  const hour = local.getUTCHours()
  return hour >= p.fromHour && hour < p.toHour
}

/** The end of the pause containing `at` (its resume time), for the exchange status body. */
export function pauseEndsAt(p: SimParams['pause'], at: number): number {
  const local = at + easternOffset(at)
  const d = new Date(local)
  const localEnd = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), p.toHour)
  return localEnd - easternOffset(at)
}
