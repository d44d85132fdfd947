// One book request per market per interval: the engine asks for a quote on every tick, and every
// reading in an interval shares the answer (settled or still in flight) of the first request. The
// cache holds at most QUOTES_KEPT markets; past that, entries older than the interval are dropped.
import type { QuoteAnswer } from '../../ports/venue.ts'

const QUOTES_KEPT = 100

export type QuoteThrottle = {
  /** the quote fetched for `ticker` within `minIntervalMs` of `now`, else `fetch()`'s, remembered */
  get(ticker: string, now: number, fetch: () => Promise<QuoteAnswer>): Promise<QuoteAnswer>
}

export function createQuoteThrottle(minIntervalMs: number): QuoteThrottle {
  const quotes = new Map<string, { fetchedAt: number; quote: Promise<QuoteAnswer> }>()
  return {
    get(ticker, now, fetch) {
      const cached = quotes.get(ticker)
      if (cached && now - cached.fetchedAt < minIntervalMs) return cached.quote
      if (quotes.size >= QUOTES_KEPT) {
        for (const [t, q] of quotes) if (now - q.fetchedAt >= minIntervalMs) quotes.delete(t)
      }
      const quote = fetch()
      quotes.set(ticker, { fetchedAt: now, quote })
      return quote
    },
  }
}
