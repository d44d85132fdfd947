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
  const usable = samples
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
  if (usable.length === 0) return 0
  const sum = usable.reduce((acc, s) => acc + (s.proxyMeanDollars - s.strikeDollars), 0)
  return sum / (usable.length + opts.shrink)
}
