// The proxy's mean over a span, as every feed gives it from its minute closes (the basis samples of
// model v2 are strikes set against it, so live, replay and the sandbox must mean the same thing).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { spanMeanOfCloses } from './price-history.ts'

const MIN = 60_000
const T = Date.parse('2026-11-23T10:15:00Z')

describe('the proxy mean over a span', () => {
  it('is the average of the closes that bound a minute: exact on a straight path, where the end alone is off by half the move', () => {
    // a path rising linearly from 100 at T − 1 min to 106 at T: its mean over the minute is 103
    const closes = [
      { at: T - 2 * MIN, priceDollars: 97 },
      { at: T - MIN, priceDollars: 100 },
      { at: T, priceDollars: 106 },
      { at: T + MIN, priceDollars: 109 },
    ]
    assert.equal(spanMeanOfCloses(closes, T - MIN, T), 103)
  })

  it('takes every close inside a longer span, and none outside it', () => {
    const closes = [0, 1, 2, 3, 4].map((k) => ({ at: T + k * MIN, priceDollars: 100 + k }))
    assert.equal(spanMeanOfCloses(closes, T + MIN, T + 3 * MIN), 102)
  })

  it('gives nothing for a span missing either end, and skips unusable prices', () => {
    const closes = [
      { at: T - MIN, priceDollars: 100 },
      { at: T, priceDollars: 101 },
    ]
    assert.equal(spanMeanOfCloses(closes.slice(1), T - MIN, T), null)
    assert.equal(spanMeanOfCloses(closes.slice(0, 1), T - MIN, T), null)
    assert.equal(
      spanMeanOfCloses([...closes, { at: T - 30_000, priceDollars: Number.NaN }], T - MIN, T),
      100.5,
    )
  })
})
