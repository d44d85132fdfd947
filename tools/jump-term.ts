// The jump term's measurement (`npm run model:jumps`; docs/model.md, "A jump term from the proxy's
// seconds"): the jumps are counted on the proxy's own seconds — never the hidden index — for the
// model to price as src/model/jumps.ts says.
import type { MinuteClose } from '../src/domain/price-history.ts'
import type { JumpPricing } from '../src/model/jumps.ts'
import type { RealizedDynamics } from '../src/model/params.ts'
import { cleanSeconds, jumpThresholdSquare } from '../src/model/realized-level.ts'

/** What the training closes' seconds showed of jumps. */
export type JumpTerm = JumpPricing & {
  /** jumps counted (over the floor), and the minutes with seconds they were counted in */
  jumps: number
  minutes: number
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
