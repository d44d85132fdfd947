// Client-side pacing shared by every request of one adapter: requests leave at most `perSecond`
// a second, evenly spaced, so a poll of several series never bursts at the venue.
import type { Clock } from '../../ports/clock.ts'

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>

export type RequestPacer = {
  /** Resolves when the caller may send; rejects if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<void>
}

export function createRequestPacer(opts: { perSecond: number; clock: Clock; sleep: Sleep }): RequestPacer {
  if (!(opts.perSecond > 0)) throw new RangeError('perSecond must be positive')
  const spacingMs = 1000 / opts.perSecond
  // The earliest instant the next request may leave. Each caller reserves a slot up front, so
  // concurrent callers queue in call order without a lock.
  let nextSlotAt = Number.NEGATIVE_INFINITY
  return {
    async acquire(signal) {
      const now = opts.clock.now()
      const slot = Math.max(now, nextSlotAt)
      nextSlotAt = slot + spacingMs
      if (slot > now) await opts.sleep(Math.ceil(slot - now), signal)
    },
  }
}
