// One filtered `GET /markets` listing followed through every page (reference §1.4). Returns the raw
// market objects: validating them one by one is the caller's job, so one bad market spoils nothing.
import type { Logger } from '../../ports/logger.ts'
import type { KalshiClient } from './kalshi-client.ts'

/** The listing filters the poller uses (filter words, not status field values: reference §1.6). */
export type ListingFilter = 'open' | 'unopened' | 'closed'

export type Listing = { ok: true; markets: unknown[] } | { ok: false; status: string; message: string }

/** Markets per page: a day of 15-minute windows (~96 unopened) fits in one. */
export const LISTING_PAGE_LIMIT = 200
/** Far more pages than any series needs; only a venue bug could reach it. */
const MAX_PAGES = 50

export async function listMarkets(
  client: KalshiClient,
  logger: Logger,
  series: string,
  status: ListingFilter,
  signal?: AbortSignal,
): Promise<Listing> {
  const markets: unknown[] = []
  const cursorsSeen = new Set<string>()
  let cursor = ''
  for (let page = 0; page < MAX_PAGES; page++) {
    const query: Record<string, string> = { series_ticker: series, status, limit: String(LISTING_PAGE_LIMIT) }
    if (cursor !== '') query.cursor = cursor
    const reply = await client.get('markets', '/markets', query, { signal })
    if (!reply.ok) return { ok: false, status: reply.status, message: reply.message }
    const body = reply.body as Record<string, unknown> | null
    const pageMarkets = typeof body === 'object' && body !== null ? body.markets : undefined
    if (!Array.isArray(pageMarkets))
      return { ok: false, status: 'malformed', message: 'markets is not an array' }
    markets.push(...pageMarkets)
    const next = body?.cursor
    // the docs say null ends the data, real responses send "" (reference §5.8); an empty page ends it too
    if (typeof next !== 'string' || next === '' || pageMarkets.length === 0) return { ok: true, markets }
    if (cursorsSeen.has(next)) {
      logger.warn({ series, status, cursor: next }, 'kalshi listing cursor repeated; stopping there')
      return { ok: true, markets }
    }
    cursorsSeen.add(next)
    cursor = next
  }
  logger.warn({ series, status, pages: MAX_PAGES }, 'kalshi listing too long; stopping there')
  return { ok: true, markets }
}
