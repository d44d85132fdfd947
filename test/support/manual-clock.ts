// The one hand-driven Clock of the tests: time moves only when a test sets or advances it.
import type { Clock } from '../../src/ports/clock.ts'

export type ManualClock = Clock & {
  set(ms: number): void
  advance(ms: number): void
}

export function createManualClock(start = 1_000_000): ManualClock {
  let t = start
  return {
    now: () => t,
    set: (ms) => {
      t = ms
    },
    advance: (ms) => {
      t += ms
    },
  }
}
