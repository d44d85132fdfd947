// The Kalshi adapter against a fixture venue over real sockets: discovery, market views, quotes
// from the order book and settlement, as the engine sees them through the Venue port.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { NO_ANSWER, type QuoteAnswer } from '../src/ports/venue.ts'
import { fixtureTicker, makeMarket } from './fixtures/kalshi-fixture.ts'
import { MINUTE, SERIES, startKalshiVenueWorld } from './support/kalshi-venue-world.ts'
import { createManualClock } from './support/manual-clock.ts'
import { asksOf } from './support/venue-quote.ts'

// whole minutes, so fixture tickers (which carry the close minute) are distinct per window
const NOW = Math.floor(Date.now() / MINUTE) * MINUTE
const window = (startMinutes: number, minutes = 15) => ({
  openTime: NOW + startMinutes * MINUTE,
  closeTime: NOW + (startMinutes + minutes) * MINUTE,
})

describe('Kalshi venue › discovery', () => {
  it('lists each series once a poll, by close window, through every page to the "" cursor', async () => {
    const upcoming = [1, 2, 3, 4, 5].map((q) => makeMarket({ ...window(q * 15 - 5), status: 'initialized' }))
    const live = makeMarket({ ...window(-5), status: 'active', floorStrike: 68421.37 })
    const past = [
      makeMarket({ ...window(-20), status: 'closed' }),
      makeMarket({ ...window(-35), status: 'closed' }),
    ]
    const w = await startKalshiVenueWorld({
      fixture: { pageSize: 2, pageOverlap: 1 },
      seed: (k) => [...upcoming, live, ...past].forEach(k.addMarket),
    })
    try {
      const listings = w.requestsTo('/markets')
      // the window (closes from 15 minutes ago to 30 ahead) holds the just-closed, live and next
      // markets: 3, in pages of 2 overlapping by 1 → offsets 0 and 1, the last answering cursor ""
      assert.equal(listings.length, 2)
      assert.equal(listings[0]?.query.cursor, undefined)
      assert.ok(listings[1]?.query.cursor)
      for (const r of listings) {
        assert.equal(r.query.series_ticker, SERIES)
        assert.equal(r.query.status, undefined, 'close-time filters take no status')
        const nowS = r.at / 1000
        assert.ok(Math.abs(Number(r.query.min_close_ts) - (nowS - 900)) <= 2, r.query.min_close_ts)
        assert.ok(Math.abs(Number(r.query.max_close_ts) - (nowS + 1800)) <= 2, r.query.max_close_ts)
      }

      for (const m of [upcoming[0]!, live, past[0]!]) assert.ok(await w.venue.market(m.ticker, NOW), m.ticker)
      assert.deepEqual(await w.venue.market(live.ticker, NOW), {
        ticker: live.ticker,
        series: SERIES,
        opensAt: window(-5).openTime,
        expiresAt: window(-5).closeTime,
        strikePriceDollars: 68421.37,
        phase: 'trading',
        // what a bot trades it by (decisions §16): the market's ticker and its event's, as listed
        venue: {
          name: 'kalshi',
          refs: { marketTicker: live.ticker, eventTicker: live.ticker.replace(/-[^-]+$/, '') },
        },
      })
      assert.equal((await w.venue.market(upcoming[0]!.ticker, NOW))?.phase, 'upcoming')
      assert.equal((await w.venue.market(past[0]!.ticker, NOW))?.phase, 'closed')
      // outside the window: a day ahead is not downloaded; a result long awaited is looked up by ticker
      assert.equal(await w.venue.market(upcoming[4]!.ticker, NOW), null)
      assert.equal(await w.venue.market(past[1]!.ticker, NOW), null)
      await w.polls(2)
      assert.equal((await w.venue.market(past[1]!.ticker, NOW))?.phase, 'closed')
      assert.ok(w.requestsTo(`/markets/${past[1]!.ticker}`).length >= 1)
      assert.equal(w.requestsTo('/markets', { status: 'unopened' }).length, 0)
    } finally {
      await w.close()
    }
  })

  it('gives the trading or paused market whose window contains the instant, as the venue draws it', async () => {
    // a 7-minute window off the quarter hours: nothing about 15 minutes is assumed
    const live = makeMarket({ ...window(-3, 7), status: 'active' })
    const next = makeMarket({ ...window(4), status: 'initialized' })
    const w = await startKalshiVenueWorld({ seed: (k) => [live, next].forEach(k.addMarket) })
    try {
      assert.equal((await w.venue.marketAt(SERIES, NOW))?.ticker, live.ticker)
      assert.equal((await w.venue.marketAt(SERIES, NOW + 4 * MINUTE - 1))?.ticker, live.ticker)
      // the next window is known but not trading yet
      assert.equal(await w.venue.marketAt(SERIES, NOW + 4 * MINUTE), null)
      assert.equal(await w.venue.marketAt(SERIES, NOW - 3 * MINUTE - 1), null)
      assert.equal(await w.venue.marketAt('KXETH15M', NOW), null)

      w.kalshi.updateMarket(live.ticker, { status: 'inactive' })
      await w.polls(2)
      assert.equal((await w.venue.marketAt(SERIES, NOW))?.phase, 'paused')
      // a paused market is still in the close window: no lookup by ticker needed
      assert.equal(w.requestsTo(`/markets/${live.ticker}`).length, 0)
    } finally {
      await w.close()
    }
  })

  it('shows a strike set after the open, and a moved close time, on the next poll', async () => {
    const live = makeMarket({ ...window(-1), status: 'active' })
    const w = await startKalshiVenueWorld({ seed: (k) => k.addMarket(live) })
    try {
      assert.equal((await w.venue.market(live.ticker, NOW))?.strikePriceDollars, null)
      w.kalshi.updateMarket(live.ticker, { floor_strike: 83986.5, yes_sub_title: 'Target Price: $83,986.50' })
      await w.polls(2)
      assert.equal((await w.venue.market(live.ticker, NOW))?.strikePriceDollars, 83986.5)

      const earlier = NOW + 6 * MINUTE
      w.kalshi.updateMarket(live.ticker, { close_time: new Date(earlier).toISOString() })
      await w.polls(2)
      assert.equal((await w.venue.market(live.ticker, NOW))?.expiresAt, earlier)
      assert.equal(await w.venue.marketAt(SERIES, earlier), null)
    } finally {
      await w.close()
    }
  })

  it('knows nothing of a ticker no listing or lookup returned', async () => {
    const w = await startKalshiVenueWorld()
    try {
      assert.equal(await w.venue.market('KXBTC15M-26NOV221415-15', NOW), null)
      assert.equal(await w.venue.result('KXBTC15M-26NOV221415-15', NOW), null)
      assert.equal(await w.venue.quote('KXBTC15M-26NOV221415-15', NOW), null)
      assert.equal(w.venue.name, 'kalshi')
      assert.equal(w.venue.supportsHistory, false)
    } finally {
      await w.close()
    }
  })
})

