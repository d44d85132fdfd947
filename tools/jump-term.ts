// A jump term for model v2's settlement distribution, measured and priced outside the model
// (`npm run model:jumps`; docs/model.md, "A jump term from the proxy's seconds"). The ranged level
// takes a jump out of the variance it measures, and the t the model prices with is fitted on the
// outcomes, so nothing in v2 prices a jump as one. Here the jumps are counted on the proxy's own
// seconds — never the hidden index — and priced as stochastic volatility with jumps whose intensity
// is proportional to the variance (Bates 2000, Pan 2002), with Laplace sizes.
import type { MinuteClose } from '../src/domain/price-history.ts'
import type { ModelInputs } from '../src/domain/reading-model.ts'
import type { ModelV2Params, RealizedDynamics } from '../src/model/params.ts'
import { cleanSeconds, jumpThresholdSquare } from '../src/model/realized-level.ts'
import { seasonalVariance } from '../src/model/seasonal.ts'
import { unitStudentTCdf } from '../src/model/student-t.ts'
import { AVERAGING_MS } from '../src/model/variance.ts'

/** What the training closes' seconds showed of jumps. */
export type JumpTerm = {
  /** jumps counted (over the floor), and the minutes with seconds they were counted in */
  jumps: number
  minutes: number
  /** the Laplace scale of a jump's log size */
  laplaceScale: number
  /** jumps per unit of diffusive variance (squared log units), those under each threshold counted back */
  perVariance: number
  /** the jumps' share of the variance: perVariance · 2·laplaceScale² */
  varianceShare: number
}

/**
 * Counts the jumps in closes' seconds: the moves the realised filter calls jumps (a move over
 * jumpSd sds of the minute's other moves) and larger than `floor` — smaller ones are mostly the
 * sources' quote noise in calm minutes. A Laplace size is memoryless, so the excess of each jump
 * over its threshold (the larger of the floor and the minute's own) measures the scale; the count
 * over the minutes' diffusive variance, times e^(mean threshold / scale), the intensity. Null with
 * no jump counted.
 */
export function measureJumps(
  closes: Iterable<MinuteClose>,
  realized: RealizedDynamics,
  floor: number,
): JumpTerm | null {
  let jumps = 0
  let minutes = 0
  let variance = 0
  let excess = 0
  let thresholds = 0
  for (const c of closes) {
    const s = c.seconds
    if (s === undefined) continue
    minutes++
    const clean = cleanSeconds(s, realized)
    variance += clean.variance
    const size = Math.abs(clean.jump)
    if (size <= floor) continue
    const threshold = Math.max(floor, Math.sqrt(jumpThresholdSquare(s, realized)))
    jumps++
    excess += size - threshold
    thresholds += threshold
  }
  if (jumps === 0 || !(variance > 0) || !(excess > 0)) return null
  const laplaceScale = excess / jumps
  const perVariance = (jumps / variance) * Math.exp(thresholds / jumps / laplaceScale)
  return { jumps, minutes, laplaceScale, perVariance, varianceShare: perVariance * 2 * laplaceScale ** 2 }
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
  term: Pick<JumpTerm, 'perVariance' | 'laplaceScale'>,
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
