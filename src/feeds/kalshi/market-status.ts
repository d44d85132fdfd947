// Kalshi's market `status` field (reference §1.6) as the port's MarketPhase.
import type { MarketPhase } from '../../ports/venue.ts'

const PHASE_BY_STATUS = {
  initialized: 'upcoming',
  active: 'trading',
  inactive: 'paused',
  closed: 'closed',
  determined: 'closed',
  disputed: 'closed',
  amended: 'closed',
  finalized: 'closed',
  // Older API generations (and much third-party code, reference §5.3) used the filter words as field
  // values. The current API never sends them, but if a host or proxy does, their meaning is clear.
  unopened: 'upcoming',
  open: 'trading',
  paused: 'paused',
  settled: 'closed',
} as const satisfies Record<string, MarketPhase>

export type KalshiStatus = keyof typeof PHASE_BY_STATUS

export function isKalshiStatus(value: unknown): value is KalshiStatus {
  return typeof value === 'string' && Object.hasOwn(PHASE_BY_STATUS, value)
}

export function phaseForStatus(status: KalshiStatus): MarketPhase {
  return PHASE_BY_STATUS[status]
}

/**
 * Statuses at which the venue's `result` is final enough to settle on. REST often jumps from
 * `closed` straight to `finalized` (reference §5.12), so `determined` is never required; `disputed`
 * waits for the outcome of the dispute; legacy `settled` is today's `finalized`.
 */
export function isDecidedStatus(status: KalshiStatus): boolean {
  return status === 'determined' || status === 'amended' || status === 'finalized' || status === 'settled'
}
