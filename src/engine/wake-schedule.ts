// When the engine's loop wakes next (decisions §3, §11): at the first boundary after its last tick
// began (a window opening or closing, a reading's minute) or after its fixed tick, whichever comes
// first. Waking on the boundary itself opens a contest at its window's open and starts a reading at
// its minute, rather than up to a tick after; the fixed tick still retries a minute waiting for an
// input, settles, and keeps the lease.
import { MINUTE_MS } from '../domain/contest.ts'

export type Window = { opensAt: number; expiresAt: number }

/**
 * The first instant after `t` at which the engine has something to do on time: the clock's next whole
 * minute (windows open on quarter hours of the clock, on every venue and the simulator), and each
 * live window's next reading minute, counted from its own open, or its close (a venue may put
 * either off the clock's minutes).
 */
export function nextBoundaryAfter(t: number, windows: Iterable<Window>): number {
  let next = Math.floor(t / MINUTE_MS) * MINUTE_MS + MINUTE_MS
  for (const w of windows) {
    if (t >= w.expiresAt) continue
    const minute =
      t < w.opensAt ? w.opensAt : w.opensAt + (Math.floor((t - w.opensAt) / MINUTE_MS) + 1) * MINUTE_MS
    next = Math.min(next, minute, w.expiresAt)
  }
  return next
}

/**
 * Wall ms until the engine wakes: until the first boundary after `tickBegan` (both on the service
 * clock, which runs `speed` times the wall clock), at most `tickMs`. A boundary that passed while the
 * tick ran is due at once. Rounded up, so the service clock has reached the boundary when it wakes.
 */
export function wakeDelayMs(o: {
  tickBegan: number
  now: number
  windows: Iterable<Window>
  speed: number
  tickMs: number
}): number {
  const untilBoundary = Math.ceil((nextBoundaryAfter(o.tickBegan, o.windows) - o.now) / o.speed)
  return Math.max(0, Math.min(o.tickMs, untilBoundary))
}
