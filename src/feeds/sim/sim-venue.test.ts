// Tests of the simulated venue: markets every quarter, noisy quotes, delayed and occasionally odd results.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MINUTE_MS, sideForPrice } from '../../domain/contest.ts'
import { EWMA_CLOSES, evaluateReading } from '../../domain/model.ts'
import { formatTicker, QUARTER_MS } from '../../domain/ticker.ts'
import type { VenueMarket } from '../../ports/venue.ts'
import { createSimPriceFeed } from './sim-price-feed.ts'
import { createSimVenue } from './sim-venue.ts'

const SERIES = 'KXBTC15M'
const at = (iso: string): number => Date.parse(iso)
const START = at('2026-10-01T00:00:00Z')

function world(seed: number, series: readonly string[] = [SERIES]) {
  const feed = createSimPriceFeed({ seed })
  return { feed, venue: createSimVenue({ seed, feed, series }) }
}

async function marketAt(venue: ReturnType<typeof world>['venue'], t: number): Promise<VenueMarket> {
  const m = await venue.marketAt(SERIES, t)
  assert.ok(m)
  return m
}

describe('createSimVenue', () => {
  it('lists a market per configured series every quarter hour of the clock', async () => {
    const { feed, venue } = world(1, [SERIES, 'KXETH15M'])
    const t = at('2026-11-22T19:07:12Z')
    assert.deepEqual(await venue.marketAt(SERIES, t), {
      ticker: 'KXBTC15M-26NOV221415-15',
      series: SERIES,
      opensAt: at('2026-11-22T19:00:00Z'),
      expiresAt: at('2026-11-22T19:15:00Z'),
      strikePriceDollars: feed.spotAtSync(at('2026-11-22T19:00:00Z')),
      phase: 'trading',
    })
    assert.equal((await venue.marketAt('KXETH15M', t))?.ticker, 'KXETH15M-26NOV221415-15')
    assert.equal(await venue.marketAt('KXSOL15M', t), null)
    assert.equal(await venue.marketAt('kxbtc15m', t), null)
    assert.equal(venue.supportsHistory, true)
  })

  it("uses each window's settlement price as the next window's strike", async () => {
    const { venue } = world(2)
    for (let q = 0; q < 50; q++) {
      const m = await marketAt(venue, START + q * QUARTER_MS)
      const next = await marketAt(venue, m.expiresAt)
      const r = await venue.result(m.ticker, m.expiresAt + 90_000)
      if (r?.kind === 'settled' && r.priceDollars !== null)
        assert.equal(r.priceDollars, next.strikePriceDollars)
    }
  })

  it('quotes integer asks in [1, 99] with a 1–3 cent spread, only while the market is open', async () => {
    const { venue } = world(3)
    for (let q = 0; q < 100; q++) {
      const m = await marketAt(venue, START + q * QUARTER_MS)
      assert.equal(await venue.quote(m.ticker, m.opensAt - 1), null)
      assert.equal(await venue.quote(m.ticker, m.expiresAt), null)
      for (let t = m.opensAt; t < m.expiresAt; t += 37_000) {
        const quote = await venue.quote(m.ticker, t)
        assert.ok(quote)
        for (const ask of [quote.upAskCents!, quote.downAskCents!]) {
          assert.ok(Number.isInteger(ask) && ask >= 1 && ask <= 99)
        }
        const sum = quote.upAskCents! + quote.downAskCents!
        assert.ok(sum >= 100 && sum <= 104, `asks sum to ${sum}`)
      }
    }
  })

  it('yields published edges of both signs across many minutes', async () => {
    const { feed, venue } = world(4)
    let positive = 0
    let negative = 0
    for (let q = 0; q < 200; q++) {
      const m = await marketAt(venue, START + q * QUARTER_MS)
      for (let minute = 1; minute <= 14; minute++) {
        const t = m.opensAt + minute * MINUTE_MS
        const quote = await venue.quote(m.ticker, t)
        assert.ok(quote)
        const reading = evaluateReading({
          spot: feed.spotAtSync(t),
          strike: m.strikePriceDollars as number,
          closes: await feed.minuteClosesBefore(t, EWMA_CLOSES),
          minutesLeft: 15 - minute,
          quote,
        })
        if (reading.edgeCents > 0) positive++
        if (reading.edgeCents < 0) negative++
      }
    }
    assert.ok(positive > 200, `${positive} positive edges`)
    assert.ok(negative > 100, `${negative} negative edges`)
  })

  it('settles 30 to 90 s after close on the side of the closing spot versus the strike', async () => {
    const { feed, venue } = world(5)
    const delays = new Set<number>()
    for (let q = 0; q < 400; q++) {
      const m = await marketAt(venue, START + q * QUARTER_MS)
      assert.equal(await venue.result(m.ticker, m.expiresAt + 29_999), null)
      const final = await venue.result(m.ticker, m.expiresAt + 90_000)
      assert.ok(final)
      let delay = 30
      while ((await venue.result(m.ticker, m.expiresAt + delay * 1000)) === null) delay++
      delays.add(delay)
      assert.ok(delay >= 30 && delay <= 90)
      if (final.kind === 'settled') {
        const close = feed.spotAtSync(m.expiresAt)
        assert.equal(final.side, sideForPrice(close, m.strikePriceDollars as number))
        if (final.priceDollars !== null) assert.equal(final.priceDollars, close)
      }
    }
    assert.ok(delays.size > 40, `${delays.size} distinct delays`)
  })

  it('voids about 1 contest in 200 and omits the oracle price on about 1 in 200', async () => {
    const { venue } = world(6)
    let voids = 0
    let missing = 0
    const n = 20_000
    for (let q = 0; q < n; q++) {
      const m = await marketAt(venue, START + q * QUARTER_MS)
      const r = await venue.result(m.ticker, m.expiresAt + 90_000)
      assert.ok(r)
      if (r.kind === 'void') {
        voids++
        assert.equal(r.priceDollars, null)
      } else if (r.priceDollars === null) missing++
    }
    // 100 expected of each; ±4 sd
    assert.ok(voids > 60 && voids < 140, `${voids} voids`)
    assert.ok(missing > 60 && missing < 140, `${missing} missing prices`)
  })

  it('is reproducible from the seed and differs between seeds', async () => {
    const a = world(7)
    const b = world(7)
    const c = world(8)
    let differs = false
    for (let q = 0; q < 30; q++) {
      const t = START + q * QUARTER_MS + 5 * MINUTE_MS
      const ma = await marketAt(a.venue, t)
      assert.deepEqual(await marketAt(b.venue, t), ma)
      assert.deepEqual(await b.venue.quote(ma.ticker, t), await a.venue.quote(ma.ticker, t))
      assert.deepEqual(
        await b.venue.result(ma.ticker, ma.expiresAt + 90_000),
        await a.venue.result(ma.ticker, ma.expiresAt + 90_000),
      )
      const mc = await marketAt(c.venue, t)
      if (mc.strikePriceDollars !== ma.strikePriceDollars) differs = true
      if (
        JSON.stringify(await c.venue.quote(ma.ticker, t)) !==
        JSON.stringify(await a.venue.quote(ma.ticker, t))
      )
        differs = true
    }
    assert.ok(differs)
  })

  it('knows only the tickers it issued', async () => {
    const { venue } = world(9)
    const t = at('2026-11-22T19:07:12Z')
    const real = formatTicker(SERIES, at('2026-11-22T19:15:00Z'))
    assert.ok(await venue.quote(real, t))
    for (const unknown of [
      `${real}X`,
      'KXBTC15M-26NOV2214',
      formatTicker('KXETH15M', at('2026-11-22T19:15:00Z')),
      formatTicker(SERIES, at('2026-11-22T19:16:00Z')),
    ]) {
      assert.equal(await venue.quote(unknown, t), null, unknown)
      assert.equal(await venue.result(unknown, t + 3_600_000), null, unknown)
    }
  })
})
