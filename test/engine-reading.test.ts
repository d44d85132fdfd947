// Tests of one model reading against the simulator: evaluated at the whole minute, published exactly.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MINUTE_MS } from '../src/domain/contest.ts'
import { EWMA_CLOSES, evaluateReading, MODEL_VERSION } from '../src/domain/model.ts'
import { liveContestFor } from '../src/engine/contest-steps.ts'
import { isSkipped, takeReading } from '../src/engine/reading.ts'
import { createSimPriceFeed } from '../src/feeds/sim/sim-price-feed.ts'
import { createSimVenue } from '../src/feeds/sim/sim-venue.ts'
import type { PriceFeed, Venue } from '../src/ports/venue.ts'

const SERIES = 'KXBTC15M'
const OPEN = Date.parse('2026-11-22T19:00:00Z')

async function setup() {
  const feed = createSimPriceFeed({ seed: 21 })
  const venue = createSimVenue({ seed: 21, feed, series: [SERIES] })
  const market = await venue.marketAt(SERIES, OPEN)
  assert.ok(market)
  return { feed, venue, contest: liveContestFor(market) }
}

describe('takeReading', () => {
  it('evaluates the model at the whole minute with the venue quote of that minute', async () => {
    const { feed, venue, contest } = await setup()
    const at = OPEN + 6 * MINUTE_MS
    const signal = await takeReading({ feed, venue }, contest, 6, at + 1_234)
    const quote = await venue.quote(contest.ticker, at)
    const spot = feed.spotAtSync(at)
    assert.ok(!isSkipped(signal) && quote && spot !== null)
    const expected = evaluateReading({
      spot,
      strike: contest.strikePriceDollars as number,
      closes: feed.minuteClosesBeforeSync(at, EWMA_CLOSES),
      minutesLeft: 9,
      quote,
    })
    assert.deepEqual(signal, {
      ticker: contest.ticker,
      minute: 6,
      raisedAt: at + 1_234,
      ...expected,
      outcome: 'pending',
      modelVersion: MODEL_VERSION,
    })
  })

  it('gives the same numbers however late the tick runs within the minute', async () => {
    const { feed, venue, contest } = await setup()
    const early = await takeReading({ feed, venue }, contest, 3, OPEN + 3 * MINUTE_MS + 5)
    const late = await takeReading({ feed, venue }, contest, 3, OPEN + 3 * MINUTE_MS + 59_000)
    assert.ok(!isSkipped(early) && !isSkipped(late))
    assert.deepEqual({ ...early, raisedAt: 0 }, { ...late, raisedAt: 0 })
  })

  it('keeps edge = confidence − entry on every minute', async () => {
    const { feed, venue, contest } = await setup()
    for (let minute = 1; minute <= 14; minute++) {
      const s = await takeReading({ feed, venue }, contest, minute, OPEN + minute * MINUTE_MS)
      assert.ok(!isSkipped(s))
      assert.ok(Math.abs(s.edgeCents - (s.confidence - s.entryPriceCents)) < 1e-9)
    }
  })

  it('skips the minute without a strike, a quote or a fresh spot, and says which', async () => {
    const { feed, venue, contest } = await setup()
    const at = OPEN + 2 * MINUTE_MS
    assert.deepEqual(await takeReading({ feed, venue }, { ...contest, strikePriceDollars: null }, 2, at), {
      skipped: 'no-strike',
    })
    assert.deepEqual(await takeReading({ feed, venue }, { ...contest, ticker: 'UNKNOWN-1' }, 2, at), {
      skipped: 'no-quote',
    })
    const bookless: Venue = { ...venue, quote: async () => ({ upAskCents: null, downAskCents: null }) }
    assert.deepEqual(await takeReading({ feed, venue: bookless }, contest, 2, at), { skipped: 'no-quote' })
    const stale: PriceFeed = { ...feed, spotAt: async () => null }
    assert.deepEqual(await takeReading({ feed: stale, venue }, contest, 2, at), { skipped: 'no-spot' })
  })

  it('reads on the only side that has an ask', async () => {
    const { feed, venue, contest } = await setup()
    const upOnly: Venue = { ...venue, quote: async () => ({ upAskCents: 99.5, downAskCents: null }) }
    const reading = await takeReading({ feed, venue: upOnly }, contest, 4, OPEN + 4 * MINUTE_MS)
    assert.ok(!isSkipped(reading))
    assert.equal(reading.side, 'up')
    assert.equal(reading.entryPriceCents, 99.5)
  })
})
