// Tests of the simulated venue: Kalshi's markets every quarter, strike and settlement by the written
// rule, the crowd's book on the tapered grid, the weekly pause, and delayed, occasionally odd results.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MINUTE_MS } from '../../domain/contest.ts'
import { formatTicker, QUARTER_MS } from '../../domain/ticker.ts'
import type { VenueMarket } from '../../ports/venue.ts'
import { parseMarket } from '../kalshi/market.ts'
import { asksFromOrderbook } from '../kalshi/orderbook.ts'
import { createSimOracle } from './oracle.ts'
import { sixtySecondMeanCents } from './settlement-rule.ts'
import { withParams } from './sim-params.ts'
import { createSimPriceFeed } from './sim-price-feed.ts'
import { createSimVenue } from './sim-venue.ts'
import { createSimWorld, sharedSimWorld } from './sim-world.ts'
import { isOnGrid, stepUp } from './tick-grid.ts'

const SERIES = 'KXBTC15M'
const at = (iso: string): number => Date.parse(iso)
const START = at('2026-10-01T00:00:00Z')

function world(seed: number, series: readonly string[] = [SERIES]) {
  return { venue: createSimVenue({ seed, series }), oracle: createSimOracle({ seed }) }
}

async function marketAt(venue: ReturnType<typeof world>['venue'], t: number): Promise<VenueMarket> {
  const m = await venue.marketAt(SERIES, t)
  assert.ok(m)
  return m
}

