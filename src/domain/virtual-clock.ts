// The simulator's virtual time (decisions §2): virtual_now = t0 + (wall_now − t0) × speed. The anchor
// is general — (wall0, virtual0) — so a deployment can keep one timeline across restarts and speed
// changes instead of jumping back to wall time. Pure arithmetic: the Clock built on it lives in
// src/main/service-clock.ts.

export type ClockAnchor = { wall0: number; virtual0: number; speed: number }

/** True when the anchor's timeline is the wall clock itself. */
export function isWallTimeline(anchor: ClockAnchor): boolean {
  return anchor.speed === 1 && anchor.wall0 === anchor.virtual0
}

/** Virtual time, in whole ms, on the anchor's timeline at wall time `wallNow`. */
export function virtualTime(anchor: ClockAnchor, wallNow: number): number {
  return Math.floor(anchor.virtual0 + (wallNow - anchor.wall0) * anchor.speed)
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
