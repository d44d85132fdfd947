// The simulator's virtual clock (decisions §2): virtual_now = t0 + (wall_now − t0) × speed.
import type { Clock } from '../ports/clock.ts'

export function createVirtualClock(wall: Clock, speed: number, t0: number = wall.now()): Clock {
  if (speed === 1) return wall
  return { now: () => Math.floor(t0 + (wall.now() - t0) * speed) }
}

export const systemClock: Clock = { now: () => Date.now() }
