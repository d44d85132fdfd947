// The Kalshi venue as a tape shows it (decisions §12): recorded market bodies go through the real
// adapter's market book (the same validation, series filing and mapping as live), recorded order
// books through its ask derivation, and results through its settlement mapping. Only the source of
// the bodies differs: the tape instead of HTTP.
import type { Settlement } from '../../domain/contest.ts'
import type { Logger } from '../../ports/logger.ts'
import type { SourceStatus, Venue, VenueMarket, VenueQuote } from '../../ports/venue.ts'
import type { TapeRecord } from '../../tape/tape-format.ts'
import { parseExchangeStatus } from '../kalshi/exchange-status.ts'
import { createMarketBook, toVenueMarket } from '../kalshi/market-book.ts'
import { phaseForStatus } from '../kalshi/market-status.ts'
import { asksFromOrderbook } from '../kalshi/orderbook.ts'
import { settlementOf } from '../kalshi/settlement.ts'
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
}

export function createTapeVenue(opts: TapeVenueOptions): TapeVenue {
  const { clock, logger } = opts
  const book = createMarketBook({ series: opts.series, logger })
  const prefixes = opts.series.map((s) => `${s}-`)
  // the parsed view per ticker, to tell a change the engine acts on from a poll that changed nothing
  const seen = new Map<string, string>()
  // windows not yet closed, for the replay's tick instants
  const windows = createReadingWindows()
  let exchange: unknown = null
  // the recorded status holds until the next record: a recording writes it again only when it changes
  let paused = false
  let prunedAt = Number.NEGATIVE_INFINITY
  let exchangeKey = ''

  const ofReplayedSeries = (raw: unknown): boolean => {
    const ticker = (raw as { ticker?: unknown } | null)?.ticker
    // bodies without a usable ticker go to the book, which warns about them as live does
    return typeof ticker !== 'string' || prefixes.some((p) => ticker.startsWith(p))
  }

  return {
    name: 'kalshi',
    supportsHistory: false,
    take(record) {
      if (record.k === 'market') {
        if (!ofReplayedSeries(record.m)) return false
        const market = book.ingest(record.m, null, record.t)
        if (!market) return false
        const key = JSON.stringify(market)
        if (seen.get(market.ticker) === key) return false
        seen.set(market.ticker, key)
        windows.set(market.ticker, market.openTime, market.closeTime)
        return true
      }
      if (record.k === 'exchange') {
        exchange = record.status
        const status = parseExchangeStatus(record.status)
        // a body the live adapter could not read changes nothing there either
        if (status.ok) paused = !status.value.tradingActive
        const key = JSON.stringify(record.status)
        if (key === exchangeKey) return false
        exchangeKey = key
        return true
      }
      return false
    },
    exchangeStatus: () => exchange,
    // as live: while the recorded exchange says trading is paused, no reading is raised (`paused`)
    tradingPaused: () => paused,
    nextBoundaryAfter(t) {
      if (t - prunedAt >= FORGET_AFTER_MS / 24) {
        // as live, a market not shown for a day is forgotten: a month's replay holds only recent ones
        prunedAt = t
        book.prune(t, FORGET_AFTER_MS)
        for (const ticker of seen.keys()) if (!book.get(ticker)) seen.delete(ticker)
      }
      return windows.nextBoundaryAfter(t)
    },
    async marketAt(series: string, at: number): Promise<VenueMarket | null> {
      const entry = book.liveIn(series, at)
      return entry ? toVenueMarket(entry) : null
    },
    async marketOpenedAt(series: string, opensAt: number): Promise<VenueMarket | null> {
      const entry = book.openedAt(series, opensAt)
      return entry ? toVenueMarket(entry) : null
    },
    async market(ticker: string): Promise<VenueMarket | null> {
      const entry = book.get(ticker)
      return entry ? toVenueMarket(entry) : null
    },
    async result(ticker: string): Promise<Settlement | null> {
      const entry = book.get(ticker)
      return entry ? settlementOf(entry.market) : null
    },
    async quote(ticker: string): Promise<VenueQuote | null> {
      const entry = book.get(ticker)
      const now = clock.now()
      // as live: never a quote of a market that is not trading, or after its close
      if (!entry || phaseForStatus(entry.market.status) !== 'trading' || now >= entry.market.closeTime)
        return null
      // the request is made now, as live, whatever instant the reading is for
      const recorded = await opts.player().bookBetween(ticker, now, now + BOOK_WINDOW_MS)
      // no book within the window: the request failed like a timeout
      if (!recorded) return null
      clock.advanceTo(recorded.t)
      const asks = asksFromOrderbook(recorded.ob)
      if (!asks.ok) {
        logger.warn({ venue: 'kalshi', ticker, field: asks.field }, 'kalshi order book malformed; skipped')
        return null
      }
      const { upAskCents, downAskCents } = asks.value
      return upAskCents === null && downAskCents === null ? null : asks.value
    },
    status(): SourceStatus {
      return { name: 'kalshi', state: 'ok', lastOkAt: clock.now() }
    },
    start: async () => {},
    close: async () => {},
  }
}
