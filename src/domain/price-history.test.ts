// The proxy's mean over a span, as every feed gives it from its minutes (the basis samples of model v2
// are strikes set against it, so live, replay and the sandbox must mean the same thing).
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
    assert.deepEqual(spanMeanOfCloses(closes, T - MIN, T), { dollars: 103, fromMeans: false })
  })

  it('takes every close inside a longer span, and none outside it', () => {
    const closes = [0, 1, 2, 3, 4].map((k) => ({ at: T + k * MIN, priceDollars: 100 + k }))
    assert.deepEqual(spanMeanOfCloses(closes, T + MIN, T + 3 * MIN), { dollars: 102, fromMeans: false })
  })

  it('gives nothing for a span missing either end, and skips unusable prices', () => {
    const closes = [
      { at: T - MIN, priceDollars: 100 },
      { at: T, priceDollars: 101 },
    ]
    assert.equal(spanMeanOfCloses(closes.slice(1), T - MIN, T), null)
    assert.equal(spanMeanOfCloses(closes.slice(0, 1), T - MIN, T), null)
    assert.equal(
      spanMeanOfCloses([...closes, { at: T - 30_000, priceDollars: Number.NaN }], T - MIN, T)?.dollars,
      100.5,
    )
  })

  it('is the minutes’ own means where the feed saw every minute of the span whole', () => {
    // a minute that spiked inside: its two closes say 100.5, its 60 seconds said 102.25
    const closes = [
      { at: T - 2 * MIN, priceDollars: 99, meanDollars: 98.5 },
      { at: T - MIN, priceDollars: 100, meanDollars: 99.4 },
      { at: T, priceDollars: 101, meanDollars: 102.25 },
    ]
    assert.deepEqual(spanMeanOfCloses(closes, T - MIN, T), { dollars: 102.25, fromMeans: true })
    assert.deepEqual(spanMeanOfCloses(closes, T - 2 * MIN, T), {
      dollars: (99.4 + 102.25) / 2,
      fromMeans: true,
    })
  })

  it('falls back to the closes when any minute of the span has no mean of its own', () => {
    const closes = [
      { at: T - 2 * MIN, priceDollars: 99 },
      { at: T - MIN, priceDollars: 100 },
      { at: T, priceDollars: 101, meanDollars: 102.25 },
    ]
    assert.deepEqual(spanMeanOfCloses(closes, T - 2 * MIN, T), { dollars: 100, fromMeans: false })
    // the ends must still be there: a mean with no close before it is not used alone
    assert.equal(spanMeanOfCloses(closes.slice(2), T - MIN, T), null)
  })
})
