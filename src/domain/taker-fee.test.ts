// Tests of Kalshi's taker fee: the schedule's worked figures, rounding up per order, and the grid's ends.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { feeScheduleOf, polymarketTakerFeeCents, takerFeeCents, takerFeeCentsOn } from './taker-fee.ts'

describe('takerFeeCents', () => {
  it('is 0.07·C·p·(1 − p) rounded up to the cent per order', () => {
    assert.equal(takerFeeCents(50), 2) // 1.75 ¢
    assert.equal(takerFeeCents(50, 100), 175)
    assert.equal(takerFeeCents(30), 2) // 1.47 ¢
    assert.equal(takerFeeCents(30, 100), 147)
    assert.equal(takerFeeCents(10, 100), 63)
    assert.equal(takerFeeCents(90, 100), 63)
    assert.equal(takerFeeCents(10), 1) // 0.63 ¢
  })

  it("rounds an ordinary account's debit (cost + fee) up to the cent, not the fee alone, at a sub-cent price", () => {
    // venue facts §2.7: the fee rounded up to $0.0001, then the debit up to the cent
    assert.equal(takerFeeCents(0.4), 0.6) // 0.4 ¢ + 0.0279 ¢ → a 1 ¢ debit
    assert.equal(takerFeeCents(97.5), 0.5) // 97.5 ¢ + 0.1706 ¢ = 97.6706 ¢ → 98 ¢
    assert.equal(takerFeeCents(92.3), 0.7) // 92.3 ¢ + 0.4975 ¢ = 92.7975 ¢ → 93 ¢
    assert.equal(takerFeeCents(97.8), 0.2) // 97.8 ¢ + 0.1507 ¢ = 97.9507 ¢ → 98 ¢
    assert.equal(takerFeeCents(99.9), 0.1) // 99.9 ¢ + 0.0070 ¢ → 100 ¢
    assert.equal(takerFeeCents(97.5, 2), 1) // 195 ¢ + 0.3413 ¢ → 196 ¢
  })

  it('charges nothing at 0 or 100, and the whole-cent fee on whole contracts at any price', () => {
    assert.equal(takerFeeCents(0.4, 1000), 28) // 400 ¢ + 27.888 ¢ → 428 ¢
    assert.equal(takerFeeCents(99.6, 1000), 28)
    assert.equal(takerFeeCents(0), 0)
    assert.equal(takerFeeCents(100), 0)
    assert.equal(takerFeeCents(50, 0), 0)
  })

  it('scales with the fee multiplier and refuses prices off the scale', () => {
    assert.equal(takerFeeCents(50, 100, 0.5), 88) // 87.5 ¢
    assert.throws(() => takerFeeCents(101), RangeError)
    assert.throws(() => takerFeeCents(Number.NaN), RangeError)
    assert.throws(() => takerFeeCents(50, -1), RangeError)
  })
})

describe('polymarketTakerFeeCents', () => {
  it("is shares × 0.07 × p × (1 − p): the reference's figures per share", () => {
    assert.equal(polymarketTakerFeeCents(50), 1.75)
    assert.equal(polymarketTakerFeeCents(30), 1.47)
    assert.equal(polymarketTakerFeeCents(70), 1.47)
    assert.equal(polymarketTakerFeeCents(10), 0.63)
    assert.equal(polymarketTakerFeeCents(90), 0.63)
    assert.equal(polymarketTakerFeeCents(50, 100), 175)
  })

  it('is not rounded to the cent (unlike Kalshi), only up at the fifth decimal of a dollar', () => {
    assert.equal(polymarketTakerFeeCents(0.5), 0.035) // 0.0348… ¢ → 0.035 ¢
    assert.equal(polymarketTakerFeeCents(99.9), 0.007) // 0.00699… ¢
    assert.equal(polymarketTakerFeeCents(0), 0)
    assert.equal(polymarketTakerFeeCents(100), 0)
    assert.throws(() => polymarketTakerFeeCents(-1), RangeError)
  })

  it('is chosen by the series prefix', () => {
    assert.equal(feeScheduleOf('btc-updown-15m'), 'polymarket')
    assert.equal(feeScheduleOf('btc-updown-15m-1790362800'), 'polymarket')
    assert.equal(feeScheduleOf('KXBTC15M-26SEP251515-15'), 'kalshi')
    assert.equal(takerFeeCentsOn('kalshi', 50), 2)
    assert.equal(takerFeeCentsOn('polymarket', 50), 1.75)
  })
})
