// The Polymarket adapter's pure market book (venue facts §3): the windows' validated Gamma events by
// slug, filled by the live tracker's polls (market-tracker.ts) or a tape's records, and read by every
// port call. A body that fails validation is counted by field and never replaces a good view; a
// Gamma answer older than what is known (its cache) never takes a result or a price back; a result
// settles only once its published prices are in, or a grace has passed.
import type { Settlement } from '../../domain/contest.ts'
import type { Logger } from '../../ports/logger.ts'
import type { BoundaryWatch } from '../venue-http/boundary-polls.ts'
import type { MarketView } from '../venue-http/market-view.ts'
import { type PolymarketMarket, parseGammaEvent, phaseAt } from './gamma-event.ts'
import { resolutionOf } from './gamma-resolution.ts'
import { settlementOf, toVenueMarket, withInheritedStrike } from './venue-mapping.ts'
import { slugForStart, WINDOW_S, windowStartS } from './window-slug.ts'

export type Tracked = {
  market: PolymarketMarket
  /** wall ms of the last good body */
  seenAt: number
  /** wall ms the resolution was first seen, null before */
  resolvedSeenAt: number | null
}

export type PolymarketBook = {
  /** Validates one event body (of `slug`, when asked by slug) and merges it in; the market now shown, else null. */
  ingest(raw: unknown, now: number, slug?: string): PolymarketMarket | null
  get(slug: string): Tracked | undefined
  slugs(): IterableIterator<string>
  forget(slug: string): void
  /** Forgets windows no body has shown for `maxAgeMs`. */
  prune(now: number, maxAgeMs: number): void
  /** The trading or paused window whose span contains `at`. */
  liveAt(at: number): Tracked | null
  /** The result once resolved and its prices are in (or the grace has passed), else null. */
  settlement(slug: string, now: number): Settlement | null
  /** The result is known and final: nothing more to wait for. */
  done(slug: string, now: number): boolean
  /** The book as the Venue port reads it, for the configured series. */
  view(series: readonly string[]): MarketView
}

export type PolymarketBookOptions = {
  logger: Logger
  /** a body rejected, with the field that was wrong */
  onRejected?: (endpoint: string, field: string) => void
  /**
   * a resolved window whose price to beat or final price is not published yet is held this long
   * after the resolution was first seen, so the contest settles with them; default 10 min
   */
  metadataGraceMs?: number
}

/** A newer body merged over what is known: a result or a published price is never taken back. */
function merge(known: PolymarketMarket | undefined, fresh: PolymarketMarket): PolymarketMarket {
  if (!known) return fresh
  const knownSettled = settlementOf(known) !== null
  const base = knownSettled && settlementOf(fresh) === null ? { ...fresh, ...resolvedPart(known) } : fresh
  return {
    ...base,
    priceToBeat: fresh.priceToBeat ?? known.priceToBeat,
    finalPrice: fresh.finalPrice ?? known.finalPrice,
  }
}

function resolvedPart(m: PolymarketMarket): Partial<PolymarketMarket> {
  return {
    closed: m.closed,
    resolutionStatus: m.resolutionStatus,
    outcomePrices: m.outcomePrices,
    active: m.active,
    acceptingOrders: m.acceptingOrders,
  }
}

