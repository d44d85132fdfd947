// The venue's decided result as the domain's Settlement (decisions §8): yes → up, no → down, any
// other result once decided → void; the settlement price is `expiration_value` when reported.
import type { Settlement } from '../../domain/contest.ts'
import type { KalshiMarket } from './market.ts'
import { isDecidedStatus } from './market-status.ts'

/** null while the market is not decided (still trading, closed awaiting a result, or disputed). */
export function settlementOf(
  market: Pick<KalshiMarket, 'status' | 'result' | 'expirationValue'>,
): Settlement | null {
  if (!isDecidedStatus(market.status)) return null
  const priceDollars = market.expirationValue
  if (market.result === 'yes') return { kind: 'settled', side: 'up', priceDollars }
  if (market.result === 'no') return { kind: 'settled', side: 'down', priceDollars }
  // `""` at a decided status, or `scalar` (a fractional payout, not expected on an up/down series)
  return { kind: 'void', priceDollars }
}
