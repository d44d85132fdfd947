// The virtual clock of a replay (decisions §12): it stands still between records and jumps forward
// as the replay reaches each one; it never goes back.
import type { Clock } from '../../ports/clock.ts'

export type ReplayClock = Clock & {
  /** Moves the clock to `t`; an earlier `t` leaves it where it is. */
  advanceTo(t: number): void
}

export function createReplayClock(start: number): ReplayClock {
  let now = start
  return {
    now: () => now,
    advanceTo(t) {
      if (t > now) now = t
    },
  }
}
