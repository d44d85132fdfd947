// The Polymarket venue as a tape shows it (decisions §12, §14): each recorded Gamma event body goes
// through the live adapter's own pure mappings (gamma-event.ts for validation, venue-mapping.ts for
// the port's market and the domain's settlement, gamma-resolution.ts underneath), and each recorded
// CLOB `/book` body through clob-book.ts. Only the source of the bodies differs: the tape instead of
// HTTP. A quote asks each side's own token book at the instant of the request; the first book record
// of that slug and token in [t, t + 5 s] answers it.
import type { Settlement } from '../../domain/contest.ts'
import type { SourceStatus, VenueMarket, VenueQuote } from '../../ports/venue.ts'
import type { TapeRecord } from '../../tape/tape-format.ts'
import { bookTop } from '../polymarket/clob-book.ts'
import {
  type OutcomeLabel,
  type PolymarketMarket,
  parseGammaEvent,
  phaseAt,
} from '../polymarket/gamma-event.ts'
import { settlementOf, toVenueMarket, withInheritedStrike } from '../polymarket/venue-mapping.ts'
import { slugForStart, WINDOW_S } from '../polymarket/window-slug.ts'
import { createReadingWindows } from './reading-windows.ts'
import { BOOK_WINDOW_MS } from './tape-player.ts'
import type { TapeVenue, TapeVenueOptions } from './tape-venue.ts'

/** A market last recorded this long ago is forgotten, as the live adapter forgets one it has not seen. */
const FORGET_AFTER_MS = 24 * 3_600_000

/**
 * As the live adapter's tracker (market-tracker.ts): a resolved market whose price to beat or final
 * price is not published yet settles only once they are, or this long after the resolution was seen.
 */
const METADATA_GRACE_MS = 10 * 60_000

type Known = { market: PolymarketMarket; key: string; seenAt: number; resolvedSeenAt: number | null }

/**
 * A newer body over what is known, as the live tracker merges them: a result or a published price,
 * once seen, is never taken back by an older (cached) answer.
 */
function merged(known: PolymarketMarket | undefined, fresh: PolymarketMarket): PolymarketMarket {
  if (!known) return fresh
  const keepResult = settlementOf(known) !== null && settlementOf(fresh) === null
  const base = keepResult
    ? {
        ...fresh,
        closed: known.closed,
        resolutionStatus: known.resolutionStatus,
        outcomePrices: known.outcomePrices,
        active: known.active,
        acceptingOrders: known.acceptingOrders,
      }
    : fresh
  return {
    ...base,
    priceToBeat: fresh.priceToBeat ?? known.priceToBeat,
    finalPrice: fresh.finalPrice ?? known.finalPrice,
  }
}

