// The median the spot is built on: robust to one exchange printing far from the others.
import { round2 } from '../../domain/contest.ts'
import type { MinuteClose, WholeMinute } from '../../domain/price-history.ts'

/** Median of `xs`; the mean of the two middle values for an even count; null when empty. */
export function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2
}

/**
 * The proxy's range, mean and seconds of a minute from its sources' own: the median of their highs,
 * of their lows, of their means and of each of their seconds' sums, prices in cents as closes are
 * (so one source's wild print moves none); nothing when no source saw the minute whole. Every feed
 * merges minutes here, so live, a replay and the sandbox agree.
 */
export function mergedWholeMinute(
  minutes: readonly WholeMinute[],
): Pick<MinuteClose, 'highDollars' | 'lowDollars' | 'meanDollars' | 'seconds'> {
  const high = median(minutes.map((r) => r.high))
  const low = median(minutes.map((r) => r.low))
  const mean = median(minutes.map((r) => r.mean))
  const squares = median(minutes.map((r) => r.squares))
  const crosses = median(minutes.map((r) => r.crosses))
  const largest = median(minutes.map((r) => r.largest))
  if (
    high === null ||
    low === null ||
    mean === null ||
    squares === null ||
    crosses === null ||
    largest === null
  )
    return {}
  return {
    highDollars: round2(high),
    lowDollars: round2(low),
    meanDollars: round2(mean),
    seconds: { squares, crosses, largest },
  }
}
