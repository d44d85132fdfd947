// The simulator's venue (decisions §3): Kalshi's KXBTC15M as the sandbox presents it. Every market
// answer is the Market object Kalshi would have returned at that instant, read through the Kalshi
// adapter's own parsing and mapping, so the simulator, a tape of it and the real venue meet in one
// mapping; quotes are the best asks of the `orderbook_fp` body of that instant. Strike and settlement follow the written rule (sim-world.ts), quotes
// come from the crowd on the tapered grid, nothing trades during the weekly pause, and results come
// 30–90 s after the close with the occasional void and missing settlement value.
import type { Settlement } from '../../domain/contest.ts'
import { QUARTER_MS, quarterStart } from '../../domain/ticker.ts'
import type { Venue, VenueMarket, VenueQuote } from '../../ports/venue.ts'
import { MILLIONTHS_PER_DOLLAR, millionthsToCents } from '../kalshi/fixed-point.ts'
import { type KalshiMarket, parseMarket } from '../kalshi/market.ts'
import { toVenueMarket } from '../kalshi/market-book.ts'
import { settlementOf } from '../kalshi/settlement.ts'
import type { SimParams } from './sim-params.ts'
import type { SimPriceFeed } from './sim-price-feed.ts'
import { type SimContest, type SimWorld, sharedSimWorld } from './sim-world.ts'

/** `feed` is accepted for callers that pass it; the venue reads the seed's world directly. */
export type SimVenueOptions = {
  seed: number
  series: readonly string[]
  feed?: SimPriceFeed
  /** the sandbox of the seed (its world is then the feed's of the same seed and params) */
  params?: SimParams
  world?: SimWorld
}

export function createSimVenue(opts: SimVenueOptions): Venue {
  const world = opts.world ?? sharedSimWorld(opts.seed, opts.params)
  const seriesSet = new Set(opts.series)

  const contestOf = (ticker: string): SimContest | null => {
    const c = world.contestOf(ticker)
    return c && seriesSet.has(c.series) ? c : null
  }
  const kalshiMarket = (c: SimContest, at: number): KalshiMarket => {
    const parsed = parseMarket(world.marketBody(c, at))
    // the sandbox's own bodies always parse; a failure here is a bug in the simulator
    if (!parsed.ok) throw new Error(`simulated market ${c.ticker} fails to parse at ${parsed.field}`)
    return parsed.market
  }
  const venueMarket = (c: SimContest, at: number): VenueMarket =>
    toVenueMarket({ market: kalshiMarket(c, at), series: c.series, seenAt: at })

  const quoteAt = (c: SimContest, at: number): VenueQuote | null => {
    // nothing trades before the open; after the close quotes are meaningless (venue facts §2.6)
    if (at < c.opensAt || at >= c.expiresAt || !world.tradingActive(at)) return null
    // the best asks of the book orderbookBody() writes out, read without the round trip through
    // strings (a reading's hot path; a test holds the two equal): YES ask = 1 − best NO bid
    const book = world.book(c, at)
    const bestYes = book.yes.at(-1)
    const bestNo = book.no.at(-1)
    if (!bestYes && !bestNo) return null
    return {
      upAskCents: bestNo ? millionthsToCents(MILLIONTHS_PER_DOLLAR - bestNo[0]) : null,
      downAskCents: bestYes ? millionthsToCents(MILLIONTHS_PER_DOLLAR - bestYes[0]) : null,
    }
  }

  return {
    name: 'sim',
    supportsHistory: true,
    tradingPaused: (at) => !world.tradingActive(at),
    async marketAt(series, at) {
      if (!seriesSet.has(series)) return null
      return venueMarket(world.contest(series, quarterStart(at) + QUARTER_MS), at)
    },
    // the contest that opened then, as the sandbox described it at its open
    async marketOpenedAt(series, opensAt) {
      if (!seriesSet.has(series)) return null
      const c = world.contest(series, quarterStart(opensAt) + QUARTER_MS)
      return c.opensAt === opensAt ? venueMarket(c, opensAt) : null
    },
    async market(ticker, at) {
      const c = contestOf(ticker)
      return c ? venueMarket(c, at) : null
    },
    async quote(ticker, at) {
      const c = contestOf(ticker)
      return c ? quoteAt(c, at) : null
    },
    async result(ticker, at): Promise<Settlement | null> {
      const c = contestOf(ticker)
      return c ? settlementOf(kalshiMarket(c, at)) : null
    },
    // no network: the simulator is always reachable
    status: () => ({ name: 'sim', state: 'ok', lastOkAt: null }),
    statuses: () => [{ name: 'sim', state: 'ok', lastOkAt: null }],
    start: async () => {},
    close: async () => {},
  }
}