describe('Kalshi venue › quotes', () => {
  const live = makeMarket({ ...window(-2), status: 'active', floorStrike: 68421.37 })

  it('derives asks from the opposite best bids, keeping sub-cent ticks', async () => {
    const w = await startKalshiVenueWorld({
      seed: (k) => {
        k.addMarket(live)
        k.setOrderbook(live.ticker, {
          yes: [
            ['0.0050', '1500.00'],
            ['0.0200', '10.00'],
          ],
          no: [
            ['0.5000', '3.00'],
            ['0.9650', '120.00'],
          ],
        })
      },
    })
    try {
      assert.deepEqual(asksOf(await w.venue.quote(live.ticker, NOW)), { upAskCents: 3.5, downAskCents: 98 })
      assert.deepEqual(
        w.telemetry.requests.filter((r) => r.endpoint === 'orderbook').map((r) => r.status),
        ['200'],
      )
    } finally {
      await w.close()
    }
  })

  it('has no ask on a side whose opposite book is empty, missing or null, and no quote when both are', async () => {
    const w = await startKalshiVenueWorld({
      seed: (k) => k.addMarket(live),
      venue: { orderbookMinIntervalMs: 0 },
    })
    try {
      const yes: Array<[string, string]> = [['0.4200', '13.00']]
      for (const book of [{ yes, no: [] }, { yes }, { yes, no: null }]) {
        w.kalshi.setOrderbook(live.ticker, book)
        assert.deepEqual(asksOf(await w.venue.quote(live.ticker, NOW)), {
          upAskCents: null,
          downAskCents: 58,
        })
      }
      for (const book of [{ yes: [], no: [] }, {}, { yes: null, no: null }]) {
        w.kalshi.setOrderbook(live.ticker, book)
        assert.equal(await w.venue.quote(live.ticker, NOW), null)
      }
    } finally {
      await w.close()
    }
  })

  it('asks the book at most once per interval per ticker, answering the rest from the last result', async () => {
    const clock = createManualClock(Date.now())
    const w = await startKalshiVenueWorld({
      seed: (k) => {
        k.addMarket(live)
        k.setOrderbook(live.ticker, { yes: [['0.4000', '1.00']], no: [['0.5500', '1.00']] })
      },
      venue: { orderbookMinIntervalMs: 300, wallClock: clock },
    })
    try {
      const fetchedAt = clock.now()
      const first = await Promise.all([1, 2, 3].map(() => w.venue.quote(live.ticker, NOW)))
      assert.deepEqual(first.map(asksOf), Array(3).fill({ upAskCents: 45, downAskCents: 60 }))
      const observedAt = (q: QuoteAnswer) => (q === null || q === NO_ANSWER ? q : q.observedAt)
      assert.equal(observedAt(first[0]!), fetchedAt, 'stamped when the book came back')
      w.kalshi.setOrderbook(live.ticker, { yes: [['0.4100', '1.00']], no: [['0.5500', '1.00']] })
      assert.deepEqual(asksOf(await w.venue.quote(live.ticker, NOW)), { upAskCents: 45, downAskCents: 60 })
      assert.equal(w.requestsTo(`/markets/${live.ticker}/orderbook`).length, 1)
      clock.advance(299)
      const shared = await w.venue.quote(live.ticker, NOW)
      assert.deepEqual(asksOf(shared), { upAskCents: 45, downAskCents: 60 })
      assert.equal(
        observedAt(shared),
        fetchedAt,
        'a shared answer keeps its instant, so the reading sees its age',
      )
      assert.equal(w.requestsTo(`/markets/${live.ticker}/orderbook`).length, 1)
      clock.advance(1)
      assert.deepEqual(asksOf(await w.venue.quote(live.ticker, NOW)), { upAskCents: 45, downAskCents: 59 })
      assert.equal(w.requestsTo(`/markets/${live.ticker}/orderbook`).length, 2)
    } finally {
      await w.close()
    }
  })

  it('never quotes a paused market, an upcoming one, or one past its close time', async () => {
    const paused = makeMarket({ ...window(-2), ticker: 'KXBTC15M-PAUSED', status: 'inactive' })
    const upcoming = makeMarket({ ...window(13), status: 'initialized' })
    // the venue still says active, but the wall clock is past close_time: its book is stale
    const overdue = makeMarket({ ...window(-16), status: 'active' })
    const w = await startKalshiVenueWorld({
      seed: (k) => {
        for (const m of [paused, upcoming, overdue]) {
          k.addMarket(m)
          k.setOrderbook(m.ticker, { yes: [['0.4000', '1.00']], no: [['0.5500', '1.00']] })
        }
      },
    })
    try {
      for (const m of [paused, upcoming, overdue])
        assert.equal(await w.venue.quote(m.ticker, NOW), null, m.ticker)
      assert.equal(w.kalshi.requests.filter((r) => r.path.endsWith('/orderbook')).length, 0)
    } finally {
      await w.close()
    }
  })

  it('stops quoting once the venue closes the market', async () => {
    const w = await startKalshiVenueWorld({
      seed: (k) => {
        k.addMarket(live)
        k.setOrderbook(live.ticker, { yes: [['0.4000', '1.00']], no: [['0.5500', '1.00']] })
      },
      venue: { orderbookMinIntervalMs: 0 },
    })
    try {
      assert.ok(await w.venue.quote(live.ticker, NOW))
      w.kalshi.updateMarket(live.ticker, { status: 'closed' })
      await w.polls(2)
      assert.equal(await w.venue.quote(live.ticker, NOW), null)
      assert.equal(w.requestsTo(`/markets/${live.ticker}/orderbook`).length, 1)
    } finally {
      await w.close()
    }
  })
})

