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
