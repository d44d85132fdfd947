// The level error's tail (src/model/level-tail.ts) measured by maximum likelihood on the errors the
// Polymarket stage already measures — the basis estimate against the settlements, the proxy's own
// strike across a window — each with its measurement's known noise. Observables only: no hidden truth.
import { type LevelTail, levelComponents, levelTailProblem } from '../../src/model/level-tail.ts'
import type { BasisError } from './stages.ts'

/** The shares and widths the fit weighs: from a step in 500 errors to a fifth of them twice as wide. */
export const TAIL_SHARES = [0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2] as const
export const TAIL_WIDES = [1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64] as const

const LOG_2PI = Math.log(2 * Math.PI)
const logNormal = (squared: number, variance: number): number =>
  -0.5 * (LOG_2PI + Math.log(variance) + squared / variance)

/** The errors' log likelihood with their mean variance `variance`, priced as the mixture `tail` or plainly. */
export function levelLogLikelihood(
  errors: readonly BasisError[],
  variance: number,
  tail: LevelTail | null,
): number {
  const parts = tail === null ? [{ weight: 1, multiplier: 1 }] : levelComponents(tail)
  let sum = 0
  for (const e of errors) {
    // the log of a sum of weighted densities, kept finite where one of them underflows
    const logs = parts.map(
      (c) => Math.log(c.weight) + logNormal(e.squared, c.multiplier * variance + e.noise),
    )
    const top = Math.max(...logs)
    sum += top + Math.log(logs.reduce((s, l) => s + Math.exp(l - top), 0))
  }
  return sum
}

/**
 * The mixture of TAIL_SHARES × TAIL_WIDES most likely for `errors` at their measured mean variance
 * `variance`, with its gain in log likelihood over one normal; null where the mixture does not earn
 * its two parameters (a gain under ln n, the Bayesian information criterion) or there is nothing to
 * measure. The mean stays the measured one, so only the shape is fitted here.
 */
export function fitLevelTail(
  errors: readonly BasisError[],
  variance: number,
): { tail: LevelTail; gain: number } | null {
  if (errors.length < 2 || !(variance > 0)) return null
  const plain = levelLogLikelihood(errors, variance, null)
  let best: { tail: LevelTail; gain: number } | null = null
  for (const share of TAIL_SHARES)
    for (const wide of TAIL_WIDES) {
      const tail = { share, wide }
      if (levelTailProblem(tail) !== null) continue
      const gain = levelLogLikelihood(errors, variance, tail) - plain
      if (best === null || gain > best.gain) best = { tail, gain }
    }
  return best !== null && best.gain > Math.log(errors.length) ? best : null
}
