// Kalshi's own response shapes (reference §1.5, §1.8, §1.13) for what a simulated venue shows: the
// Market object as `GET /markets` returns it, the `orderbook_fp` body and the exchange status. The
// replay reads them through the real Kalshi adapter, so these are the only place the simulator's
// world is put in the venue's words.
import type { Settlement } from '../../domain/contest.ts'
import type { MarketPhase, VenueMarket, VenueQuote } from '../../ports/venue.ts'

const STATUS_OF_PHASE: Record<MarketPhase, string> = {
  upcoming: 'initialized',
  trading: 'active',
  paused: 'inactive',
  closed: 'closed',
}

const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z')
/** Fixed-point dollars with 4 decimals, as the venue sends them; `cents` may carry a 0.1 ¢ digit. */
export const dollarsOfCents = (cents: number): string => {
  const tenthsOfCent = Math.round(cents * 10)
  const whole = Math.floor(tenthsOfCent / 1000)
  return `${whole}.${String(tenthsOfCent % 1000).padStart(3, '0')}0`
}
const usd = (x: number): string =>
  x.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })

/** The Market object of `market` in `phase`, with its result once `settlement` is known. */
export function kalshiMarket(
  market: VenueMarket,
  phase: MarketPhase,
  settlement: Settlement | null,
  quote: VenueQuote | null,
): Record<string, unknown> {
  const strike = market.strikePriceDollars
  const decided = settlement !== null
  const result = !settlement || settlement.kind === 'void' ? '' : settlement.side === 'up' ? 'yes' : 'no'
  const yesAsk = quote?.upAskCents ?? null
  const noAsk = quote?.downAskCents ?? null
  const event = market.ticker.slice(0, market.ticker.lastIndexOf('-'))
  return {
    ticker: market.ticker,
    event_ticker: event,
    market_type: 'binary',
    title: 'BTC price up in next 15 mins?',
    yes_sub_title: strike === null ? 'Target price: TBD' : `Target Price: $${usd(strike)}`,
    no_sub_title: 'Target price: TBD',
    status: decided ? 'finalized' : STATUS_OF_PHASE[phase],
    open_time: iso(market.opensAt),
    close_time: iso(market.expiresAt),
    expected_expiration_time: iso(market.expiresAt + 5 * 60_000),
    latest_expiration_time: iso(market.expiresAt + 7 * 86_400_000),
    settlement_timer_seconds: 1,
    can_close_early: true,
    strike_type: 'greater_or_equal',
    ...(strike === null || phase === 'upcoming' ? {} : { floor_strike: strike }),
    custom_strike: { round_digits: '2' },
    yes_bid_dollars: noAsk === null ? '0.0000' : dollarsOfCents(100 - noAsk),
    yes_ask_dollars: yesAsk === null ? '1.0000' : dollarsOfCents(yesAsk),
    no_bid_dollars: yesAsk === null ? '0.0000' : dollarsOfCents(100 - yesAsk),
    no_ask_dollars: noAsk === null ? '1.0000' : dollarsOfCents(noAsk),
    notional_value_dollars: '1.0000',
    result,
    expiration_value: settlement?.priceDollars == null ? '' : settlement.priceDollars.toFixed(2),
    ...(decided
      ? { settlement_value_dollars: result === 'yes' ? '1.0000' : result === 'no' ? '0.0000' : null }
      : {}),
    price_level_structure: 'tapered_deci_cent',
    price_ranges: [
      { start: '0.0000', end: '0.1000', step: '0.0010' },
      { start: '0.1000', end: '0.9000', step: '0.0100' },
      { start: '0.9000', end: '1.0000', step: '0.0010' },
    ],
  }
}

/**
 * The bids-only book whose best asks are `quote` (YES ask = 1 − best NO bid, NO ask = 1 − best YES
 * bid): one level per side at the best price, a deeper one behind it, an empty side for no ask.
 */
export function kalshiOrderbook(quote: VenueQuote | null): { orderbook_fp: Record<string, string[][]> } {
  const side = (askFacing: number | null): string[][] => {
    if (askFacing === null) return []
    const best = 100 - askFacing
    const levels = [[dollarsOfCents(best), '250.00']]
    if (best > 2) levels.unshift([dollarsOfCents(best - 2), '1200.00'])
    return levels
  }
  return {
    orderbook_fp: {
      yes_dollars: side(quote?.downAskCents ?? null),
      no_dollars: side(quote?.upAskCents ?? null),
    },
  }
}

export const KALSHI_EXCHANGE_OPEN = { exchange_active: true, trading_active: true } as const