describe('Kalshi venue › settlement', () => {
  it('settles yes as up and no as down on a final status, and waits on a blank result', async () => {
    const yes = makeMarket({
      ...window(-20),
      status: 'finalized',
      result: 'yes',
      expirationValue: '79,604.96',
    })
    const no = makeMarket({ ...window(-35), status: 'finalized', result: 'no', expirationValue: '68,433.05' })
    const blank = makeMarket({ ...window(-50), status: 'finalized', result: '' })
    const waiting = makeMarket({ ...window(-65), status: 'closed' })
    const disputed = makeMarket({
      ...window(-80),
      status: 'disputed',
      result: 'yes',
      expirationValue: '1.00',
    })
    const w = await startKalshiVenueWorld({
      seed: (k) => [yes, no, blank, waiting, disputed].forEach(k.addMarket),
    })
    try {
      // the engine asks about each; those past the close window are then looked up by ticker
      for (const m of [yes, no, blank, waiting, disputed]) await w.venue.result(m.ticker, NOW)
      await w.polls(2)
      assert.deepEqual(await w.venue.result(yes.ticker, NOW), {
        kind: 'settled',
        side: 'up',
        priceDollars: 79604.96,
      })
      assert.deepEqual(await w.venue.result(no.ticker, NOW), {
        kind: 'settled',
        side: 'down',
        priceDollars: 68433.05,
      })
      assert.equal(await w.venue.result(blank.ticker, NOW), null, 'missing data resolves No: never a void')
      assert.equal(await w.venue.result(waiting.ticker, NOW), null)
      assert.equal(await w.venue.result(disputed.ticker, NOW), null)
    } finally {
      await w.close()
    }
  })

  it('finds a result in the long tail, past the close window, by its ticker', async () => {
    const m = makeMarket({ ...window(-35), status: 'closed', floorStrike: 68421.37 })
    const w = await startKalshiVenueWorld({ seed: (k) => k.addMarket(m) })
    try {
      assert.equal(await w.venue.result(m.ticker, NOW), null)
      await w.polls(2)
      assert.equal(await w.venue.result(m.ticker, NOW), null)
      w.kalshi.updateMarket(m.ticker, {
        status: 'finalized',
        result: 'no',
        expiration_value: '68,400.10',
        settlement_ts: new Date().toISOString(),
      })
      await w.polls(2)
      assert.deepEqual(await w.venue.result(m.ticker, NOW), {
        kind: 'settled',
        side: 'down',
        priceDollars: 68400.1,
      })
      assert.equal((await w.venue.market(m.ticker, NOW))?.phase, 'closed')
      const lookups = w.requestsTo(`/markets/${m.ticker}`).length
      assert.ok(lookups >= 1)
      // decided: no longer followed
      await w.polls(2)
      assert.equal(w.requestsTo(`/markets/${m.ticker}`).length, lookups)
    } finally {
      await w.close()
    }
  })

  it('looks up a ticker the engine asks about that no listing shows, until its result appears', async () => {
    const ticker = fixtureTicker(SERIES, NOW - 30 * MINUTE)
    const w = await startKalshiVenueWorld()
    try {
      assert.equal(await w.venue.result(ticker, NOW), null)
      await w.polls(2)
      assert.ok(w.requestsTo(`/markets/${ticker}`).length >= 1, 'looked up while unknown (404)')
      w.kalshi.addMarket(
        makeMarket({
          ...window(-45),
          ticker,
          status: 'finalized',
          result: 'yes',
          expirationValue: '70000.00',
        }),
      )
      await w.polls(2)
      assert.deepEqual(await w.venue.result(ticker, NOW), {
        kind: 'settled',
        side: 'up',
        priceDollars: 70000,
      })
      assert.equal((await w.venue.market(ticker, NOW))?.series, SERIES)
    } finally {
      await w.close()
    }
  })
})
