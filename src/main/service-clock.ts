// The deployment's service clock. decisions §2 defines virtual_now = t0 + (wall_now − t0) × SIM_SPEED
// with t0 = process start; we keep that anchor in the store from the first start, so a restarted
// process (and every replica of a scaled-out deployment) continues the same virtual timeline instead
// of jumping back behind contests it has already stored.
import {
  type ClockAnchor,
  continueTimeline,
  isWallTimeline,
  parseClockAnchor,
  virtualTime,
} from '../domain/virtual-clock.ts'
import type { Clock } from '../ports/clock.ts'
import type { Store } from '../ports/store.ts'

/** The store setting that holds the deployment's timeline (a ClockAnchor as JSON). */
export const ANCHOR_KEY = 'virtual-clock'

/** The clock of an anchor's timeline, read off `wall`; `wall` itself when they are the same. */
export function createVirtualClock(wall: Clock, anchor: ClockAnchor): Clock {
  if (isWallTimeline(anchor)) return wall
  return { now: () => virtualTime(anchor, wall.now()) }
}

export async function createServiceClock(store: Store, wallClock: Clock, speed: number): Promise<Clock> {
  const now = wallClock.now()
  const stored = parseClockAnchor(await store.getSetting(ANCHOR_KEY))
  // A deployment that never ran accelerated stays on the wall clock.
  if (stored === null && speed === 1) return wallClock
  let anchor: ClockAnchor
  if (stored === null) {
    const proposed: ClockAnchor = { wall0: now, virtual0: now, speed }
    // Several processes may start at once: the first anchor written wins for all of them.
    anchor = parseClockAnchor(await store.initSetting(ANCHOR_KEY, JSON.stringify(proposed))) ?? proposed
  } else if (stored.speed !== speed) {
    anchor = continueTimeline(stored, now, speed)
    await store.putSetting(ANCHOR_KEY, JSON.stringify(anchor))
  } else {
    anchor = stored
  }
  return createVirtualClock(wallClock, anchor)
}

/**
 * The deployment's clock as the running service has it, for a short command: the stored timeline
 * if there is one, else the wall clock. It never writes, so `keys create` does not start or bend a
 * timeline; its timestamps land on the same clock as the server's (decisions §2).
 */
export async function storedServiceClock(store: Store, wallClock: Clock): Promise<Clock> {
  const stored = parseClockAnchor(await store.getSetting(ANCHOR_KEY))
  return stored === null ? wallClock : createVirtualClock(wallClock, stored)
}
