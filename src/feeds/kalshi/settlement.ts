// The venue's final result as the domain's Settlement (decisions §8): yes → up, no → down, read only
// at a final status. A decided record whose result is still empty is waited on, never voided: this
// series resolves missing data as No (venue facts §2.5, §1.6), so a void comes only from the venue.
import type { Settlement } from '../../domain/contest.ts'
import { MILLIONTHS_PER_DOLLAR } from './fixed-point.ts'
import type { KalshiMarket } from './market.ts'
import { isFinalStatus } from './market-status.ts'

/**
 * null while the result is not final: still trading, closed or `determined` awaiting `finalized`,
 * disputed, a final status with an empty result, or a result its own `settlement_value_dollars`
 * contradicts (a half-written record: re-polled until it agrees).
 *
 * A void is the venue's own word for it: a final result that is neither yes nor no (`scalar`, a
 * fractional payout under the contract terms, or any new word such as `void`).
 */
export function settlementOf(
  market: Pick<KalshiMarket, 'status' | 'result' | 'expirationValue'> &
    Partial<Pick<KalshiMarket, 'settlementValueMillionths'>>,
): Settlement | null {
  if (!isFinalStatus(market.status)) return null
  const priceDollars = market.expirationValue
  const paid = market.settlementValueMillionths ?? null
  if (market.result === 'yes')
    return paid === null || paid === MILLIONTHS_PER_DOLLAR
      ? { kind: 'settled', side: 'up', priceDollars }
      : null
  if (market.result === 'no')
    return paid === null || paid === 0 ? { kind: 'settled', side: 'down', priceDollars } : null
  if (market.result === '') return null
  return { kind: 'void', priceDollars }
}
