// A venue's pure market book as the Venue port reads it (decisions §12): the one mapping from what
// the venue said to the port's markets, results and quotability, shared by the venue's live adapter
// (venue-http/polled-venue.ts) and its tape (tape/tape-venue.ts), so a replay reads a tape exactly
// as live read the venue. No I/O: what fills the book is the caller's business.
import type { Settlement } from '../../domain/contest.ts'
import type { VenueMarket } from '../../ports/venue.ts'

export type MarketView = {
  /** The trading or paused market of `series` whose window contains `at`. */
  marketAt(series: string, at: number): VenueMarket | null
  /** The market of `series` whose window opened at `opensAt`, in any phase, as seen at `now`. */
  marketOpenedAt(series: string, opensAt: number, now: number): VenueMarket | null
  market(ticker: string, now: number): VenueMarket | null
  /** The result once the venue gave it (and, where it publishes prices after, they are in). */
  result(ticker: string, now: number): Settlement | null
  /** True while the market trades at `now` (before its close): only then may a quote be asked. */
  quotable(ticker: string, now: number): boolean
}
