// The median the spot is built on: robust to one exchange printing far from the others.
import { round2 } from '../../domain/contest.ts'

/** Median of `xs`; the mean of the two middle values for an even count; null when empty. */
export function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2
}

/**
 * The proxy's range and mean of a minute from its sources' own: the median of their highs, of their
 * lows and of their means, in cents as closes are (so one source's wild print moves none); nothing
 * when no source saw the minute whole. Every feed merges minutes here, so live, a replay and the
 * sandbox agree.
 */
export function mergedWholeMinute(
  minutes: readonly { high: number; low: number; mean: number }[],
): { highDollars: number; lowDollars: number; meanDollars: number } | Record<string, never> {
  const high = median(minutes.map((r) => r.high))
  const low = median(minutes.map((r) => r.low))
  const mean = median(minutes.map((r) => r.mean))
  if (high === null || low === null || mean === null) return {}
  return { highDollars: round2(high), lowDollars: round2(low), meanDollars: round2(mean) }
}
