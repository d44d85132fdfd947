// Kalshi's taker fee on quadratic-fee series such as KXBTC15M (venue facts §2.7, decisions §13):
// 0.07 × C × p × (1 − p) dollars for C contracts at price p, rounded up to the cent per order.
// Computed on integers (millionths of a dollar, hundredths of a contract), so no float rounding
// turns an exact cent into the next one.

const MILLIONTHS = 1_000_000n

/**
 * The fee in cents of one taker order of `contracts` (0.01 granularity) at `priceCents` (0–100 on
 * the 0.1 ¢ grid; finer prices are taken to the millionth of a dollar), times `multiplier` (the
 * series' `fee_multiplier`, 1 on KXBTC15M).
 */
export function takerFeeCents(priceCents: number, contracts = 1, multiplier = 1): number {
  if (!(priceCents >= 0 && priceCents <= 100))
    throw new RangeError(`price must be 0–100 cents, got ${priceCents}`)
  if (!(contracts >= 0)) throw new RangeError(`contracts must be ≥ 0, got ${contracts}`)
  const p = BigInt(Math.round(priceCents * 10_000))
  const c = BigInt(Math.round(contracts * 100))
  const m = BigInt(Math.round(multiplier * 100))
  // cents = 100 × 0.07 × C × p × (1 − p) × multiplier, with C = c/100, p = P/10⁶, multiplier = m/100
  const numerator = 7n * c * p * (MILLIONTHS - p) * m
  const denominator = 100n * 100n * MILLIONTHS * MILLIONTHS
  return Number((numerator + denominator - 1n) / denominator)
}
