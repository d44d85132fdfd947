// Tests of Kalshi's taker fee: the schedule's worked figures, rounding up per order, and the grid's ends.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { takerFeeCents } from './taker-fee.ts'

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

  it('charges a cent on a sub-cent long shot, and nothing at 0 or 100', () => {
    assert.equal(takerFeeCents(0.4), 1) // 0.0279 ¢ rounds up
    assert.equal(takerFeeCents(0.4, 1000), 28) // 27.888 ¢
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
