// A day-block bootstrap (decisions §15): the readings of one day share its market's mood (its
// volatility, its crowd), which a per-contest cluster does not capture; resampling whole UTC days
// with replacement gives an interval for a mean that respects that dependence. Pure: the uniform
// draws come from the caller, so a seeded generator makes the interval reproducible.

export type Interval = { low: number; high: number }

/** Draws per interval: enough for the 2.5 % and 97.5 % quantiles to settle within a few percent. */
export const BOOTSTRAP_DRAWS = 1000

const DAY_MS = 86_400_000

/**
 * Fewer days than this and resampling them gives an interval that looks like evidence and is not
 * (two days can exclude 0 where the clustered SE puts a difference at 1.3 SE): no interval then.
 */
export const MIN_BOOTSTRAP_DAYS = 5

/** The UTC day (days since the epoch) an instant falls on. */
export function utcDayOf(ms: number): number {
  return Math.floor(ms / DAY_MS)
}

/**
 * The 95 % percentile interval of the mean of `values`, resampling the distinct `days` (one per
 * value) with replacement `draws` times; each draw's mean weighs a day by its number of values.
 * Null with fewer than MIN_BOOTSTRAP_DAYS days: a handful of blocks resampled says nothing.
 */
export function dayBlockBootstrap(
  values: readonly number[],
  days: readonly number[],
  random: () => number,
  draws: number = BOOTSTRAP_DRAWS,
): Interval | null {
  const sums = new Map<number, { sum: number; n: number }>()
  for (let i = 0; i < values.length; i++) {
    const day = days[i] as number
    const s = sums.get(day) ?? { sum: 0, n: 0 }
    s.sum += values[i] as number
    s.n++
    sums.set(day, s)
  }
  const blocks = [...sums.values()]
  const k = blocks.length
  if (k < MIN_BOOTSTRAP_DAYS || draws < 1) return null
  const means = new Float64Array(draws)
  for (let d = 0; d < draws; d++) {
    let sum = 0
    let n = 0
    for (let j = 0; j < k; j++) {
      const b = blocks[Math.min(k - 1, Math.floor(random() * k))] as { sum: number; n: number }
      sum += b.sum
      n += b.n
    }
    means[d] = sum / n
  }
  means.sort()
  return { low: quantile(means, 0.025), high: quantile(means, 0.975) }
}

/** The q-quantile of sorted values, interpolated linearly between order statistics. */
function quantile(sorted: Float64Array, q: number): number {
  const at = q * (sorted.length - 1)
  const lo = Math.floor(at)
  const hi = Math.min(sorted.length - 1, lo + 1)
  return (sorted[lo] as number) + (at - lo) * ((sorted[hi] as number) - (sorted[lo] as number))
}
