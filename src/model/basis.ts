// The proxy–index basis: the venue's strike is the index's mean over the minute before the open, and
// the engine saw its own proxy over the same seconds, so each strike is a free sample of the basis.
import type { BasisSample } from '../domain/price-history.ts'

/**
 * How the basis is estimated: the newest `samples` strikes, shrunk toward zero by `shrink`
 * pseudo-samples (a single noisy sample moves the centre only part way), the k-th newest weighed
 * decay^k (absent: 1, the plain mean). A decay below 1 follows a basis that moves from one level to
 * another, as Polymarket's oracle does against the exchanges, at the price of averaging less noise.
 */
export type BasisOptions = { samples: number; shrink: number; decay?: number }

/** The weight of each of `n` samples, newest first, and the shrink's weight beside them. */
function basisWeights(n: number, opts: BasisOptions): { weights: number[]; shrink: number } {
  const decay = opts.decay ?? 1
  const weights = Array.from({ length: n }, (_, k) => decay ** k)
  const sum = weights.reduce((a, w) => a + w, 0)
  // a pseudo-sample weighs as much as the samples do on average: with decay 1, the plain count
  return { weights, shrink: n === 0 ? 0 : (opts.shrink * sum) / n }
}

/** The basis in dollars (proxy minus index) from the strikes at or before `at`. */
export function estimateBasis(samples: readonly BasisSample[], at: number, opts: BasisOptions): number {
  const usable = usableBasisSamples(samples, at, opts)
  if (usable.length === 0) return 0
  const { weights, shrink } = basisWeights(usable.length, opts)
  let sum = 0
  let total = shrink
  usable.forEach((s, k) => {
    sum += (weights[k] as number) * (s.proxyMeanDollars - s.strikeDollars)
    total += weights[k] as number
  })
  return sum / total
}

/** The samples estimateBasis averages: the newest `samples` usable ones at or before `at`. */
export function usableBasisSamples(
  samples: readonly BasisSample[],
  at: number,
  opts: { samples: number },
): BasisSample[] {
  return samples
    .filter(
      (s) =>
        s.opensAt <= at &&
        Number.isFinite(s.strikeDollars) &&
        Number.isFinite(s.proxyMeanDollars) &&
        s.strikeDollars > 0 &&
        s.proxyMeanDollars > 0,
    )
    .sort((a, b) => b.opensAt - a.opensAt)
    .slice(0, opts.samples)
}

/**
 * The variance (squared log units) estimateBasis inherits from samples whose proxy mean is two
 * closes' guess, each off by `closeNoise(opensAt)` (for the minute before that open), averaged over
 * the samples and the shrink's pseudo-samples. Zero when the feed saw every sample's minute whole.
 */
export function basisCloseNoise(
  samples: readonly BasisSample[],
  at: number,
  opts: BasisOptions,
  closeNoise: (opensAt: number) => number,
): number {
  const usable = usableBasisSamples(samples, at, opts)
  const { weights, shrink } = basisWeights(usable.length, opts)
  let noise = 0
  let total = shrink
  usable.forEach((s, k) => {
    const w = weights[k] as number
    if (s.fromCloses) noise += w * w * closeNoise(s.opensAt)
    total += w
  })
  return total > 0 ? noise / (total * total) : 0
}
