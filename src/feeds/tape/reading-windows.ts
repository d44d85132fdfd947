// The windows a replay venue has seen and not yet closed, and the next instant the engine must act at
// in them: a whole minute of a window (counted from its own open, wherever the venue put it) or its
// close. The tape venue ticks the replay clock through this, whatever the venue.

import { MINUTE_MS } from '../../domain/contest.ts'

export type ReadingWindows = {
  /** a market's window as the venue last showed it (a moved close replaces the earlier one) */
  set(ticker: string, opensAt: number, closesAt: number): void
  /** the first reading boundary or close after `t`; windows closed over a minute before `t` are dropped */
  nextBoundaryAfter(t: number): number
}

export function createReadingWindows(): ReadingWindows {
  const windows = new Map<string, { opensAt: number; closesAt: number }>()
  return {
    set(ticker, opensAt, closesAt) {
      windows.set(ticker, { opensAt, closesAt })
    },
    nextBoundaryAfter(t) {
      let next = Number.POSITIVE_INFINITY
      for (const [ticker, w] of windows) {
        if (w.closesAt < t - MINUTE_MS) {
          windows.delete(ticker)
          continue
        }
        if (t >= w.closesAt) continue
        const minute =
          t < w.opensAt ? w.opensAt : w.opensAt + (Math.floor((t - w.opensAt) / MINUTE_MS) + 1) * MINUTE_MS
        next = Math.min(next, minute, w.closesAt)
      }
      return next
    },
  }
}
