// Jumps in the settlement distribution (docs/model.md, "A jump term from the proxy's seconds"). The
// ranged level takes a jump out of the variance it measures (realized-level.ts), and the t is fitted
// on outcomes, so without this term nothing prices a jump as one. Priced as stochastic volatility
// with jumps whose intensity is proportional to the variance (Bates 2000, Pan 2002), Laplace sizes,
// at most one jump to the close: a jump's size does not scale with σ, which is what the t cannot say.
import type { ModelInputs } from '../domain/reading-model.ts'
import type { ModelV2Params } from './params.ts'
import { seasonalVariance } from './seasonal.ts'
import { unitStudentTCdf } from './student-t.ts'
import { AVERAGING_MS } from './variance.ts'

/** How often jumps come and how large they are, measured on the training closes' seconds. */
export type JumpPricing = {
  /** jumps per unit of diffusive variance (squared log units, before the forecast scale) */
  perVariance: number
  /** the Laplace scale of a jump's log size */
  laplaceScale: number
}

/**
 * The diffusive variance still to come (before the scale) where a jump would move the settlement
 * mean by its whole size — before the averaging window — and inside the window, with the share of
 * the window still to come: a jump there moves the mean by its size times the share after it.
 */
export type JumpExposure = { before: number; inWindow: number; windowLeft: number }

export function jumpExposure(
  input: Pick<ModelInputs, 'spotObservedAt' | 'expiresAt' | 'averagingS'>,
  pricing: { params: Pick<ModelV2Params, 'seasonal'>; sigmaPerMinute: number },
): JumpExposure {
  const seasonal = pricing.params.seasonal
  const averagingMs = input.averagingS === undefined ? AVERAGING_MS : input.averagingS * 1000
  const windowStart = input.expiresAt - averagingMs
  const perMinute = pricing.sigmaPerMinute * pricing.sigmaPerMinute
  const from = Math.min(input.spotObservedAt, input.expiresAt)
  if (averagingMs <= 0)
    return {
      before: perMinute * seasonalVariance(seasonal, from, input.expiresAt),
      inWindow: 0,
      windowLeft: 0,
    }
  const windowFrom = Math.max(from, windowStart)
  return {
    before: from < windowStart ? perMinute * seasonalVariance(seasonal, from, windowStart) : 0,
    inWindow: perMinute * seasonalVariance(seasonal, windowFrom, input.expiresAt),
    windowLeft: (input.expiresAt - windowFrom) / averagingMs,
  }
}

// the Laplace expectation on quantiles of its exponential magnitude, the window's share at midpoints
const SIZE_NODES = Array.from({ length: 64 }, (_, i) => -Math.log(1 - (i + 0.5) / 64))
const WINDOW_NODES = Array.from({ length: 4 }, (_, i) => (i + 0.5) / 4)

/**
 * P(up) of a settlement move that is the t of unit variance times `sd` plus at most one Laplace jump:
 * none with chance e^(−Λ), Λ = perVariance × the exposure; else one, before the window or inside it
 * in proportion to their exposures.
 */
export function probabilityWithJumps(
  centre: number,
  sd: number,
  nu: number,
  exposure: JumpExposure,
  term: JumpPricing,
): number {
  const up = (x: number): number => (sd > 0 ? unitStudentTCdf(x / sd, nu) : x >= 0 ? 1 : 0)
  const none = up(centre)
  const before = term.perVariance * exposure.before
  const inWindow = term.perVariance * exposure.inWindow
  const all = before + inWindow
  if (!(all > 0) || !Number.isFinite(centre)) return none
  const b = term.laplaceScale
  const sized = (scale: number): number => {
    let sum = 0
    for (const x of SIZE_NODES) sum += up(centre + scale * b * x) + up(centre - scale * b * x)
    return sum / (2 * SIZE_NODES.length)
  }
  const jumpBefore = before > 0 ? sized(1) : 0
  let jumpInWindow = 0
  if (inWindow > 0) {
    for (const u of WINDOW_NODES) jumpInWindow += sized(u * exposure.windowLeft)
    jumpInWindow /= WINDOW_NODES.length
  }
  const some = 1 - Math.exp(-all)
  return (1 - some) * none + some * ((before / all) * jumpBefore + (inWindow / all) * jumpInWindow)
}
