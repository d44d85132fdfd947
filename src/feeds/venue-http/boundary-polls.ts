// When a polled venue polls next (decisions §8, §14): every `pollMs`, and also just after a boundary
// of a market it already knows (an open_time or a close_time) passes, so a contest opens when the
// venue opens it rather than up to a poll later. The venue's answer decides: a market still shown
// not open after its open_time is asked again a few times, backing off, then left to the regular
// cadence, so a venue that opens late is not hammered. No I/O: the poll loop (poll-loop.ts) sleeps.

/** What the venue's market book knows of its boundaries. */
export type BoundaryWatch = {
  /** The first open or close instant of a known market strictly after `after`, or null. */
  nextBoundary(after: number): number | null
  /** A known market whose window has begun at `now` is still not open in the venue's last answer. */
  lagging(now: number): boolean
}

/** After the boundary: the venue's own status flips at or just after it (venue facts §1.6). */
export const BOUNDARY_MARGIN_MS = 250
/** Waits before each re-poll while the venue still shows the market unopened: 3 more polls in 3.75 s. */
export const BOUNDARY_RETRY_MS: readonly number[] = [500, 1_000, 2_000]

/** Where the schedule stands after a poll: how many quick re-polls the last boundary has left. */
export type BoundaryState = { retriesUsed: number | null }

export const NO_BOUNDARY: BoundaryState = { retriesUsed: null }

/**
 * The instant of the next poll after one that began at `began`, with `now` the instant it ended: the
 * regular `began + pollMs`, or earlier for a boundary the last poll began before (plus the margin),
 * or for a re-poll while the venue lags behind the last boundary. `state` is the one that poll
 * leaves (a boundary poll starts the re-polls; each re-poll uses one).
 */
export function nextPoll(o: {
  began: number
  now: number
  pollMs: number
  watch: BoundaryWatch
  state: BoundaryState
}): { at: number; state: BoundaryState } {
  let at = o.began + o.pollMs
  let nextState: BoundaryState = NO_BOUNDARY
  const used = o.state.retriesUsed
  if (used !== null && used < BOUNDARY_RETRY_MS.length && o.watch.lagging(o.now)) {
    const retryAt = o.now + (BOUNDARY_RETRY_MS[used] as number)
    if (retryAt < at) {
      at = retryAt
      nextState = { retriesUsed: used + 1 }
    }
  }
  // a boundary not yet covered by a poll that began at least the margin after it
  const boundary = o.watch.nextBoundary(o.began - BOUNDARY_MARGIN_MS)
  if (boundary !== null && boundary + BOUNDARY_MARGIN_MS < at) {
    at = boundary + BOUNDARY_MARGIN_MS
    nextState = { retriesUsed: 0 }
  }
  return { at, state: nextState }
}
