// Polymarket's market book as its tapes fill it (decisions §12, §14): each recorded Gamma event body
// through the live adapter's own book (market-book.ts: validation, merging, results, the inherited
// strike), each recorded CLOB `/book` body through clob-book.ts. The one tape venue
// (feeds/tape/tape-venue.ts) plays it; Polymarket has no exchange-wide status (no weekly pause).

import type { Logger } from '../../ports/logger.ts'
import { NO_ANSWER } from '../../ports/venue.ts'
import { NO_BOOK, type RecordedVenue } from '../venue-http/market-view.ts'
import { recordedBookWarnings } from '../venue-http/recorded-book-warnings.ts'
import { bookTop, echoedTokenId } from './clob-book.ts'
import type { OutcomeLabel } from './gamma-event.ts'
import { createPolymarketBook } from './market-book.ts'

const SIDES: readonly OutcomeLabel[] = ['up', 'down']

export function recordedPolymarket(series: readonly string[], logger: Logger): RecordedVenue {
  const book = createPolymarketBook({ logger })
  const rejectedBook = recordedBookWarnings(logger, 'polymarket')
  const prefixes = series.map((s) => `${s}-`)
  const askOf = (ticker: string, side: OutcomeLabel, body: unknown): number | null | undefined => {
    // the CLOB's 404: that side has no book, so no ask, as live read it
    if (body === NO_BOOK) return null
    const token = book.get(ticker)?.market.tokenIds[side]
    const top = bookTop(body, token)
    if (top.ok) return top.value.bestAskCents
    rejectedBook({ ticker, side, field: top.field })
    return undefined
  }
  return {
    name: 'polymarket',
    view: book.view(series),
    take(raw, t) {
      const slug = (raw as { slug?: unknown } | null)?.slug
      if (typeof slug === 'string' && !prefixes.some((p) => slug.startsWith(p))) return null
      const market = book.ingest(raw, t)
      return (
        market && { ticker: market.slug, opensAt: market.opensAt, closesAt: market.expiresAt, shown: market }
      )
    },
    prune: (t, maxAgeMs) => book.prune(t, maxAgeMs),
    known: (ticker) => book.get(ticker) !== undefined,
    // each side's own token book, asked together as live asks them
    bookTokens: (ticker) => {
      const market = book.get(ticker)?.market
      return market ? SIDES.map((side) => market.tokenIds[side]) : []
    },
    tokenOfBook: echoedTokenId,
    quoteOf(ticker, bodies) {
      const up = askOf(ticker, 'up', bodies[0])
      const down = askOf(ticker, 'down', bodies[1])
      // an unreadable side is a book not had, as live: no one-sided quote from the other
      if (up === undefined || down === undefined) return NO_ANSWER
      if (up === null && down === null) return null
      return { upAskCents: up, downAskCents: down }
    },
  }
}