export function createPolymarketTapeVenue(opts: TapeVenueOptions): TapeVenue {
  const { clock, logger } = opts
  const prefixes = opts.series.map((s) => `${s}-`)
  const markets = new Map<string, Known>()
  // windows not yet closed, for the replay's tick instants
  const windows = createReadingWindows()
  let prunedAt = Number.NEGATIVE_INFINITY
  // one warning per slug and field: a venue repeating a bad body is not news each poll
  const warned = new Set<string>()

  const take = (record: TapeRecord): boolean => {
    if (record.k !== 'market') return false
    const slug = (record.m as { slug?: unknown } | null)?.slug
    if (typeof slug === 'string' && !prefixes.some((p) => slug.startsWith(p))) return false
    const parsed = parseGammaEvent(record.m)
    if (!parsed.ok) {
      // as live: a body the adapter cannot read changes nothing; the market keeps its last good view
      const key = `${parsed.slug}:${parsed.field}`
      if (!warned.has(key)) {
        warned.add(key)
        logger.warn(
          { venue: 'polymarket', slug: parsed.slug, field: parsed.field, t: record.t },
          'polymarket event body malformed; skipped',
        )
      }
      return false
    }
    const known = markets.get(parsed.market.slug)
    const market = merged(known?.market, parsed.market)
    const key = JSON.stringify(market)
    if (known?.key === key) {
      known.seenAt = record.t
      return false
    }
    const resolvedSeenAt = known?.resolvedSeenAt ?? (settlementOf(market) !== null ? record.t : null)
    markets.set(market.slug, { market, key, seenAt: record.t, resolvedSeenAt })
    windows.set(market.slug, market.opensAt, market.expiresAt)
    return true
  }

  /** The market as live shows it: with the previous window's final price as its strike until its own. */
  const venueMarketOf = (market: PolymarketMarket, at: number): VenueMarket =>
    toVenueMarket(
      withInheritedStrike(market, markets.get(slugForStart(market.opensAt / 1000 - WINDOW_S))?.market),
      at,
    )

  /** The recorded book of one side's token at the request instant, as the CLOB answered it. */
  const sideAsk = async (
    market: PolymarketMarket,
    label: OutcomeLabel,
    at: number,
  ): Promise<{ askCents: number | null; t: number } | null> => {
    const token = market.tokenIds[label]
    const recorded = await opts.player().bookBetween(market.slug, at, at + BOOK_WINDOW_MS, token)
    // no book within the window: the request failed like a timeout
    if (!recorded) return null
    const top = bookTop(recorded.ob, token)
    if (!top.ok) {
      logger.warn(
        { venue: 'polymarket', ticker: market.slug, side: label, field: top.field },
        'polymarket order book malformed; skipped',
      )
      return null
    }
    return { askCents: top.value.bestAskCents, t: recorded.t }
  }

  return {
    name: 'polymarket',
    supportsHistory: false,
    take,
    // Polymarket has no exchange-wide status (no weekly pause)
    exchangeStatus: () => null,
    tradingPaused: () => false,
    nextBoundaryAfter(t) {
      if (t - prunedAt >= FORGET_AFTER_MS / 24) {
        prunedAt = t
        for (const [slug, k] of markets) if (k.seenAt < t - FORGET_AFTER_MS) markets.delete(slug)
      }
      return windows.nextBoundaryAfter(t)
    },
    async marketAt(series: string, at: number): Promise<VenueMarket | null> {
      for (const { market } of markets.values()) {
        if (!market.slug.startsWith(`${series}-`) || at < market.opensAt || at >= market.expiresAt) continue
        const phase = phaseAt(market, at)
        if (phase === 'trading' || phase === 'paused') return venueMarketOf(market, at)
      }
      return null
    },
    // earlier windows feed the model's basis (their strikes against the proxy at their opens), as live
    async marketOpenedAt(series: string, opensAt: number): Promise<VenueMarket | null> {
      if (!opts.series.includes(series) || opensAt % (WINDOW_S * 1000) !== 0) return null
      const known = markets.get(slugForStart(opensAt / 1000))
      return known ? venueMarketOf(known.market, clock.now()) : null
    },
    async market(ticker: string, at: number): Promise<VenueMarket | null> {
      const known = markets.get(ticker)
      return known ? venueMarketOf(known.market, at) : null
    },
    async result(ticker: string): Promise<Settlement | null> {
      const known = markets.get(ticker)
      if (!known) return null
      const settlement = settlementOf(known.market)
      if (settlement === null) return null
      const { priceToBeat, finalPrice } = known.market
      const pricesIn = priceToBeat !== null && finalPrice !== null
      const waitedEnough = clock.now() - (known.resolvedSeenAt as number) >= METADATA_GRACE_MS
      return pricesIn || waitedEnough ? settlement : null
    },
    async quote(ticker: string): Promise<VenueQuote | null> {
      const known = markets.get(ticker)
      const now = clock.now()
      // as live: never a quote of a market that is not trading, or after its close
      if (!known || phaseAt(known.market, now) !== 'trading') return null
      // both books are asked at the same instant, as live asks them together
      const up = await sideAsk(known.market, 'up', now)
      const down = await sideAsk(known.market, 'down', now)
      if (!up || !down) return null
      clock.advanceTo(Math.max(up.t, down.t))
      if (up.askCents === null && down.askCents === null) return null
      return { upAskCents: up.askCents, downAskCents: down.askCents }
    },
    status(): SourceStatus {
      return { name: 'polymarket', state: 'ok', lastOkAt: clock.now() }
    },
    start: async () => {},
    close: async () => {},
  }
}
