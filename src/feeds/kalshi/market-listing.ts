// One `GET /markets` close-window listing of a series followed through every page (venue facts §1.4,
// §1.14). Returns the raw market objects: validating them one by one is the caller's job, so one bad
// market spoils nothing. A listing the venue cuts short says why, and the caller logs it: a poller
// meets the same cut at every poll.
import type { KalshiClient } from './kalshi-client.ts'

/** Why a listing stopped before the venue said it ended (a venue bug), with what shows it. */
export type CutShort = { reason: string } & Record<string, unknown>

export type Listing =
  | { ok: true; markets: unknown[]; cutShort: CutShort | null }
  | { ok: false; status: string; message: string }

/**
 * The close window around `now` (venue facts §1.14): markets closing from 15 minutes ago (the one just
 * closed, for its result) to 30 minutes ahead (the live one and the next): three or four markets a
 * call, where the `unopened` listing moved ~96 (about 190 KB) to learn one.
 */
export const CLOSE_WINDOW_BEFORE_S = 900
export const CLOSE_WINDOW_AFTER_S = 1_800

export function closeWindowQuery(series: string, now: number): Record<string, string> {
  const nowS = Math.floor(now / 1000)
  return {
    series_ticker: series,
    min_close_ts: String(nowS - CLOSE_WINDOW_BEFORE_S),
    max_close_ts: String(nowS + CLOSE_WINDOW_AFTER_S),
    limit: String(LISTING_PAGE_LIMIT),
  }
}

/** Markets per page: far more than a close window holds, so one page is the rule. */
export const LISTING_PAGE_LIMIT = 100
/** Far more pages than any series needs; only a venue bug could reach it. */
const MAX_PAGES = 50

export async function listMarkets(
  client: KalshiClient,
  filter: Record<string, string>,
  signal?: AbortSignal,
): Promise<Listing> {
  const markets: unknown[] = []
  const cursorsSeen = new Set<string>()
  let cursor = ''
  for (let page = 0; page < MAX_PAGES; page++) {
    const query: Record<string, string> = { ...filter }
    if (cursor !== '') query.cursor = cursor
    const reply = await client.get('markets', '/markets', query, { signal })
    if (!reply.ok) return { ok: false, status: reply.status, message: reply.message }
    const body = reply.body as Record<string, unknown> | null
    const pageMarkets = typeof body === 'object' && body !== null ? body.markets : undefined
    if (!Array.isArray(pageMarkets))
      return { ok: false, status: 'malformed', message: 'markets is not an array' }
    markets.push(...pageMarkets)
    const next = body?.cursor
    // the docs say null ends the data, real responses send "" (venue facts §1.4); an empty page ends it too
    if (typeof next !== 'string' || next === '' || pageMarkets.length === 0)
      return { ok: true, markets, cutShort: null }
    if (cursorsSeen.has(next))
      return {
        ok: true,
        markets,
        cutShort: { reason: 'the venue handed back a cursor it gave before', cursor: next },
      }
    cursorsSeen.add(next)
    cursor = next
  }
  return { ok: true, markets, cutShort: { reason: `more than ${MAX_PAGES} pages`, pages: MAX_PAGES } }
}
