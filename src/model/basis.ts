// The proxy–index basis: the venue's strike is the index's mean over the minute before the open, and
// the engine saw its own proxy over the same seconds, so each strike is a free sample of the basis.
import type { BasisSample } from '../domain/price-history.ts'

/**
 * The basis in dollars (proxy minus index) from the newest `samples` strikes at or before `at`,
 * shrunk toward zero by `shrink` pseudo-samples: a single noisy sample moves the centre only part way.
 */
export function estimateBasis(
  samples: readonly BasisSample[],
  at: number,
  opts: { samples: number; shrink: number },
): number {
  const usable = usableBasisSamples(samples, at, opts)
  if (usable.length === 0) return 0
  const sum = usable.reduce((acc, s) => acc + (s.proxyMeanDollars - s.strikeDollars), 0)
  return sum / (usable.length + opts.shrink)
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
  opts: { samples: number; shrink: number },
  closeNoise: (opensAt: number) => number,
): number {
  const usable = usableBasisSamples(samples, at, opts)
  let noise = 0
  for (const s of usable) if (s.fromCloses) noise += closeNoise(s.opensAt)
  const n = usable.length + opts.shrink
  return n > 0 ? noise / (n * n) : 0
}
