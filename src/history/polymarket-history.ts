// One UTC day of Polymarket's 15-minute BTC windows from public history (history endpoints §3): each
// window's closed Gamma event by slug, and each outcome token's CLOB `prices-history` at fidelity 1.
// The event goes on the tape as the adapter reads live ones (polymarket/recorded-venue.ts): at the
// window's open as it stood open (no result, no published prices), and a minute after its end as
// returned (resolved). `prices-history` is a price path, not a book (its `p` behaves like a midpoint,
// §3.3): at each minute boundary of the window the last point at or before it becomes a one-level
// book with bid = ask = p — no spread, no depth — and a boundary with no point in the previous 90 s
// stays empty. A point stamped after a boundary is never shown at it (§4.2, trap 3).
import { type PolymarketMarket, parseGammaEvent } from '../feeds/polymarket/gamma-event.ts'
import { resolutionOf } from '../feeds/polymarket/gamma-resolution.ts'
import { isRecord } from '../feeds/polymarket/venue-values.ts'
import { WINDOW_MS } from '../feeds/polymarket/window-slug.ts'
import type { BookRecord, TapeRecord } from '../tape/tape-format.ts'
import { HistoryError, type HistoryHost } from './history-http.ts'
import { DAY_MS, type DayRecords, MINUTE_MS, type VenueHistory } from './venue-history.ts'

/** Gamma `/events` allows 500 per 10 s, the CLOB's `prices-history` 1,000 per 10 s (§3.1, §3.3): a fifth of each. */
export const GAMMA_REQUESTS_PER_SEC = 10
export const CLOB_REQUESTS_PER_SEC = 20
/** How stale the last point may be and still stand for the price at a boundary (points come ~60 s apart). */
export const PRICE_POINT_MAX_AGE_MS = 90_000
/** Where the resolved event is placed: its real resolution came a minute to hours after the end. */
export const RESOLVED_AFTER_MS = 60_000
/** The size of the one level a price point becomes: it says only that there was a price, not depth. */
const NOMINAL_SIZE = '1'

type Point = { t: number; p: number }

/** The event as it stood while open: no resolution, no published prices to beat or final price. */
function asOpen(event: Record<string, unknown>): Record<string, unknown> {
  const open: Record<string, unknown> = { ...event, active: true, closed: false }
  for (const field of ['eventMetadata', 'closedTime']) delete open[field]
  if (Array.isArray(event.markets))
    open.markets = event.markets.map((m) => {
      if (!isRecord(m)) return m
      const market: Record<string, unknown> = { ...m, active: true, closed: false, acceptingOrders: true }
      for (const field of ['outcomePrices', 'umaResolutionStatus', 'closedTime']) delete market[field]
      return market
    })
  return open
}

function pointsOf(body: unknown, where: string): Point[] {
  if (!isRecord(body) || !Array.isArray(body.history))
    throw new HistoryError(where, 'unexpected answer: no "history" list')
  return body.history
    .map((pt, i) => {
      if (!isRecord(pt) || typeof pt.t !== 'number' || typeof pt.p !== 'number' || pt.p < 0 || pt.p > 1)
        throw new HistoryError(where, `unexpected answer: history[${i}] is not {t, p}`)
      return { t: pt.t * 1000, p: pt.p }
    })
    .sort((a, b) => a.t - b.t)
}

/** The CLOB `/book` body a price point stands for: one level each side at p (a locked book, no spread). */
function pointBook(token: string, conditionId: string | null, point: Point): unknown {
  const level = [{ price: String(point.p), size: NOMINAL_SIZE }]
  return {
    ...(conditionId ? { market: conditionId } : {}),
    asset_id: token,
    timestamp: String(point.t),
    bids: level,
    asks: level,
    source: 'prices-history',
  }
}

export function createPolymarketHistory(opts: {
  gamma: HistoryHost
  clob: HistoryHost
  /** the slug prefix, e.g. `btc-updown-15m` */
  series: string
}): VenueHistory {
  /** Each token's book at each boundary of the window that has a point standing; `gaps`: boundaries without. */
  const windowBooks = async (market: PolymarketMarket): Promise<{ books: BookRecord[]; gaps: number[] }> => {
    const books: BookRecord[] = []
    const gaps: number[] = []
    for (const token of [market.tokenIds.up, market.tokenIds.down]) {
      const path = '/prices-history'
      const body = await opts.clob.get(path, {
        market: token,
        startTs: String((market.opensAt - PRICE_POINT_MAX_AGE_MS) / 1000),
        endTs: String(market.expiresAt / 1000),
        fidelity: '1',
      })
      const points = pointsOf(body, `clob GET ${path}`)
      // the boundaries a reading can fall on: the open and each whole minute before the end
      for (let at = market.opensAt; at < market.expiresAt; at += MINUTE_MS) {
        const standing = points.filter((pt) => pt.t <= at && pt.t > at - PRICE_POINT_MAX_AGE_MS).at(-1)
        if (standing === undefined) {
          gaps.push(at)
          continue
        }
        books.push({
          t: at,
          k: 'book',
          ticker: market.slug,
          token,
          ob: pointBook(token, market.conditionId, standing),
        })
      }
    }
    return { books, gaps }
  }

  return {
    origin: 'Polymarket Gamma /events/slug, CLOB /prices-history',
    async day(dayStart): Promise<DayRecords> {
      const dayEnd = dayStart + DAY_MS
      const inDay = (t: number) => t >= dayStart && t < dayEnd
      const records: TapeRecord[] = []
      let contests = 0
      let books = 0
      let gaps = 0
      const pending: string[] = []
      // windows whose open, books or resolution fall in the day (the one before it resolves in it)
      for (let start = dayStart - WINDOW_MS; start < dayEnd; start += WINDOW_MS) {
        const slug = `${opts.series}-${start / 1000}`
        const path = `/events/slug/${slug}`
        const where = `gamma GET ${path}`
        const event = await opts.gamma.get(path, {}, { absentOk: true })
        if (event === null) continue // no such window: the venue did not run it
        const parsed = parseGammaEvent(event, slug)
        if (!parsed.ok) throw new HistoryError(where, `unexpected answer: field ${parsed.field}`)
        const market = parsed.market
        const resolvedAt = market.expiresAt + RESOLVED_AFTER_MS
        const resolution = resolutionOf(market)
        // closed and resolved without a result: the venue's gap, left out
        if (resolution.kind === 'pending' && resolution.why === 'no-outcome-prices') continue
        // a window not resolved yet (open, or closed with its resolution only proposed, venue facts
        // §3.3.6) is not history: its day is left for a later run (the resolution can come hours
        // after the end, §3.2), as the live adapter waits on it
        if (resolution.kind === 'pending') {
          if (market.opensAt < dayEnd && resolvedAt >= dayStart) pending.push(slug)
          continue
        }
        const raw = event as Record<string, unknown>
        if (inDay(market.opensAt)) {
          records.push({ t: market.opensAt, k: 'market', m: asOpen(raw) })
          contests++
        }
        if (inDay(resolvedAt)) records.push({ t: resolvedAt, k: 'market', m: raw })
        if (market.expiresAt <= dayStart || market.opensAt >= dayEnd) continue
        const w = await windowBooks(market)
        for (const b of w.books.filter((b) => inDay(b.t))) {
          records.push(b)
          books++
        }
        gaps += w.gaps.filter(inDay).length
      }
      return { records, contests, books, gaps, pending }
    },
  }
}
