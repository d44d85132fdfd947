// A Polymarket market's result as the venue published it (venue facts §3.3.4, decisions §14): settled
// only when Gamma shows the market closed, `umaResolutionStatus` "resolved" and `outcomePrices` with
// exactly one 1 and one 0 (the winner read by label); a 0.5/0.5 split is a void. Anything else
// (still open, "proposed", prices not yet binary) is waited on. The outcome is the venue's; the
// published prices are only compared with it, never used to decide it (venue facts §3.3.1).
import type { Side } from '../../domain/contest.ts'
import type { PolymarketMarket } from './gamma-event.ts'

export type Resolution =
  | { kind: 'pending'; why: 'open' | 'unresolved' | 'no-outcome-prices' | 'outcome-prices-not-final' }
  | {
      kind: 'settled'
      side: Side
      /** `eventMetadata.finalPrice`, null when the venue has not published it (yet) */
      finalPrice: number | null
      /** true when both published prices exist and point the other way (logged; the venue's outcome stands) */
      pricesDisagree: boolean
    }
  | { kind: 'void'; finalPrice: number | null }

export function resolutionOf(
  market: Pick<
    PolymarketMarket,
    'closed' | 'resolutionStatus' | 'outcomePrices' | 'priceToBeat' | 'finalPrice'
  >,
): Resolution {
  if (!market.closed) return { kind: 'pending', why: 'open' }
  if (market.resolutionStatus?.trim().toLowerCase() !== 'resolved')
    return { kind: 'pending', why: 'unresolved' }
  const prices = market.outcomePrices
  if (!prices) return { kind: 'pending', why: 'no-outcome-prices' }
  const { finalPrice, priceToBeat } = market
  if (prices.up === 0.5 && prices.down === 0.5) return { kind: 'void', finalPrice }
  const side: Side | null =
    prices.up === 1 && prices.down === 0 ? 'up' : prices.up === 0 && prices.down === 1 ? 'down' : null
  if (side === null) return { kind: 'pending', why: 'outcome-prices-not-final' }
  const pricesDisagree =
    finalPrice !== null && priceToBeat !== null && finalPrice >= priceToBeat !== (side === 'up')
  return { kind: 'settled', side, finalPrice, pricesDisagree }
}
