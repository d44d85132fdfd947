// KXBTC15M's tapered price grid (venue facts §1.9, `tapered_deci_cent`): 0.1 ¢ steps below 10 ¢ and
// above 90 ¢, 1 ¢ steps in between. Prices are integer millionths of a dollar, as on the wire.

export const DOLLAR = 1_000_000
const FINE = 1_000
const COARSE = 10_000
const LOW = 100_000
const HIGH = 900_000

/** The grid's step at a price (the fine step from the 90 ¢ mark up, and below the 10 ¢ mark). */
export function tickAt(p: number): number {
  return p < LOW || p >= HIGH ? FINE : COARSE
}

export function isOnGrid(p: number): boolean {
  if (p < 0 || p > DOLLAR || p % FINE !== 0) return false
  return p <= LOW || p >= HIGH || p % COARSE === 0
}

/** The highest grid price at or below `p`. */
export function floorToGrid(p: number): number {
  if (p <= LOW || p >= HIGH) return Math.floor(p / FINE) * FINE
  return LOW + Math.floor((p - LOW) / COARSE) * COARSE
}

/** The lowest grid price at or above `p`. */
export function ceilToGrid(p: number): number {
  if (p <= LOW || p >= HIGH) return Math.ceil(p / FINE) * FINE
  return LOW + Math.ceil((p - LOW) / COARSE) * COARSE
}

export const stepUp = (p: number): number => ceilToGrid(p + 1)
export const stepDown = (p: number): number => floorToGrid(p - 1)

/** A venue's price grid as the crowd lays its book on it. */
export type TickGrid = {
  tickAt(p: number): number
  floorToGrid(p: number): number
  stepUp(p: number): number
  stepDown(p: number): number
}

/** KXBTC15M's tapered grid (this module's functions). */
export const KALSHI_GRID: TickGrid = { tickAt, floorToGrid, stepUp, stepDown }

/**
 * A grid of 1 ¢ steps between `low` and `high` (millionths) and 0.1 ¢ steps outside them: Polymarket's
 * 0.01 tick that drops to 0.001 near 0 and 1 (venue facts §3.4.2).
 */
export function taperedGrid(low: number, high: number): TickGrid {
  const tick = (p: number): number => (p < low || p >= high ? FINE : COARSE)
  const floor = (p: number): number =>
    p <= low || p >= high ? Math.floor(p / FINE) * FINE : low + Math.floor((p - low) / COARSE) * COARSE
  const ceil = (p: number): number =>
    p <= low || p >= high ? Math.ceil(p / FINE) * FINE : low + Math.ceil((p - low) / COARSE) * COARSE
  return { tickAt: tick, floorToGrid: floor, stepUp: (p) => ceil(p + 1), stepDown: (p) => floor(p - 1) }
}
