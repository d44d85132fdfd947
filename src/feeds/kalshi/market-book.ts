// The adapter's cache of the venue's markets, filled by the poller and read by every port call. A
// payload that fails validation is warned about once and never replaces a good view of its ticker.
import type { Logger } from '../../ports/logger.ts'
import type { VenueMarket } from '../../ports/venue.ts'
import type { BoundaryWatch } from '../venue-http/boundary-polls.ts'
import type { MarketView } from '../venue-http/market-view.ts'
import { type KalshiMarket, parseMarket } from './market.ts'
import { isKnownStatus, phaseForStatus } from './market-status.ts'
import { settlementOf } from './settlement.ts'

export type BookEntry = { market: KalshiMarket; series: string; seenAt: number }

export type MarketBook = {
  /**
   * Validates one raw market and stores it under `series` (or, when null, the series it was filed
   * under before, else the configured series its ticker starts with). Returns the stored market,
   * or null when the payload was malformed or belongs to no configured series. `endpoint` names where
   * the payload came from, for the count of rejected bodies. A settled view is never replaced by one
   * that is not (a listing page fetched before a faster source said so).
   */
  ingest(raw: unknown, series: string | null, now: number, endpoint?: string): KalshiMarket | null
  /** Applies a change the venue announced (its WebSocket) to a market already in the book. */
  patch(ticker: string, change: Partial<KalshiMarket>, now: number): KalshiMarket | null
  get(ticker: string): BookEntry | undefined
  /** The trading or paused market of `series` whose window contains `at`. */
  liveIn(series: string, at: number): BookEntry | null
  /** The market of `series` whose window opened at `opensAt`, in any phase (the latest opened if two). */
  openedAt(series: string, opensAt: number): BookEntry | null
  entries(): IterableIterator<BookEntry>
  /** Forgets markets the venue has not shown for `maxAgeMs`. */
  prune(now: number, maxAgeMs: number): void
}

export function toVenueMarket(entry: BookEntry): VenueMarket {
  const { market } = entry
  return {
    ticker: market.ticker,
    series: entry.series,
    opensAt: market.openTime,
    expiresAt: market.closeTime,
    strikePriceDollars: market.floorStrike,
    phase: phaseForStatus(market.status),
    venue: { name: 'kalshi', refs: { marketTicker: market.ticker, eventTicker: market.eventTicker } },
  }
}

const WARNED_MAX = 10_000

/**
 * The configured series a ticker belongs to, or null. Kalshi's Market object carries no
 * series_ticker; tickers are opaque in general, but each starts with its series and a dash. The
 * longest series is tried first, so one that prefixes another (KXBTC, KXBTC15M) never claims its markets.
 */
export function seriesOfTicker(series: readonly string[], ticker: string): string | null {
  let found: string | null = null
  for (const s of series)
    if (ticker.startsWith(`${s}-`) && (found === null || s.length > found.length)) found = s
  return found
}

export function createMarketBook(opts: {
  series: readonly string[]
  logger: Logger
  /** told of every payload rejected, with the field that was wrong */
  onRejected?: (endpoint: string, field: string) => void
}): MarketBook {
  const byTicker = new Map<string, BookEntry>()
  const warned = new Set<string>()

  const warnOnce = (ticker: string | null, field: string, message: string): void => {
    const key = `${ticker ?? ''}\u0000${field}`
    if (warned.has(key)) return
    if (warned.size >= WARNED_MAX) warned.clear()
    warned.add(key)
    opts.logger.warn({ venue: 'kalshi', ticker, field }, message)
  }

  return {
    ingest(raw, series, now, endpoint = 'markets') {
      const parsed = parseMarket(raw)
      if (!parsed.ok) {
        opts.onRejected?.(endpoint, parsed.field)
        warnOnce(parsed.ticker, parsed.field, 'kalshi market malformed; skipped')
        return null
      }
      const { market } = parsed
      const known = byTicker.get(market.ticker)
      // the ticker's prefix is only used for markets no listing of a series returned
      const filed = series ?? known?.series ?? seriesOfTicker(opts.series, market.ticker)
      if (filed === null) {
        warnOnce(market.ticker, 'series', 'kalshi market of no configured series; skipped')
        return null
      }
      if (!isKnownStatus(market.status))
        warnOnce(
          market.ticker,
          `status:${market.status}`,
          'kalshi market in a status this adapter does not know; not trading it',
        )
      if (known && settlementOf(known.market) !== null && settlementOf(market) === null) {
        known.seenAt = now
        return known.market
      }
      byTicker.set(market.ticker, { market, series: filed, seenAt: now })
      return market
    },
    patch(ticker, change, now) {
      const entry = byTicker.get(ticker)
      if (!entry) return null
      if (settlementOf(entry.market) !== null) return entry.market
      entry.market = { ...entry.market, ...change }
      entry.seenAt = now
      return entry.market
    },
    get: (ticker) => byTicker.get(ticker),
    liveIn(series, at) {
      let found: BookEntry | null = null
      for (const entry of byTicker.values()) {
        const { market } = entry
        if (entry.series !== series || at < market.openTime || at >= market.closeTime) continue
        const phase = phaseForStatus(market.status)
        if (phase !== 'trading' && phase !== 'paused') continue
        // windows should never overlap; if the venue ever shows two, the later-opened one is current
        if (!found || market.openTime > found.market.openTime) found = entry
      }
      return found
    },
    openedAt(series, opensAt) {
      for (const entry of byTicker.values())
        if (entry.series === series && entry.market.openTime === opensAt) return entry
      return null
    },
    entries: () => byTicker.values(),
    prune(now, maxAgeMs) {
      for (const [ticker, entry] of byTicker) if (now - entry.seenAt > maxAgeMs) byTicker.delete(ticker)
    },
  }
}

/** The book as the Venue port reads it: the same for the live adapter and a tape of it. */
export function kalshiMarketView(book: MarketBook): MarketView {
  return {
    marketAt(series, at) {
      const entry = book.liveIn(series, at)
      return entry ? toVenueMarket(entry) : null
    },
    marketOpenedAt(series, opensAt) {
      const entry = book.openedAt(series, opensAt)
      return entry ? toVenueMarket(entry) : null
    },
    market(ticker) {
      const entry = book.get(ticker)
      return entry ? toVenueMarket(entry) : null
    },
    result(ticker) {
      const entry = book.get(ticker)
      return entry ? settlementOf(entry.market) : null
    },
    // quotes after the close are stale, then an empty book (venue facts §2.6): never use one
    quotable(ticker, now) {
      const entry = book.get(ticker)
      return !!entry && phaseForStatus(entry.market.status) === 'trading' && now < entry.market.closeTime
    },
  }
}

/**
 * The book's boundaries for the poll loop (venue-http/boundary-polls.ts): the open and close times
 * of the markets it holds; a market lags while its window has begun and the venue still shows it
 * `initialized` (the venue opens it by its status, never by the clock: decisions §8).
 */
export function kalshiBoundaries(book: MarketBook): BoundaryWatch {
  return {
    nextBoundary(after) {
      let next: number | null = null
      for (const { market } of book.entries())
        for (const t of [market.openTime, market.closeTime])
          if (t > after && (next === null || t < next)) next = t
      return next
    },
    lagging(now) {
      for (const { market } of book.entries())
        if (phaseForStatus(market.status) === 'upcoming' && market.openTime <= now && now < market.closeTime)
          return true
      return false
    },
  }
}
