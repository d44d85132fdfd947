// A validated Polymarket market as the engine's domain sees it (decisions §14): ticker = slug, series
// `btc-updown-15m`, the window from `eventStartTime`/`endDate`, the strike = the price to beat once
// published (null until then, never an estimate), Up → `up`, Down → `down`, the final price as the
// settlement price. Gamma's prices carry ~11 decimals (a float of Chainlink's E18 value); the
// service publishes every price to the cent (decisions §3), and the venue's outcome, never the
// rounded prices, decides the side.
import { round2, type Settlement } from '../../domain/contest.ts'
import type { VenueMarket } from '../../ports/venue.ts'
import { type PolymarketMarket, phaseAt } from './gamma-event.ts'
import { resolutionOf } from './gamma-resolution.ts'
import { POLYMARKET_BTC_15M } from './window-slug.ts'

/**
 * A window's price to beat is the previous window's final price (venue facts §3.3.3), which Gamma
 * publishes when that one resolves, often minutes into this one: it is the strike while this
 * window's own is not published. Live and replayed alike, so a replay prices what live priced.
 */
export function withInheritedStrike(
  market: PolymarketMarket,
  previous: PolymarketMarket | undefined,
): PolymarketMarket {
  if (market.priceToBeat !== null || previous?.finalPrice == null) return market
  return { ...market, priceToBeat: previous.finalPrice }
}

export function toVenueMarket(market: PolymarketMarket, now: number): VenueMarket {
  return {
    ticker: market.slug,
    series: POLYMARKET_BTC_15M,
    opensAt: market.opensAt,
    expiresAt: market.expiresAt,
    strikePriceDollars: market.priceToBeat === null ? null : round2(market.priceToBeat),
    phase: phaseAt(market, now),
    // the token ids were paired with their outcome by label when the body was parsed (gamma-event.ts)
    venue: {
      name: 'polymarket',
      refs: {
        slug: market.slug,
        conditionId: market.conditionId,
        upTokenId: market.tokenIds.up,
        downTokenId: market.tokenIds.down,
      },
    },
    settlementRule: { averagingS: market.rule.averagingS },
  }
}

/**
 * The domain's Settlement once the venue resolved the market, else null. A final price that is not
 * above 0 once published to the cent is no oracle value (decisions §3): null, as an unpublished one.
 */
export function settlementOf(market: PolymarketMarket): Settlement | null {
  const r = resolutionOf(market)
  if (r.kind === 'pending') return null
  const cents = r.finalPrice === null ? null : round2(r.finalPrice)
  const priceDollars = cents !== null && cents > 0 ? cents : null
  if (r.kind === 'void') return { kind: 'void', priceDollars }
  return { kind: 'settled', side: r.side, priceDollars }
}
