// Kalshi's taker fee (decisions §13, reference §2.7): ceil(0.07 × C × p × (1 − p)) dollars per order
// of C contracts at price p, rounded up to the cent. Prices are in cents on the 0.1 ¢ grid, so the
// arithmetic is done in integers: no float can round a whole cent up by accident.

/** The fee rate of the quadratic schedule (fee_multiplier 1). */
export const TAKER_FEE_RATE = 0.07

/** The taker fee in whole cents for one order of `contracts` at `priceCents` (0–100, 0.1 ¢ steps). */
export function takerFeeCents(priceCents: number, contracts = 1): number {
  if (!(priceCents >= 0 && priceCents <= 100) || !Number.isInteger(contracts) || contracts < 0)
    throw new RangeError('a price of 0–100 cents and a whole number of contracts')
  const tenths = Math.round(priceCents * 10)
  // 0.07 · C · (t/1000) · (1 − t/1000) dollars = 7 · C · t · (1000 − t) / 10⁶ cents
  const numerator = 7 * contracts * tenths * (1000 - tenths)
  return numerator === 0 ? 0 : Math.ceil(numerator / 1_000_000 - 1e-12)
}
