// Tests of one model reading against the simulator: evaluated at the whole minute, published exactly.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MINUTE_MS } from '../src/domain/contest.ts'
import { EWMA_CLOSES, evaluateReading, MODEL_VERSION } from '../src/domain/model.ts'
import { liveContestFor } from '../src/engine/contest-steps.ts'
import { takeReading } from '../src/engine/reading.ts'
import { createSimPriceFeed } from '../src/feeds/sim/sim-price-feed.ts'
import { createSimVenue } from '../src/feeds/sim/sim-venue.ts'

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
    assert.ok(signal && quote)
    const expected = evaluateReading({
      spot: feed.spotAtSync(at),
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
    assert.ok(early && late)
    assert.deepEqual({ ...early, raisedAt: 0 }, { ...late, raisedAt: 0 })
  })

  it('keeps edge = confidence − entry on every minute', async () => {
    const { feed, venue, contest } = await setup()
    for (let minute = 1; minute <= 14; minute++) {
      const s = await takeReading({ feed, venue }, contest, minute, OPEN + minute * MINUTE_MS)
      assert.ok(s)
      assert.ok(Math.abs(s.edgeCents - (s.confidence - s.entryPriceCents)) < 1e-9)
    }
  })

  it('raises nothing without a strike or a quote', async () => {
    const { feed, venue, contest } = await setup()
    assert.equal(await takeReading({ feed, venue }, { ...contest, strikePriceDollars: null }, 2, OPEN), null)
    assert.equal(await takeReading({ feed, venue }, { ...contest, ticker: 'UNKNOWN-1' }, 2, OPEN), null)
  })
})
