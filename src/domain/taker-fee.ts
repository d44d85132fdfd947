// Venue taker fees for the backtest (decisions §13). Kalshi's on quadratic-fee series such as KXBTC15M
// (venue facts §2.7): 0.07 × C × p × (1 − p) dollars for C contracts at price p, each fill's fee rounded
// up to $0.0001 and an ordinary account's debit (cost + fee) then up to the cent. At a whole-cent price
// on whole contracts the cost is whole cents, so that is the fee rounded up to the cent (2 ¢ at 50 ¢);
// at a sub-cent price (Kalshi's 0.1 ¢ grid in the tails) the fee is what the rounded debit adds to the
// cost (97.5 ¢ + 0.17 ¢ → 98 ¢: 0.5 ¢), never a whole cent on top of a sub-cent cost.
// Computed on integers (hundred-millionths of a dollar, hundredths of a contract), so no float
// rounding turns an exact cent into the next one.
import { venueOfSeries } from './venues.ts'

const MILLIONTHS = 1_000_000n

/**
 * The fee in cents of one taker order of `contracts` (0.01 granularity) at `priceCents` (0–100 on
 * the 0.1 ¢ grid; finer prices are taken to the millionth of a dollar), times `multiplier` (the
 * series' `fee_multiplier`, 1 on KXBTC15M): what the order's debit, rounded up to the cent, holds
 * beyond its cost.
 */
export function takerFeeCents(priceCents: number, contracts = 1, multiplier = 1): number {
  if (!(priceCents >= 0 && priceCents <= 100))
    throw new RangeError(`price must be 0–100 cents, got ${priceCents}`)
  if (!(contracts >= 0)) throw new RangeError(`contracts must be ≥ 0, got ${contracts}`)
  const p = BigInt(Math.round(priceCents * 10_000))
  const c = BigInt(Math.round(contracts * 100))
  const m = BigInt(Math.round(multiplier * 100))
  // the model fee in units of $0.0001, rounded up: 10⁴ × 0.07 × C × p × (1 − p) × multiplier, with
  // C = c/100, p = P/10⁶, multiplier = m/100
  const numerator = 10_000n * 7n * c * p * (MILLIONTHS - p) * m
  const denominator = 100n * 100n * 100n * MILLIONTHS * MILLIONTHS
  const fee = (numerator + denominator - 1n) / denominator
  // in units of $10⁻⁸: the cost C × p is c × P exactly, the fee 10⁴ × its $0.0001; a cent is 10⁶
  const cost = c * p
  const debit = cost + fee * 10_000n
  const CENT = 1_000_000n
  const debitCents = (debit + CENT - 1n) / CENT
  return Number(debitCents * CENT - cost) / 1_000_000
}

/**
 * Polymarket's taker fee on its crypto Up/Down markets (venue facts §3.4.6): shares × rate × p × (1 − p)
 * USDC per fill (rate 0.07, exponent 1), makers free; 1.75 ¢ per share at 50 ¢. The venue keeps fees to
 * 5 decimal places without saying how it rounds [U]; a backtest should never understate a cost, so
 * this rounds up at the fifth decimal of a dollar (0.001 ¢). In cents, on the same integer arithmetic.
 */
export function polymarketTakerFeeCents(priceCents: number, shares = 1, rate = 0.07): number {
  if (!(priceCents >= 0 && priceCents <= 100))
    throw new RangeError(`price must be 0–100 cents, got ${priceCents}`)
  if (!(shares >= 0)) throw new RangeError(`shares must be ≥ 0, got ${shares}`)
  const p = BigInt(Math.round(priceCents * 10_000))
  const c = BigInt(Math.round(shares * 100))
  const r = BigInt(Math.round(rate * 10_000))
  // dollars × 10⁵ = 10⁵ × (r/10⁴) × (c/100) × (p/10⁶) × (1 − p/10⁶)
  const numerator = 100_000n * r * c * p * (MILLIONTHS - p)
  const denominator = 10_000n * 100n * MILLIONTHS * MILLIONTHS
  const hundredThousandths = (numerator + denominator - 1n) / denominator
  return Number(hundredThousandths) / 1_000
}

/** Which venue's fee a series (or one of its tickers) pays: the series prefix names its venue (decisions §14). */
export type TakerFeeSchedule = 'kalshi' | 'polymarket'

export function feeScheduleOf(seriesOrTicker: string): TakerFeeSchedule {
  // the simulator's series are Kalshi's, and so is its fee
  return venueOfSeries(seriesOrTicker) === 'polymarket' ? 'polymarket' : 'kalshi'
}

/** One order's taker fee in cents at `priceCents` under the venue's schedule. */
export function takerFeeCentsOn(schedule: TakerFeeSchedule, priceCents: number, quantity = 1): number {
  return schedule === 'polymarket'
    ? polymarketTakerFeeCents(priceCents, quantity)
    : takerFeeCents(priceCents, quantity)
}
