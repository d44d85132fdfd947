// A venue's pure market book as the Venue port reads it (decisions §12): the one mapping from what
// the venue said to the port's markets, results and quotability, shared by the venue's live adapter
// (venue-http/polled-venue.ts) and its tape (tape/tape-venue.ts), so a replay reads a tape exactly
// as live read the venue. No I/O: what fills the book is the caller's business.
import type { Settlement } from '../../domain/contest.ts'
import type { QuoteAnswer, VenueMarket } from '../../ports/venue.ts'

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

/** A recorded `st: 404` book: the venue answered that the token has no book (decisions §12). */
export const NO_BOOK: unique symbol = Symbol('no book')

/**
 * A venue's market book as its tapes fill it (decisions §12): the recorded bodies go through the
 * same validation, merging and mapping as live, and the recorded books through the same ask
 * derivation. One per venue kind, given to the one tape venue (tape/tape-venue.ts) by the registry.
 */
export type RecordedVenue = {
  readonly name: string
  readonly view: MarketView
  /**
   * One recorded market body, at `t`: the market as the book now shows it (its ticker and window,
   * and the whole view, for telling a change from a poll that changed nothing), else null (another
   * series, or a body the live adapter could not read either).
   */
  take(raw: unknown, t: number): { ticker: string; opensAt: number; closesAt: number; shown: unknown } | null
  /** Forgets markets no body has shown for `maxAgeMs`, as the live adapter does. */
  prune(t: number, maxAgeMs: number): void
  known(ticker: string): boolean
  /** The books one quote of `ticker` asks, by token (undefined: the market's one book). */
  bookTokens(ticker: string): readonly (string | undefined)[]
  /**
   * The token a recorded book body names itself (Polymarket's `/book` echoes `asset_id`), for a book
   * record without `token`: decisions §12 lists only `ticker` and `ob`, so another writer's tape
   * may leave it out. Absent: the venue keeps one book per market.
   */
  tokenOfBook?(body: unknown): string | undefined
  /**
   * The quote the books make, in bookTokens' order (NO_BOOK for a recorded "no book"); NO_ANSWER
   * (warned) when one does not parse.
   */
  quoteOf(ticker: string, bodies: readonly unknown[]): QuoteAnswer
  /** An exchange-status body: whether trading is paused, null when unreadable; absent: none recorded. */
  exchangePaused?(body: unknown): boolean | null
}