describe('createSimVenue', () => {
  it('lists a market per configured series every quarter hour of the clock', async () => {
    const { venue, oracle } = world(1, [SERIES, 'KXETH15M'])
    const t = at('2026-11-22T19:07:12Z')
    assert.deepEqual(await venue.marketAt(SERIES, t), {
      ticker: 'KXBTC15M-26NOV221415-15',
      series: SERIES,
      opensAt: at('2026-11-22T19:00:00Z'),
      expiresAt: at('2026-11-22T19:15:00Z'),
      strikePriceDollars: oracle.strikeDollars(at('2026-11-22T19:15:00Z')),
      phase: 'trading',
      // the simulator presents Kalshi's market, so a bot finds Kalshi's references on it
      venue: {
        name: 'kalshi',
        refs: { marketTicker: 'KXBTC15M-26NOV221415-15', eventTicker: 'KXBTC15M-26NOV221415' },
      },
    })
    assert.equal((await venue.marketAt('KXETH15M', t))?.ticker, 'KXETH15M-26NOV221415-15')
    assert.equal(await venue.marketAt('KXSOL15M', t), null)
    assert.equal(await venue.marketAt('kxbtc15m', t), null)
    assert.equal(venue.supportsHistory, true)
  })

  it('presents markets as Kalshi does: no strike before the open, floor_strike then, expiration_value once finalized', () => {
    const w = sharedSimWorld(2)
    const c = w.contest(SERIES, at('2026-11-22T19:15:00Z'))
    const before = w.marketBody(c, c.opensAt - 1)
    assert.equal(before.status, 'initialized')
    assert.equal(before.floor_strike, undefined)
    assert.equal(before.yes_sub_title, 'Target price: TBD')
    const live = w.marketBody(c, c.opensAt + 5 * MINUTE_MS)
    assert.equal(live.status, 'active')
    assert.equal(live.floor_strike, c.strikeCents / 100)
    assert.match(String(live.yes_sub_title), /^Target Price: \$\d{1,3}(,\d{3})*\.\d{2}$/)
    assert.equal(live.expiration_value, '')
    assert.equal(w.marketBody(c, c.expiresAt).status, 'closed')
    const done = w.marketBody(c, c.decidedAt)
    assert.equal(done.status, 'finalized')
    assert.equal(done.expiration_value, (c.settlementCents / 100).toFixed(2))
    assert.equal(done.result, c.settlementCents >= c.strikeCents ? 'yes' : 'no')
    for (const body of [before, live, done]) assert.ok(parseMarket(body).ok)
  })

  it('sets the strike and the settlement by the rule: the 60-s index means before the open and the close', async () => {
    const { venue, oracle } = world(2)
    const w = oracle.world
    let compared = 0
    for (let q = 0; q < 60; q++) {
      const m = await marketAt(venue, START + q * QUARTER_MS)
      assert.equal(m.strikePriceDollars, sixtySecondMeanCents(w.index.printCents, m.opensAt) / 100)
      const r = await venue.result(m.ticker, m.expiresAt + 90_000)
      assert.ok(r)
      if (r.kind !== 'settled') continue
      const value = sixtySecondMeanCents(w.index.printCents, m.expiresAt) / 100
      assert.equal(r.side, value >= (m.strikePriceDollars as number) ? 'up' : 'down')
      if (r.priceDollars !== null) assert.equal(r.priceDollars, value)
      // one window's settlement value is the next window's strike
      assert.equal((await marketAt(venue, m.expiresAt)).strikePriceDollars, value)
      compared++
    }
    assert.ok(compared > 50)
  })

  it('settles a tie up (YES): a flat index gives strike = settlement on every window', async () => {
    const params = withParams({ index: { sigmaPerMinute: 1e-12, jumpsPerDay: 0 } })
    const flat = createSimWorld(3, params)
    const venue = createSimVenue({ seed: 3, series: [SERIES], world: flat })
    let ties = 0
    for (let q = 0; q < 40; q++) {
      const m = await marketAt(venue, START + q * QUARTER_MS)
      const r = await venue.result(m.ticker, m.expiresAt + 90_000)
      assert.ok(r)
      if (r.kind !== 'settled') continue
      assert.equal(
        flat.contest(SERIES, m.expiresAt).settlementCents,
        flat.contest(SERIES, m.expiresAt).strikeCents,
      )
      assert.equal(r.side, 'up')
      ties++
    }
    assert.ok(ties > 35)
  })

  it('quotes on the tapered grid with a spread of 1–3 steps, and sub-cent asks near 0 and 100', async () => {
    const w = sharedSimWorld(4)
    const venue = createSimVenue({ seed: 4, series: [SERIES] })
    const spreads = new Set<number>()
    let subCent = 0
    let oneSided = 0
    for (let q = 0; q < 150; q++) {
      const c = w.contest(SERIES, START + (q + 1) * QUARTER_MS)
      if (!w.tradingActive(c.opensAt)) continue
      assert.equal(await venue.quote(c.ticker, c.opensAt - 1), null)
      assert.equal(await venue.quote(c.ticker, c.expiresAt), null)
      for (let t = c.opensAt; t < c.expiresAt; t += 37_000) {
        const { orderbook_fp: ob } = w.orderbookBody(c, t)
        if (ob.yes_dollars.length === 0 || ob.no_dollars.length === 0) {
          // one-sided only near the extremes: the long shot's bids are gone, its ask at the bottom
          const present = ob.yes_dollars.length > 0 ? ob.yes_dollars : ob.no_dollars
          assert.ok(present.length > 0, 'never both sides empty while trading')
          assert.ok(Number(present.at(-1)?.[0]) >= 0.99, `one-sided at ${present.at(-1)?.[0]}`)
          oneSided++
          continue
        }
        for (const side of [ob.yes_dollars, ob.no_dollars]) {
          assert.ok(side.length > 0)
          const prices = side.map(([p]) => Math.round(Number(p) * 1_000_000))
          for (const p of prices) assert.ok(isOnGrid(p), `${p} is off the grid`)
          for (const [, n] of side) assert.match(n as string, /^\d+\.\d{2}$/)
          assert.deepEqual(
            prices,
            [...prices].sort((a, b) => a - b),
            'ascending, best last',
          )
        }
        const bid = Math.round(Number(ob.yes_dollars.at(-1)?.[0]) * 1_000_000)
        const ask = 1_000_000 - Math.round(Number(ob.no_dollars.at(-1)?.[0]) * 1_000_000)
        let steps = 0
        for (let p = bid; p < ask; p = stepUp(p)) steps++
        assert.ok(steps >= 1 && steps <= 3, `${steps} steps between ${bid} and ${ask}`)
        spreads.add(steps)
        const quote = await venue.quote(c.ticker, t)
        assert.ok(quote)
        // the port's quote is the Kalshi adapter's reading of the body a tape would carry
        const parsed = asksFromOrderbook(w.orderbookBody(c, t))
        assert.ok(parsed.ok)
        assert.deepEqual(quote, parsed.value)
        assert.equal(quote.upAskCents, ask / 10_000)
        assert.equal(quote.downAskCents, (1_000_000 - bid) / 10_000)
        if (!Number.isInteger(quote.upAskCents) || !Number.isInteger(quote.downAskCents)) subCent++
      }
    }
    assert.deepEqual([...spreads].sort(), [1, 2, 3])
    assert.ok(oneSided > 0, 'some books near the extremes are one-sided')
    assert.ok(subCent > 20, `${subCent} quotes with a sub-cent ask`)
  })

  it('stops quoting during the weekly pause, Thursday 03:00–05:00 New York time, in winter and in summer', async () => {
    const w = sharedSimWorld(5)
    const venue = createSimVenue({ seed: 5, series: [SERIES] })
    for (const [from, to] of [
      [at('2026-11-26T08:00:00Z'), at('2026-11-26T10:00:00Z')], // EST
      [at('2026-07-02T07:00:00Z'), at('2026-07-02T09:00:00Z')], // EDT
    ] as const) {
      for (let t = from - QUARTER_MS; t < to + QUARTER_MS; t += MINUTE_MS) {
        const m = await marketAt(venue, t)
        const paused = t >= from && t < to
        assert.equal(w.tradingActive(t), !paused, new Date(t).toISOString())
        assert.equal((await venue.quote(m.ticker, t)) === null, paused, new Date(t).toISOString())
        const status = w.exchangeStatusBody(t)
        assert.equal(status.trading_active, !paused)
        if (paused)
          assert.equal(
            status.exchange_estimated_resume_time,
            new Date(to).toISOString().replace('.000Z', 'Z'),
          )
        // the market itself stays listed with its strike (venue facts §1.13)
        assert.equal(m.phase, 'trading')
      }
    }
  })

  it('shows the previous minute’s book at the start of about 3 % of minutes', () => {
    const w = sharedSimWorld(6)
    let stale = 0
    let minutes = 0
    for (let q = 0; q < 300; q++) {
      const c = w.contest(SERIES, START + (q + 1) * QUARTER_MS)
      if (!w.tradingActive(c.opensAt)) continue
      for (let minute = 1; minute < 15; minute++) {
        const boundary = c.opensAt + minute * MINUTE_MS
        minutes++
        const now = JSON.stringify(w.orderbookBody(c, boundary + 100))
        if (now === JSON.stringify(w.orderbookBody(c, boundary - 1000))) {
          stale++
          assert.notEqual(JSON.stringify(w.orderbookBody(c, boundary + 20_000)), now)
        }
      }
    }
    const rate = stale / minutes
    assert.ok(rate > 0.015 && rate < 0.05, `${stale} of ${minutes} minutes opened stale`)
  })

  it('settles 30 to 90 s after close', async () => {
    const { venue } = world(5)
    const delays = new Set<number>()
    for (let q = 0; q < 300; q++) {
      const m = await marketAt(venue, START + q * QUARTER_MS)
      assert.equal(await venue.result(m.ticker, m.expiresAt + 29_999), null)
      assert.ok(await venue.result(m.ticker, m.expiresAt + 90_000))
      let delay = 30
      while ((await venue.result(m.ticker, m.expiresAt + delay * 1000)) === null) delay++
      delays.add(delay)
      assert.ok(delay >= 30 && delay <= 90)
      assert.equal((await venue.market(m.ticker, m.expiresAt + delay * 1000 - 1))?.phase, 'closed')
    }
    assert.ok(delays.size > 40, `${delays.size} distinct delays`)
  })

  it('voids about 1 contest in 200 and omits the settlement value on about 1 in 200', async () => {
    const { venue } = world(6)
    let voids = 0
    let missing = 0
    const n = 8_000
    for (let q = 0; q < n; q++) {
      const ticker = formatTicker(SERIES, START + (q + 1) * QUARTER_MS)
      const r = await venue.result(ticker, START + (q + 1) * QUARTER_MS + 90_000)
      assert.ok(r)
      if (r.kind === 'void') {
        voids++
        assert.equal(r.priceDollars, null)
      } else if (r.priceDollars === null) missing++
    }
    // 40 expected of each; ±4 sd
    assert.ok(voids > 15 && voids < 65, `${voids} voids`)
    assert.ok(missing > 15 && missing < 65, `${missing} missing prices`)
  })

  it('is reproducible from the seed in any order, and differs between seeds', async () => {
    const instants = Array.from({ length: 30 }, (_, q) => START + q * 7 * QUARTER_MS + 5 * MINUTE_MS + 1234)
    const answers = async (seed: number, order: readonly number[]) => {
      // a world of its own, not the shared one, so nothing is memoised between the two runs
      const venue = createSimVenue({ seed, series: [SERIES], world: createSimWorld(seed) })
      const out = new Map<number, string>()
      for (const t of order) {
        const m = await marketAt(venue, t)
        out.set(
          t,
          JSON.stringify([
            m,
            await venue.quote(m.ticker, t),
            await venue.result(m.ticker, m.expiresAt + 90_000),
          ]),
        )
      }
      return instants.map((t) => out.get(t))
    }
    const forward = await answers(7, instants)
    assert.deepEqual(await answers(7, [...instants].reverse()), forward)
    const other = await answers(8, instants)
    assert.ok(other.every((a, i) => a !== forward[i]))
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

  it('accepts the feed it used to be given', async () => {
    const feed = createSimPriceFeed({ seed: 10 })
    const venue = createSimVenue({ seed: 10, feed, series: [SERIES] })
    assert.deepEqual(await venue.marketAt(SERIES, START), await world(10).venue.marketAt(SERIES, START))
  })
})
