// The median the spot is built on: robust to one exchange printing far from the others.

/** Median of `xs`; the mean of the two middle values for an even count; null when empty. */
export function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2
}