export function createPolymarketBook(opts: PolymarketBookOptions): PolymarketBook {
  const { logger } = opts
  const metadataGraceMs = opts.metadataGraceMs ?? 10 * 60_000
  const bySlug = new Map<string, Tracked>()
  const warned = new Set<string>()

  const warnOnce = (key: string, fields: object, message: string): void => {
    if (warned.has(key)) return
    if (warned.size >= 10_000) warned.clear()
    warned.add(key)
    logger.warn({ venue: 'polymarket', ...fields }, message)
  }

  /** Published prices in hand, or no longer worth waiting for. */
  function complete(t: Tracked, now: number): boolean {
    const { market } = t
    if (market.priceToBeat !== null && market.finalPrice !== null) return true
    return t.resolvedSeenAt !== null && now - t.resolvedSeenAt >= metadataGraceMs
  }

  function logResolution(market: PolymarketMarket, slug: string, now: number): void {
    const res = resolutionOf(market)
    const result = res.kind === 'settled' ? res.side : res.kind
    logger.info(
      { venue: 'polymarket', slug, result, afterEndMs: now - market.expiresAt },
      'polymarket market resolved',
    )
    if (res.kind === 'void')
      logger.error({ venue: 'polymarket', slug }, 'polymarket market voided (outcome prices split)')
    if (res.kind === 'settled' && res.pricesDisagree) {
      const { priceToBeat, finalPrice } = market
      logger.warn(
        { venue: 'polymarket', slug, side: res.side, priceToBeat, finalPrice },
        "polymarket outcome disagrees with its published prices; the venue's outcome stands",
      )
    }
  }

  function ingest(raw: unknown, now: number, requested?: string): PolymarketMarket | null {
    const r = parseGammaEvent(raw, requested)
    if (!r.ok) {
      const slug = requested ?? r.slug
      opts.onRejected?.('event', r.field)
      warnOnce(`${slug}\u0000${r.field}`, { slug, field: r.field }, 'polymarket event malformed; skipped')
      return null
    }
    const { slug } = r.market
    // an optional field read as null: counted and warned once per window and field, not every poll
    for (const field of r.unreadable) {
      const key = `${slug}\u0000lenient\u0000${field}`
      if (warned.has(key)) continue
      opts.onRejected?.('event', field)
      warnOnce(key, { slug, field }, 'polymarket event field unreadable; read as null')
    }
    const known = bySlug.get(slug)
    const market = merge(known?.market, r.market)
    const resolved = settlementOf(market) !== null
    const resolvedSeenAt = known?.resolvedSeenAt ?? (resolved ? now : null)
    if (resolved && known?.resolvedSeenAt == null) logResolution(market, slug, now)
    bySlug.set(slug, { market, seenAt: now, resolvedSeenAt })
    return market
  }

  const get = (slug: string): Tracked | undefined => bySlug.get(slug)

  function settlement(slug: string, now: number): Settlement | null {
    const t = bySlug.get(slug)
    if (!t) return null
    const s = settlementOf(t.market)
    return s !== null && complete(t, now) ? s : null
  }

  function liveAt(at: number): Tracked | null {
    const t = bySlug.get(slugForStart(windowStartS(at)))
    if (!t) return null
    const phase = phaseAt(t.market, at)
    return phase === 'trading' || phase === 'paused' ? t : null
  }

  /**
   * The market as the port shows it. A window's price to beat is the previous window's final price
   * (venue facts §3.3.3), which Gamma publishes when that one resolves, often minutes into this one:
   * used as the strike while this window's own is not published yet.
   */
  const venueMarketOf = (market: PolymarketMarket, now: number) =>
    toVenueMarket(
      withInheritedStrike(market, get(slugForStart(market.opensAt / 1000 - WINDOW_S))?.market),
      now,
    )

  const view = (series: readonly string[]): MarketView => ({
    marketAt(s, at) {
      const t = series.includes(s) ? liveAt(at) : null
      return t ? venueMarketOf(t.market, at) : null
    },
    // earlier windows feed the model's basis (their strikes against the proxy at their opens)
    marketOpenedAt(s, opensAt, now) {
      if (!series.includes(s) || opensAt % (WINDOW_S * 1000) !== 0) return null
      const t = get(slugForStart(opensAt / 1000))
      return t ? venueMarketOf(t.market, now) : null
    },
    market(ticker, now) {
      const t = get(ticker)
      return t ? venueMarketOf(t.market, now) : null
    },
    result: settlement,
    quotable(ticker, now) {
      const t = get(ticker)
      return !!t && phaseAt(t.market, now) === 'trading'
    },
  })

  return {
    ingest,
    get,
    slugs: () => bySlug.keys(),
    forget: (slug) => bySlug.delete(slug),
    prune(now, maxAgeMs) {
      for (const [slug, t] of bySlug) if (now - t.seenAt > maxAgeMs) bySlug.delete(slug)
    },
    liveAt,
    settlement,
    done: (slug, now) => {
      const t = bySlug.get(slug)
      return t !== undefined && settlementOf(t.market) !== null && complete(t, now)
    },
    view,
  }
}

/**
 * The book's boundaries for the poll loop (venue-http/boundary-polls.ts): each window's start and
 * end. A window lags while it has begun and the venue's last answer still shows it not taking
 * orders (`active` or `acceptingOrders` false, which it may be before the start): the venue's
 * flags decide, never the clock alone (decisions §14).
 */
export function polymarketBoundaries(book: PolymarketBook): BoundaryWatch {
  return {
    nextBoundary(after) {
      let next: number | null = null
      for (const slug of book.slugs()) {
        const market = book.get(slug)?.market
        if (!market) continue
        for (const t of [market.opensAt, market.expiresAt])
          if (t > after && (next === null || t < next)) next = t
      }
      return next
    },
    lagging(now) {
      for (const slug of book.slugs()) {
        const market = book.get(slug)?.market
        if (market && market.opensAt <= now && phaseAt(market, now) === 'paused') return true
      }
      return false
    },
  }
}
