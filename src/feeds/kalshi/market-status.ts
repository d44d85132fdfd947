// Kalshi's market `status` field (venue facts §1.6) as the port's MarketPhase.
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
  // Older API generations (and much third-party code, venue facts §1.6) used the filter words as field
  // values. The current API never sends them, but if a host or proxy does, their meaning is clear.
  unopened: 'upcoming',
  open: 'trading',
  paused: 'paused',
  settled: 'closed',
} as const satisfies Record<string, MarketPhase>

export type KnownKalshiStatus = keyof typeof PHASE_BY_STATUS
/** Any status word the venue sends; a word this adapter does not know is kept, not rejected. */
export type KalshiStatus = string

export function isKnownStatus(value: unknown): value is KnownKalshiStatus {
  return typeof value === 'string' && Object.hasOwn(PHASE_BY_STATUS, value)
}

/**
 * The phase of a status word. A word the adapter does not know (the venue adds states) is a
 * non-trading phase inside the window (`paused`: no quotes, so no readings) rather than a reason to
 * keep showing the market as it was before (decisions §8, "Operating on Kalshi for real").
 */
export function phaseForStatus(status: KalshiStatus): MarketPhase {
  return isKnownStatus(status) ? PHASE_BY_STATUS[status] : 'paused'
}

/**
 * Statuses at which the venue's result is final enough to settle on: `finalized` (paid out) and the
 * legacy `settled`. A REST `determined` can still be disputed and changed, and `amended` restarts the
 * settlement timer (the venue's words), so it can change again before `finalized` (venue facts
 * §1.6). REST usually jumps from `closed` to `finalized` about 11 s after the close (§2.6), so waiting
 * for it costs nothing and never needs a regrade.
 */
export function isFinalStatus(status: KalshiStatus): boolean {
  return status === 'finalized' || status === 'settled'
}
