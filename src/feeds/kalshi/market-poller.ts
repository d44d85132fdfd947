// One poll of the venue: one close-window listing per series into the market book (venue facts §1.14),
// then `GET /markets/{ticker}` for the markets whose result is still awaited but that the listing did
// not show (the long settlement tail past the window, or every one of a series whose listing failed:
// a failed listing never holds up a result).

import { createOutageLogs } from '../../platform/outage-log.ts'
import type { Clock } from '../../ports/clock.ts'
import type { Logger } from '../../ports/logger.ts'
import { venueOutageLogs } from '../venue-http/venue-outage-log.ts'
import type { KalshiClient } from './kalshi-client.ts'
import type { MarketBook } from './market-book.ts'
import { type CutShort, closeWindowQuery, listMarkets } from './market-listing.ts'
import { phaseForStatus } from './market-status.ts'
import { settlementOf } from './settlement.ts'

/** The engine follows a handful of contests; this only bounds a misbehaving caller. */
const ASKED_MAX = 1_000

export type MarketPollerOptions = {
  client: KalshiClient
  book: MarketBook
  series: readonly string[]
  logger: Logger
  clock: Clock
  /** A market may 404 briefly after creation (venue facts §1.3); after this long it is given up. */
  notFoundGiveUpMs: number
  /** told why a listing failed: the status (HTTP code, `timeout`, `error`…) and the venue's words */
  onListingFailed?: (status: string, message: string) => void
  /** told of each listing the venue cut short (its answers are used, but one may be missing) */
  onListingCutShort?: () => void
}

export type MarketPoller = {
  /** Runs one poll; true when every listing request succeeded. */
  pollOnce(signal: AbortSignal): Promise<boolean>
  /** The engine asked about `ticker`: follow it until its result is known. */
  noteAsked(ticker: string): void
  /** Looks one market up by ticker now (the WebSocket said it changed). */
  refresh(ticker: string, signal: AbortSignal): Promise<void>
}

const isSettled = (book: MarketBook, ticker: string): boolean => {
  const entry = book.get(ticker)
  return entry !== undefined && settlementOf(entry.market) !== null
}

export function createMarketPoller(opts: MarketPollerOptions): MarketPoller {
  const { client, book, logger, clock } = opts
  const asked = new Set<string>()
  // first 404 of a followed ticker, for giving up; cleared by any answer that is not a 404
  const notFoundSince = new Map<string, number>()
  const givenUp = new Set<string>()
  // a venue outage fails every listing and lookup of every poll: logged as an outage, not per poll
  const listingOutage = venueOutageLogs(clock, logger, {
    venue: 'kalshi',
    key: 'series',
    what: (series) => `kalshi listing of ${series}`,
    started: 'kalshi listing failed',
  })
  // a venue bug that cuts a listing short (a cursor handed back again) does so at every poll
  const warn = (fields: Record<string, unknown>, message: string): void => logger.warn(fields, message)
  const cutShortLog = createOutageLogs(clock, (series) => ({
    what: `kalshi listing of ${series} (cut short)`,
    started: 'kalshi listing cut short; stopping there',
    fail: warn,
    recover: warn,
    context: { venue: 'kalshi', series },
    describe: (cut) => cut as CutShort,
  }))
  const fetchOutage = venueOutageLogs(clock, logger, {
    venue: 'kalshi',
    key: 'ticker',
    what: (ticker) => `kalshi market fetch of ${ticker}`,
    started: 'kalshi market fetch failed',
  })

  async function pollListings(signal: AbortSignal): Promise<{ ok: boolean; listed: Set<string> }> {
    const listed = new Set<string>()
    let ok = true
    for (const series of opts.series) {
      const listing = await listMarkets(client, closeWindowQuery(series, clock.now()), signal)
      if (signal.aborted) return { ok: false, listed }
      if (!listing.ok) {
        ok = false
        opts.onListingFailed?.(listing.status, listing.message)
        listingOutage.failed(series, listing)
        continue
      }
      listingOutage.succeeded(series)
      if (listing.cutShort === null) cutShortLog.succeeded(series)
      else {
        cutShortLog.failed(series, listing.cutShort)
        opts.onListingCutShort?.()
      }
      // pages may overlap while markets change state: the last copy seen is the newest
      const latest = new Map<string, unknown>()
      const untickered: unknown[] = []
      for (const raw of listing.markets) {
        const ticker = (raw as { ticker?: unknown } | null)?.ticker
        if (typeof ticker === 'string' && ticker !== '') latest.set(ticker, raw)
        else untickered.push(raw)
      }
      const now = clock.now()
      for (const raw of untickered) book.ingest(raw, series, now)
      for (const [ticker, raw] of latest) {
        listed.add(ticker)
        givenUp.delete(ticker)
        notFoundSince.delete(ticker)
        book.ingest(raw, series, now)
      }
    }
    return { ok, listed }
  }

  /** Markets to fetch one by one: awaited results (and live markets) the listings did not show this time. */
  function unlistedToFollow(listed: Set<string>): string[] {
    const follow = new Set<string>()
    for (const ticker of asked) {
      if (isSettled(book, ticker)) asked.delete(ticker)
      else follow.add(ticker)
    }
    for (const entry of book.entries()) {
      if (phaseForStatus(entry.market.status) !== 'upcoming' && settlementOf(entry.market) === null)
        follow.add(entry.market.ticker)
    }
    return [...follow].filter((t) => !listed.has(t) && !givenUp.has(t))
  }

  async function fetchOne(ticker: string, signal: AbortSignal): Promise<void> {
    const reply = await client.get('market', `/markets/${encodeURIComponent(ticker)}`, {}, { signal })
    const now = clock.now()
    if (reply.ok) {
      fetchOutage.succeeded(ticker)
      notFoundSince.delete(ticker)
      const raw = (reply.body as { market?: unknown } | null)?.market
      const market = book.ingest(raw, null, now, 'market')
      if (market && settlementOf(market) !== null) asked.delete(ticker)
      return
    }
    if (reply.status === 'aborted') return
    if (reply.status === '404') {
      // the venue's answer too (a market not listed yet): not an outage
      fetchOutage.succeeded(ticker)
      const since = notFoundSince.get(ticker) ?? now
      notFoundSince.set(ticker, since)
      if (now - since < opts.notFoundGiveUpMs) return
      logger.warn(
        { venue: 'kalshi', ticker, notFoundForMs: now - since },
        'kalshi market still not found; giving up',
      )
      asked.delete(ticker)
      notFoundSince.delete(ticker)
      if (givenUp.size >= ASKED_MAX) givenUp.clear()
      givenUp.add(ticker)
      return
    }
    fetchOutage.failed(ticker, reply)
  }

  return {
    async pollOnce(signal) {
      const { ok, listed } = await pollListings(signal)
      // whatever the listings did: a failed one only means more markets are fetched one by one
      for (const ticker of unlistedToFollow(listed)) if (!signal.aborted) await fetchOne(ticker, signal)
      return ok
    },
    refresh: fetchOne,
    noteAsked(ticker) {
      if (asked.has(ticker) || givenUp.has(ticker) || isSettled(book, ticker)) return
      if (asked.size >= ASKED_MAX) asked.delete(asked.values().next().value as string)
      asked.add(ticker)
    },
  }
}
