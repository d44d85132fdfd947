// The sandbox crowd's volatility estimate (issue 29): what a person pricing these contests would do
// — an exponentially weighted mean of the squared minute returns of the index it has seen,
// de-seasonalised with the seasonal table (public: anyone can measure it), as a multiple of the
// long-run σ̄. It reads only past minute closes, never the hidden state; its own code (the sandbox
// never imports the model's).
import type { IndexPath } from './index-path.ts'

const CACHED = 50_000

export type PastVolatility = {
  /** the estimated level (σ / (σ̄ · seasonal)) from the minutes completed before minute `k` */
  levelBefore(k: number): number
}

export function createPastVolatility(index: IndexPath, halfLifeMinutes: number): PastVolatility {
  const sigmaBar = index.params.index.sigmaPerMinute
  const keep = 2 ** (-1 / halfLifeMinutes)
  // far enough back that the starting guess (σ̄) weighs under 0.1 %
  const lookback = Math.ceil(10 * halfLifeMinutes)
  // Each estimate starts from the guess at a fixed minute, the start of the block of `lookback`
  // minutes before its own (so 1–2 lookbacks back), never at whatever minute this process happened to
  // ask first: the estimate, and so the quotes, are a function of the minute alone, the same in a
  // tape writer that walked every minute and in an engine asked cold after a restart (signals.md §3:
  // any instant in any order; a seed fixes everything). Within a block the recursion from the
  // previous minute performs the very operations of the loop, so a memo changes no bit.
  const startOf = (k: number): number => (Math.floor(k / lookback) - 1) * lookback
  const memo = new Map<number, number>()
  const squared = (j: number): number => {
    const r = (index.logAtMinute(j + 1) - index.logAtMinute(j)) / (sigmaBar * index.seasonal(j))
    return r * r
  }
  const varianceBefore = (k: number): number => {
    const hit = memo.get(k)
    if (hit !== undefined) return hit
    const start = startOf(k)
    const previous = startOf(k - 1) === start ? memo.get(k - 1) : undefined
    let v: number
    if (previous !== undefined) v = keep * previous + (1 - keep) * squared(k - 1)
    else {
      v = 1
      for (let j = start; j < k; j++) v = keep * v + (1 - keep) * squared(j)
    }
    if (memo.size >= CACHED) memo.delete(memo.keys().next().value as number)
    memo.set(k, v)
    return v
  }
  return { levelBefore: (k) => Math.sqrt(varianceBefore(k)) }
}
