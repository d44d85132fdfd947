// The adapter's cache of the venue's markets, filled by the poller and read by every port call. A
// payload that fails validation is warned about once and never replaces a good view of its ticker.
import type { Logger } from '../../ports/logger.ts'
import type { VenueMarket } from '../../ports/venue.ts'
import { type KalshiMarket, parseMarket } from './market.ts'
import { phaseForStatus } from './market-status.ts'

export type BookEntry = { market: KalshiMarket; series: string; seenAt: number }

export type MarketBook = {
  /**
   * Validates one raw market and stores it under `series` (or, when null, the series it was filed
   * under before, else the configured series its ticker starts with). Returns the stored market,
   * or null when the payload was malformed or belongs to no configured series.
   */
  ingest(raw: unknown, series: string | null, now: number): KalshiMarket | null
  get(ticker: string): BookEntry | undefined
  /** The trading or paused market of `series` whose window contains `at`. */
  liveIn(series: string, at: number): BookEntry | null
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
  }
}

const WARNED_MAX = 10_000

export function createMarketBook(opts: { series: readonly string[]; logger: Logger }): MarketBook {
  const byTicker = new Map<string, BookEntry>()
  const warned = new Set<string>()
  // longest first, so a series that prefixes another (KXBTC, KXBTC15M) never claims its markets
  const configured = [...opts.series].sort((a, b) => b.length - a.length)

  // Kalshi's Market object carries no series_ticker. Tickers are opaque in general, but each starts
  // with its series and a dash; that is only used for markets no listing of a series returned.
  const seriesOfTicker = (ticker: string): string | null =>
    configured.find((s) => ticker.startsWith(`${s}-`)) ?? null

  const warnOnce = (ticker: string | null, field: string, message: string): void => {
    const key = `${ticker ?? ''}\u0000${field}`
    if (warned.has(key)) return
    if (warned.size >= WARNED_MAX) warned.clear()
    warned.add(key)
    opts.logger.warn({ venue: 'kalshi', ticker, field }, message)
  }

  return {
    ingest(raw, series, now) {
      const parsed = parseMarket(raw)
      if (!parsed.ok) {
        warnOnce(parsed.ticker, parsed.field, 'kalshi market malformed; skipped')
        return null
      }
      const { market } = parsed
      const filed = series ?? byTicker.get(market.ticker)?.series ?? seriesOfTicker(market.ticker)
      if (filed === null) {
        warnOnce(market.ticker, 'series', 'kalshi market of no configured series; skipped')
        return null
      }
      byTicker.set(market.ticker, { market, series: filed, seenAt: now })
      return market
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
    entries: () => byTicker.values(),
    prune(now, maxAgeMs) {
      for (const [ticker, entry] of byTicker) if (now - entry.seenAt > maxAgeMs) byTicker.delete(ticker)
    },
  }
}
