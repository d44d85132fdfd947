// A venue as a tape shows it (decisions §12), one for every venue kind: recorded market bodies go
// through the venue's own market book (the same validation, merging and mapping as live, given by
// the registry as a RecordedVenue), recorded order books through its ask derivation, and results
// through its settlement mapping. Only the source of the bodies differs: the tape instead of HTTP.
// A quote asks the market's books at the instant of the request; the first book record of that
// ticker (and token) in [t, t + 5 s] answers each.
import type { Settlement } from '../../domain/contest.ts'
import type { Logger } from '../../ports/logger.ts'
import {
  NO_ANSWER,
  observedAt,
  type QuoteAnswer,
  type SourceStatus,
  type Venue,
  type VenueMarket,
} from '../../ports/venue.ts'
import type { BookRecord, TapeRecord } from '../../tape/tape-format.ts'
import type { RecordPlace } from '../../tape/tape-reader.ts'
import { NO_BOOK, type RecordedVenue } from '../venue-http/market-view.ts'
import { placedLogger } from './placed-logger.ts'
import { createReadingWindows } from './reading-windows.ts'
import type { ReplayClock } from './replay-clock.ts'
import { BOOK_WINDOW_MS, type TapePlayer } from './tape-player.ts'

/** A market last recorded this long ago is forgotten, as the live adapter forgets one it has not seen. */
const FORGET_AFTER_MS = 24 * 3_600_000

export type TapeVenue = Venue & {
  /** Takes a market or exchange record; true when it changed what the engine sees. */
  take(record: TapeRecord): boolean
  /** The exchange-status body last recorded, null before the first. */
  exchangeStatus(): unknown
  /**
   * The first instant after `t` at which a known market's window reaches a whole minute (a reading)
   * or its close: windows count their minutes from their own open, wherever the venue puts it.
   */
  nextBoundaryAfter(t: number): number
}

export type TapeVenueOptions = {
  series: readonly string[]
  clock: ReplayClock
  logger: Logger
  /** set once the player exists (the player feeds this venue, and this venue asks it for books) */
  player: () => TapePlayer
  /** where a record is on the tape: a warning about its body names it */
  placeOf?: (record: TapeRecord) => RecordPlace | null
}

/** The tape venue on the recorded venue `recordedOf` makes, whose warnings name the record's place. */
export function createTapeVenue(
  opts: TapeVenueOptions,
  recordedOf: (logger: Logger) => RecordedVenue,
): TapeVenue {
  const { clock } = opts
  const placed = placedLogger(opts.logger)
  const placeOf = (record: TapeRecord): RecordPlace | null => opts.placeOf?.(record) ?? null
  const recorded = recordedOf(placed.logger)
  const { name, view } = recorded
  // the view per ticker, to tell a change the engine acts on from a poll that changed nothing
  const seen = new Map<string, string>()
  // windows not yet closed, for the replay's tick instants
  const windows = createReadingWindows()
  let exchange: unknown = null
  // the recorded status holds until the next record: a recording writes it again only when it changes
  let paused = false
  let prunedAt = Number.NEGATIVE_INFINITY
  let exchangeKey = ''

  // a record names its token, or (another writer's tape, decisions §12) its body does
  const ofToken = (token: string | undefined) =>
    token === undefined
      ? undefined
      : (book: BookRecord): boolean => (book.token ?? recorded.tokenOfBook?.(book.ob)) === token

  function takeMarket(record: TapeRecord & { k: 'market' }): boolean {
    const market = placed.at([placeOf(record)], () => recorded.take(record.m, record.t))
    if (!market) return false
    const key = JSON.stringify(market.shown)
    if (seen.get(market.ticker) === key) return false
    seen.set(market.ticker, key)
    windows.set(market.ticker, market.opensAt, market.closesAt)
    return true
  }

  function takeExchange(body: unknown): boolean {
    if (!recorded.exchangePaused) return false
    exchange = body
    // a body the live adapter could not read changes nothing there either
    paused = recorded.exchangePaused(body) ?? paused
    const key = JSON.stringify(body)
    if (key === exchangeKey) return false
    exchangeKey = key
    return true
  }

  return {
    name,
    supportsHistory: false,
    take(record) {
      if (record.k === 'market') return takeMarket(record)
      if (record.k === 'exchange') return takeExchange(record.status)
      return false
    },
    exchangeStatus: () => exchange,
    // as live: while the recorded exchange says trading is paused, no reading is raised (`paused`)
    tradingPaused: () => paused,
    nextBoundaryAfter(t) {
      if (t - prunedAt >= FORGET_AFTER_MS / 24) {
        // as live, a market not shown for a day is forgotten: a month's replay holds only recent ones
        prunedAt = t
        recorded.prune(t, FORGET_AFTER_MS)
        for (const ticker of seen.keys()) if (!recorded.known(ticker)) seen.delete(ticker)
      }
      return windows.nextBoundaryAfter(t)
    },
    async marketAt(series: string, at: number): Promise<VenueMarket | null> {
      return view.marketAt(series, at)
    },
    // earlier windows feed the model's basis (their strikes against the proxy at their opens), as live
    async marketOpenedAt(series: string, opensAt: number): Promise<VenueMarket | null> {
      return view.marketOpenedAt(series, opensAt, clock.now())
    },
    async market(ticker: string, at: number): Promise<VenueMarket | null> {
      return view.market(ticker, at)
    },
    async result(ticker: string): Promise<Settlement | null> {
      return view.result(ticker, clock.now())
    },
    async quote(ticker: string): Promise<QuoteAnswer> {
      const now = clock.now()
      // as live: never a quote of a market that is not trading, or after its close
      if (!view.quotable(ticker, now)) return null
      // the requests are made now, as live, whatever instant the reading is for, and together
      const books: (BookRecord | null)[] = []
      for (const token of recorded.bookTokens(ticker))
        books.push(await opts.player().bookBetween(ticker, now, now + BOOK_WINDOW_MS, ofToken(token)))
      // a book not within the window: the request failed like a timeout
      if (books.some((b) => b === null)) return NO_ANSWER
      // the books came when they were recorded: the reading is made then, not at the request
      const cameAt = Math.max(...books.map((b) => b!.t))
      clock.advanceTo(cameAt)
      const quote = placed.at(
        books.map((b) => placeOf(b!)),
        () =>
          recorded.quoteOf(
            ticker,
            books.map((b) => (b!.st === 404 ? NO_BOOK : b!.ob)),
          ),
      )
      return observedAt(quote, cameAt)
    },
    status(): SourceStatus {
      return { name, state: 'ok', lastOkAt: clock.now() }
    },
    statuses(): readonly SourceStatus[] {
      return [{ name, state: 'ok', lastOkAt: clock.now() }]
    },
    start: async () => {},
    close: async () => {},
  }
}
