// What the engine observed of the spot proxy, as the models read it: closes stamped with their
// instants (so a missing minute shows as a gap, never as a shorter return), and the strikes the
// venue set beside the proxy's own mean over the same seconds (a free sample of the basis).

/**
 * The proxy's price at the end of a whole minute: `at` is that minute's end, epoch ms. With the
 * minute's highest and lowest price where the feed saw the minute whole (live prices through it, not
 * only a candle's close): the range is a far sharper measure of the minute's volatility than its
 * return (model v2's volatility level).
 */
export type MinuteClose = { at: number; priceDollars: number; highDollars?: number; lowDollars?: number }

/**
 * Fewer live prices inside a minute than this give it no range: a source that sent a handful (or a
 * tape built from one-minute history, one a minute) would show a range too narrow for the minute.
 * One every five seconds on average; the sandbox's sources send one a second, live exchanges more.
 */
export const MIN_PRICES_FOR_RANGE = 12

/**
 * A strike (the index's mean over the minute before a contest's open) beside the proxy's mean over
 * the same minute, as the engine saw it.
 */
export type BasisSample = { opensAt: number; strikeDollars: number; proxyMeanDollars: number }

/**
 * The proxy's mean over the span [from, to) from its minute closes: the mean of the closes stamped
 * from `from` to `to`, both ends included (the price as the span opens, at each minute's end inside
 * it, and as it ends). For the one-minute span of a strike that is the average of the minute's two
 * ends — the expected mean of a path given its ends (a Brownian bridge's mean is the average of its
 * ends), off by σ²/12 of a minute's variance, where the end alone would be off by σ²/3. Every feed
 * means the same thing by it, since every feed has closes (decisions §12: a replay must see what live
 * saw). Null when either end is missing: a sample from one end is not the same estimate.
 */
export function spanMeanOfCloses(closes: readonly MinuteClose[], from: number, to: number): number | null {
  let sum = 0
  let n = 0
  let start = false
  let end = false
  for (const c of closes) {
    if (c.at < from || c.at > to || !(c.priceDollars > 0)) continue
    if (c.at === from) start = true
    if (c.at === to) end = true
    sum += c.priceDollars
    n++
  }
  return start && end ? sum / n : null
}
