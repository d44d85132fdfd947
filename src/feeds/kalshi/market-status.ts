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
 * Statuses at which the venue's result is taken (decisions §8): `finalized` (paid out), `amended`
 * (re-determined after a dispute) and the legacy `settled`. A REST `determined` can still be
 * disputed, so it is waited on. The venue facts (§1.6) would wait for `finalized` after an `amended`
 * too; the decisions take the amended result, since a market reaches `amended` only after its
 * dispute was decided and REST usually jumps from `closed` to `finalized` about 11 s after the close
 * (§2.6). A grade is never changed once written (decisions §3).
 */
export function isFinalStatus(status: KalshiStatus): boolean {
  return status === 'finalized' || status === 'amended' || status === 'settled'
}
