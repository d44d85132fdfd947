// What the engine observed of the spot proxy, as the models read it: closes stamped with their
// instants (so a missing minute shows as a gap, never as a shorter return), and the strikes the
// venue set beside the proxy's own mean over the same seconds (a free sample of the basis).

/** The proxy's price at the end of a whole minute: `at` is that minute's end, epoch ms. */
export type MinuteClose = { at: number; priceDollars: number }

/**
 * A strike (the index's mean over the minute before a contest's open) beside the proxy's mean over
 * the same minute, as the engine saw it.
 */
export type BasisSample = { opensAt: number; strikeDollars: number; proxyMeanDollars: number }
