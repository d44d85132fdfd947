// The simulator's virtual clock (decisions §2): virtual_now = t0 + (wall_now − t0) × speed. The anchor
// is general — (wall0, virtual0) — so a deployment can keep one timeline across restarts and speed
// changes instead of jumping back to wall time (see src/main/service-clock.ts).
import type { Clock } from '../ports/clock.ts'

export type ClockAnchor = { wall0: number; virtual0: number; speed: number }

export function createVirtualClock(wall: Clock, anchor: ClockAnchor): Clock {
  const { wall0, virtual0, speed } = anchor
  if (speed === 1 && wall0 === virtual0) return wall
  return { now: () => Math.floor(virtual0 + (wall.now() - wall0) * speed) }
}

/** The anchor that continues `previous`'s timeline from `wallNow` at a new speed, never going back. */
export function continueTimeline(previous: ClockAnchor, wallNow: number, speed: number): ClockAnchor {
  const reached = previous.virtual0 + (wallNow - previous.wall0) * previous.speed
  return { wall0: wallNow, virtual0: Math.max(wallNow, Math.floor(reached)), speed }
}

export function parseClockAnchor(raw: string | null): ClockAnchor | null {
  if (raw === null) return null
  try {
    const a = JSON.parse(raw) as Partial<ClockAnchor>
    const ok = [a.wall0, a.virtual0, a.speed].every((n) => typeof n === 'number' && Number.isFinite(n))
    return ok && a.speed! > 0 ? (a as ClockAnchor) : null
  } catch {
    return null
  }
}
