// What the engine observed of the spot proxy, as the models read it: closes stamped with their
// instants (so a missing minute shows as a gap, never as a shorter return), and the strikes the
// venue set beside the proxy's own mean over the same seconds (a free sample of the basis).

import { MINUTE_MS } from './contest.ts'

/**
 * The proxy's price at the end of a whole minute: `at` is that minute's end, epoch ms. Where the feed
 * saw the minute whole (live prices through it, not only a candle's close), with its highest and
 * lowest price — the range is a far sharper measure of the minute's volatility than its return
 * (model v2's volatility level) — and its mean over the minute's 60 seconds, the very quantity a
 * strike averages, where two closes only guess it.
 */
export type MinuteClose = {
  at: number
  priceDollars: number
  highDollars?: number
  lowDollars?: number
  meanDollars?: number
  seconds?: SecondsOfMinute
}

/**
 * A whole minute's one-second moves as the feed saw them: the log moves from the price in force at
 * each whole second to the next (the open's at second 0), median across the sources of each sum.
 * `squares` measures the minute's own variance far better than its range (sixty moves, not one
 * path's extremes), once a source's own noise is taken out: that noise adds to every squared move
 * and makes consecutive moves cancel, so `crosses` (each move times the one before, summed) is
 * negative by about half of what it adds. `largest` is the largest move with its sign: a jump shows
 * as one move far above the rest.
 */
export type SecondsOfMinute = { squares: number; crosses: number; largest: number }

/**
 * What live prices showed of a whole minute: its highest and lowest price, its mean — the price
 * in force at each of its 60 whole seconds (the last one before the second), averaged, as a venue
 * averages its index's one-second prints for a strike — and its realised variance: the sum of the
 * squared log moves from each whole second's price to the next (the open's at second 0), and the sum
 * of each move times the one before it, which a source's own per-message noise makes negative.
 */
export type WholeMinute = {
  high: number
  low: number
  mean: number
  squares: number
  crosses: number
  /** the largest of those moves in size, with its sign: a jump, where it towers over the rest */
  largest: number
}

/**
 * Fewer live prices inside a minute than this give it no range: a source that sent a handful (or a
 * tape built from one-minute history, one a minute) would show a range too narrow for the minute.
 * One every five seconds on average; the sandbox's sources send one a second, live exchanges more.
 */
export const MIN_PRICES_FOR_RANGE = 12

/**
 * A strike (the index's mean over the minute before a contest's open) beside the proxy's mean over
 * the same minute, as the engine saw it. `fromCloses`: that mean is the minute's two closes' guess
 * (spanMeanOfCloses), off by a twelfth of the minute's variance, not the minute's own mean.
 */
export type BasisSample = {
  opensAt: number
  strikeDollars: number
  proxyMeanDollars: number
  fromCloses?: boolean
}

/**
 * The proxy's mean over the span [from, to) of whole minutes. Where the feed saw every minute of it
 * whole, the mean of their own means (each the price at the minute's 60 seconds: a strike's very
 * quantity). Otherwise from the closes: the mean of those stamped from `from` to `to`, both ends
 * included (the price as the span opens, at each minute's end inside it, and as it ends). For the
 * one-minute span of a strike that is the average of the minute's two ends — the expected mean of a
 * path given its ends (a Brownian bridge's mean is the average of its ends), off by σ²/12 of a
 * minute's variance, where the end alone would be off by σ²/3. Every feed means the same thing by it
 * (decisions §12: a replay must see what live saw). Null when either end is missing: a sample from
 * one end is not the same estimate. `fromMeans` says which of the two it is.
 */
export function spanMeanOfCloses(
  closes: readonly MinuteClose[],
  from: number,
  to: number,
): { dollars: number; fromMeans: boolean } | null {
  let sum = 0
  let n = 0
  let start = false
  let end = false
  let meanSum = 0
  let means = 0
  for (const c of closes) {
    if (c.at < from || c.at > to || !(c.priceDollars > 0)) continue
    if (c.at === from) start = true
    if (c.at === to) end = true
    sum += c.priceDollars
    n++
    const m = c.meanDollars
    if (c.at > from && m !== undefined && m > 0 && Number.isFinite(m)) {
      meanSum += m
      means++
    }
  }
  if (!(start && end)) return null
  const minutes = Math.round((to - from) / MINUTE_MS)
  return means === minutes && minutes > 0
    ? { dollars: meanSum / means, fromMeans: true }
    : { dollars: sum / n, fromMeans: false }
}
