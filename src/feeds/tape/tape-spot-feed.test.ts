// The feed keeps each merged minute between readings (spot-feed.ts): a minute merged once must still
// change when any of its sources' minutes does — a candle filling a gap, a price that came in late.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Logger } from '../../ports/logger.ts'
import { createReplayClock } from './replay-clock.ts'
import { createTapeSpotFeed } from './tape-spot-feed.ts'

const MIN = 60_000
const M = Date.UTC(2026, 10, 30, 12) // a minute boundary
const silent = { warn() {}, info() {}, error() {}, debug() {} } as unknown as Logger

function world() {
  const clock = createReplayClock(M)
  const feed = createTapeSpotFeed({
    sources: ['coinbase', 'kraken', 'bitstamp'],
    maxAgeMs: 10_000,
    clock,
    logger: silent,
  })
  const price = (t: number, src: string, px: number) => {
    clock.advanceTo(t)
    feed.take({ t, k: 'spot', src, px })
  }
  return { clock, feed, price }
}

describe('createTapeSpotFeed › stampedClosesBefore, asked again after its minutes change', () => {
  it('takes in a candle that fills a minute one source had not closed', async () => {
    const { feed, price } = world()
    price(M + 10_000, 'coinbase', 100)
    price(M + 20_000, 'kraken', 110)
    price(M + MIN + 1_000, 'coinbase', 100)
    const before = await feed.stampedClosesBefore(M + MIN + 1_000, 1)
    assert.equal(before[0]?.priceDollars, 105, 'the median of two closes')
    feed.take({ t: M + MIN + 2_000, k: 'closes', src: 'bitstamp', c: [[M, 130]] })
    const after = await feed.stampedClosesBefore(M + MIN + 2_000, 1)
    assert.equal(after[0]?.priceDollars, 110, 'the median of three once the candle came')
  })

  it('takes in a later price of a minute already merged, and a minute no source had closed', async () => {
    const { feed, price } = world()
    price(M + 10_000, 'coinbase', 100)
    price(M + 20_000, 'kraken', 110)
    assert.deepEqual(
      (await feed.stampedClosesBefore(M + MIN, 2)).map((c) => c.priceDollars),
      [105],
      'the minute before M was closed by nobody and is left out',
    )
    // the same minute, asked for while it is still open, then again after more of it
    price(M + 40_000, 'kraken', 120)
    price(M + 50_000, 'bitstamp', 90)
    const after = await feed.stampedClosesBefore(M + MIN, 2)
    assert.deepEqual(
      after.map((c) => c.priceDollars),
      [100],
    )
    assert.ok(Object.isFrozen(after[0]), 'a kept minute is shared, so nobody may change it')
  })

  it('gives the same closes as a feed that never merged before', async () => {
    const a = world()
    const b = world()
    for (let s = 0; s < 300; s++) {
      for (const w of [a, b]) {
        w.price(M + s * 1_000, 'coinbase', 100 + Math.sin(s / 7) * 5)
        w.price(M + s * 1_000 + 300, 'kraken', 101 + Math.cos(s / 5) * 4)
        w.price(M + s * 1_000 + 600, 'bitstamp', 99 + Math.sin(s / 3) * 3)
      }
      // `a` is asked every second, `b` only at the end
      await a.feed.stampedClosesBefore(M + s * 1_000, 10)
    }
    assert.deepEqual(
      await a.feed.stampedClosesBefore(M + 300_000, 10),
      await b.feed.stampedClosesBefore(M + 300_000, 10),
    )
  })
})
