// Kalshi's market book as its tapes fill it (decisions §12): recorded market bodies through the live
// adapter's book, recorded order books through its ask derivation, recorded exchange-status bodies
// through its status parsing. The one tape venue (feeds/tape/tape-venue.ts) plays it.

import type { Logger } from '../../ports/logger.ts'
import { NO_ANSWER } from '../../ports/venue.ts'
import type { RecordedVenue } from '../venue-http/market-view.ts'
import { recordedBookWarnings } from '../venue-http/recorded-book-warnings.ts'
import { parseExchangeStatus } from './exchange-status.ts'
import { createMarketBook, kalshiMarketView } from './market-book.ts'
import { asksFromOrderbook } from './orderbook.ts'

/**
 * The Market object of a recorded body. Decisions §12 asks for the Market object; a writer taking
 * "exactly as its REST API returned it" literally records GET /markets/{ticker}'s whole answer,
 * `{"market": {…}}`, which no Market object looks like (a Market has no `market` field).
 */
function marketObjectOf(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw
  const keys = Object.keys(raw)
  const inner = (raw as { market?: unknown }).market
  return keys.length === 1 && keys[0] === 'market' && typeof inner === 'object' && inner !== null
    ? inner
    : raw
}

export function recordedKalshi(series: readonly string[], logger: Logger): RecordedVenue {
  const book = createMarketBook({ series, logger })
  const rejectedBook = recordedBookWarnings(logger, 'kalshi')
  const prefixes = series.map((s) => `${s}-`)
  const ofReplayedSeries = (raw: unknown): boolean => {
    const ticker = (raw as { ticker?: unknown } | null)?.ticker
    // bodies without a usable ticker go to the book, which warns about them as live does
    return typeof ticker !== 'string' || prefixes.some((p) => ticker.startsWith(p))
  }
  return {
    name: 'kalshi',
    view: kalshiMarketView(book),
    take(recorded, t) {
      const raw = marketObjectOf(recorded)
      if (!ofReplayedSeries(raw)) return null
      const market = book.ingest(raw, null, t)
      return (
        market && {
          ticker: market.ticker,
          opensAt: market.openTime,
          closesAt: market.closeTime,
          shown: market,
        }
      )
    },
    prune: (t, maxAgeMs) => book.prune(t, maxAgeMs),
    known: (ticker) => book.get(ticker) !== undefined,
    // the market's one order book: both sides' asks
    bookTokens: () => [undefined],
    quoteOf(ticker, [body]) {
      const asks = asksFromOrderbook(body)
      if (!asks.ok) {
        rejectedBook({ ticker, field: asks.field })
        return NO_ANSWER
      }
      const { upAskCents, downAskCents } = asks.value
      return upAskCents === null && downAskCents === null ? null : asks.value
    },
    exchangePaused(body) {
      const status = parseExchangeStatus(body)
      return status.ok ? !status.value.tradingActive : null
    },
  }
}
