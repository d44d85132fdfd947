// The simulator's venue (decisions §3): a 15-minute up/down market per series every quarter hour,
// quoted from a noisy market view of the true probability with a 1–3 cent spread, and settled
// 30–90 s after close, with the occasional void and missing oracle price. Pure function of the seed.
import { MINUTE_MS, round2, type Settlement, sideForPrice } from '../../domain/contest.ts'
import { normalCdf } from '../../domain/model.ts'
import { formatTicker, parseTicker, QUARTER_MS, quarterStart } from '../../domain/ticker.ts'
import type { MarketPhase, Venue, VenueMarket, VenueQuote } from '../../ports/venue.ts'
import { createSeededRandom, hashString } from './seeded-random.ts'
import type { SimPriceFeed } from './sim-price-feed.ts'

/** Log-odds sd of a contest's persistent market bias: the crowd's view of one window. */
export const SIM_QUOTE_BIAS_SD = 0.1
/**
 * Log-odds sd of the minute-to-minute noise of that view. With the bias that is about ±3.5 cents at
 * the money: enough, with the model's own error, for edges of both signs to occur.
 */
export const SIM_QUOTE_NOISE_SD = 0.1
export const SIM_SETTLE_DELAY_MIN_S = 30
export const SIM_SETTLE_DELAY_MAX_S = 90
export const SIM_VOID_RATE = 1 / 200
export const SIM_MISSING_PRICE_RATE = 1 / 200

const CACHED_MARKETS = 5_000

// random stream numbers, distinct from the price feed's (1–6) so no draw is shared
const S_QUOTE_BIAS = 101
const S_QUOTE_NOISE = 102
const S_SPREAD = 103
const S_SETTLE_DELAY = 104
const S_VOID = 105
const S_MISSING_PRICE = 106

export type SimVenueOptions = { seed: number; feed: SimPriceFeed; series: readonly string[] }

export function createSimVenue(opts: SimVenueOptions): Venue {
  const { feed } = opts
  const rnd = createSeededRandom(opts.seed)
  const seriesSet = new Set(opts.series)

  const marketClosingAt = (series: string, expiresAt: number): VenueMarket => {
    const opensAt = expiresAt - QUARTER_MS
    return {
      ticker: formatTicker(series, expiresAt),
      series,
      opensAt,
      expiresAt,
      // the price to beat is the spot at open, which is also the previous window's settlement price
      strikePriceDollars: round2(feed.spotAtSync(opensAt)),
      phase: 'upcoming',
    }
  }
  const phaseAt = (market: VenueMarket, at: number): MarketPhase =>
    at < market.opensAt ? 'upcoming' : at < market.expiresAt ? 'trading' : 'closed'

  // Tickers this venue issued, resolved by parsing and kept in a small cache because the engine asks
  // about the same few tickers many times.
  const markets = new Map<string, VenueMarket | null>()
  const resolve = (ticker: string): VenueMarket | null => {
    const hit = markets.get(ticker)
    if (hit !== undefined) return hit
    const parsed = parseTicker(ticker)
    const market =
      parsed && seriesSet.has(parsed.series) && parsed.expiresAt % QUARTER_MS === 0
        ? marketClosingAt(parsed.series, parsed.expiresAt)
        : null
    if (markets.size >= CACHED_MARKETS) markets.delete(markets.keys().next().value as string)
    markets.set(ticker, market)
    return market
  }

  const quoteAt = (market: VenueMarket, at: number): VenueQuote | null => {
    // nothing trades before the open; after the close quotes are meaningless (reference §5.11)
    if (at < market.opensAt || at >= market.expiresAt) return null
    const key = hashString(market.ticker)
    const minute = Math.floor((at - market.opensAt) / MINUTE_MS)
    const minutesLeft = (market.expiresAt - at) / MINUTE_MS
    const spot = feed.spotAtSync(at)
    const strike = market.strikePriceDollars as number
    const dispersion = feed.sigmaPerMinuteAt(at) * Math.sqrt(minutesLeft)
    const pTrue = Math.min(0.995, Math.max(0.005, normalCdf(Math.log(spot / strike) / dispersion)))
    const logOdds =
      Math.log(pTrue / (1 - pTrue)) +
      SIM_QUOTE_BIAS_SD * rnd.normal(S_QUOTE_BIAS, key) +
      SIM_QUOTE_NOISE_SD * rnd.normal(S_QUOTE_NOISE, key, minute)
    const pMarket = 1 / (1 + Math.exp(-logOdds))
    const spread = 1 + Math.floor(3 * rnd.uniform(S_SPREAD, key, minute))
    const ask = (p: number): number => Math.min(99, Math.max(1, Math.round(100 * p + spread / 2)))
    return { upAskCents: ask(pMarket), downAskCents: ask(1 - pMarket) }
  }

  const resultAt = (market: VenueMarket, at: number): Settlement | null => {
    const key = hashString(market.ticker)
    const span = SIM_SETTLE_DELAY_MAX_S - SIM_SETTLE_DELAY_MIN_S + 1
    const delayS = SIM_SETTLE_DELAY_MIN_S + Math.floor(span * rnd.uniform(S_SETTLE_DELAY, key))
    if (at < market.expiresAt + delayS * 1000) return null
    if (rnd.uniform(S_VOID, key) < SIM_VOID_RATE) return { kind: 'void', priceDollars: null }
    const price = round2(feed.spotAtSync(market.expiresAt))
    const side = sideForPrice(price, market.strikePriceDollars as number)
    const reported = rnd.uniform(S_MISSING_PRICE, key) >= SIM_MISSING_PRICE_RATE
    return { kind: 'settled', side, priceDollars: reported ? price : null }
  }

  return {
    name: 'sim',
    supportsHistory: true,
    async marketAt(series, at) {
      if (!seriesSet.has(series)) return null
      const market = resolve(formatTicker(series, quarterStart(at) + QUARTER_MS))
      return market ? { ...market, phase: phaseAt(market, at) } : null
    },
    async market(ticker, at) {
      const market = resolve(ticker)
      return market ? { ...market, phase: phaseAt(market, at) } : null
    },
    async quote(ticker, at) {
      const market = resolve(ticker)
      return market ? quoteAt(market, at) : null
    },
    async result(ticker, at) {
      const market = resolve(ticker)
      return market ? resultAt(market, at) : null
    },
    // no network: the simulator is always reachable
    status: () => ({ name: 'sim', state: 'ok', lastOkAt: null }),
    start: async () => {},
    close: async () => {},
  }
}
