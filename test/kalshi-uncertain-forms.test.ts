// Each fact the venue reference marks uncertain [U] (or "may be X or Y") that the Kalshi adapter reads,
// served by the fixture venue in every form the reference allows: each form is read the same way, and
// none is mistaken for another (docs/venues.md, "Uncertain venue facts: the forms accepted").
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { makeMarket } from './fixtures/kalshi-fixture.ts'
import { MINUTE, SERIES, startKalshiVenueWorld } from './support/kalshi-venue-world.ts'
import { asksOf } from './support/venue-quote.ts'
import { eventually } from './support/wait.ts'

const NOW = Math.floor(Date.now() / MINUTE) * MINUTE
/** A wall clock standing at `iso` and running on at the wall clock's pace. */
const clockAt = (iso: string) => {
  const offset = Date.parse(iso) - Date.now()
  return { now: () => Date.now() + offset }
}
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday']
const week = (day: (name: string) => unknown[]) => ({
  start_time: '2026-01-01T00:00:00Z',
  end_time: '2027-12-31T00:00:00Z',
  ...Object.fromEntries(DAYS.map((d) => [d, day(d)])),
})
const allDay = [{ open_time: '00:00', close_time: '24:00' }]
const window = (startMinutes: number, minutes = 15) => ({
  openTime: NOW + startMinutes * MINUTE,
  closeTime: NOW + (startMinutes + minutes) * MINUTE,
})

describe('Kalshi › uncertain facts, every form', () => {
  for (const lastCursor of ['', null, 'absent'] as const) {
    it(`ends a listing on a last cursor sent as ${JSON.stringify(lastCursor)}, with every page read once`, async () => {
      const markets = [
        makeMarket({ ...window(-20), status: 'closed' }),
        makeMarket({ ...window(-5), status: 'active', floorStrike: 68421.37 }),
        makeMarket({ ...window(10), status: 'initialized' }),
      ]
      const w = await startKalshiVenueWorld({
        fixture: { pageSize: 2, lastCursor },
        seed: (k) => markets.forEach(k.addMarket),
      })
      try {
        await w.polls(2)
        for (const m of markets) assert.ok(await w.venue.market(m.ticker, NOW), m.ticker)
        // each poll: the first page and the last, never the first again
        const listings = w.requestsTo('/markets').filter((r) => r.query.min_close_ts !== undefined)
        const firsts = listings.filter((r) => !r.query.cursor).length
        assert.ok(listings.length <= 2 * firsts + 1, `${listings.length} listings for ${firsts} polls`)
      } finally {
        await w.close()
      }
    })
  }

  it('uses a listing the venue cuts short (a cursor handed back again) and counts it where metrics see it', async () => {
    const markets = [
      makeMarket({ ...window(-20), status: 'closed' }),
      makeMarket({ ...window(-5), status: 'active', floorStrike: 68421.37 }),
      makeMarket({ ...window(10), status: 'initialized' }),
    ]
    const w = await startKalshiVenueWorld({
      fixture: { pageSize: 2, cursorCycle: true },
      seed: (k) => markets.forEach(k.addMarket),
    })
    try {
      await w.polls(2)
      for (const m of markets) assert.ok(await w.venue.market(m.ticker, NOW), m.ticker)
      assert.ok(
        w.rejected.some((r) => r.endpoint === 'markets' && r.field === 'cursor'),
        JSON.stringify(w.rejected),
      )
    } finally {
      await w.close()
    }
  })

  it('follows the live and next windows, and the last result, whether the close bounds include their ends or not', async () => {
    const closed = makeMarket({ ...window(-20), status: 'closed' })
    const live = makeMarket({ ...window(-5), status: 'active', floorStrike: 68421.37 })
    const next = makeMarket({ ...window(10), status: 'initialized' })
    const w = await startKalshiVenueWorld({
      fixture: { closeBounds: 'exclusive' },
      seed: (k) => [closed, live, next].forEach(k.addMarket),
    })
    try {
      assert.equal((await w.venue.marketAt(SERIES, NOW))?.ticker, live.ticker)
      assert.equal((await w.venue.market(next.ticker, NOW))?.phase, 'upcoming')
      w.kalshi.updateMarket(closed.ticker, {
        status: 'finalized',
        result: 'yes',
        expiration_value: '68421.37',
      })
      await w.polls(2)
      assert.deepEqual(await w.venue.result(closed.ticker, NOW), {
        kind: 'settled',
        side: 'up',
        priceDollars: 68421.37,
      })
    } finally {
      await w.close()
    }
  })

  for (const [form, floorStrike] of [
    ['absent', undefined],
    ['null', null],
  ] as const) {
    it(`reads a floor_strike ${form} before it is set as no strike yet, then the strike`, async () => {
      const live = makeMarket({ ...window(-1), status: 'active', floorStrike })
      assert.equal('floor_strike' in live, floorStrike === null)
      const w = await startKalshiVenueWorld({ seed: (k) => k.addMarket(live) })
      try {
        assert.equal((await w.venue.market(live.ticker, NOW))?.strikePriceDollars, null)
        w.kalshi.updateMarket(live.ticker, { floor_strike: 83986.5 })
        await w.polls(2)
        assert.equal((await w.venue.market(live.ticker, NOW))?.strikePriceDollars, 83986.5)
      } finally {
        await w.close()
      }
    })
  }

  it('reads the quote fields of an initialized market as sent, null among them, without rejecting it', async () => {
    const quotes = [
      'yes_bid_dollars',
      'yes_ask_dollars',
      'no_bid_dollars',
      'no_ask_dollars',
      'last_price_dollars',
    ]
    const upcoming = makeMarket({
      ...window(10),
      status: 'initialized',
      extra: Object.fromEntries(quotes.map((q) => [q, null])),
    })
    const w = await startKalshiVenueWorld({ seed: (k) => k.addMarket(upcoming) })
    try {
      assert.equal((await w.venue.market(upcoming.ticker, NOW))?.phase, 'upcoming')
      assert.deepEqual(w.rejected, [])
    } finally {
      await w.close()
    }
  })

  it('reads book prices with 2, 4 or 6 decimals alike, and counts with more than 2 decimals', async () => {
    const live = makeMarket({ ...window(-2), status: 'active', floorStrike: 68421.37 })
    const w = await startKalshiVenueWorld({
      seed: (k) => k.addMarket(live),
      venue: { orderbookMinIntervalMs: 0 },
    })
    try {
      for (const [yesBid, noBid] of [
        ['0.42', '0.55'],
        ['0.4200', '0.5500'],
        ['0.420000', '0.550000'],
      ] as const) {
        w.kalshi.setOrderbook(live.ticker, {
          yes: [
            ['0.1000', '5.00'],
            [yesBid, '0.005'],
          ],
          no: [[noBid, '13.125']],
        })
        assert.deepEqual(asksOf(await w.venue.quote(live.ticker, NOW)), { upAskCents: 45, downAskCents: 58 })
      }
      // a sixth decimal is a price of its own, not rounded into the cent
      w.kalshi.setOrderbook(live.ticker, { yes: [['0.965432', '1.00']], no: [['0.0010', '2.00']] })
      assert.deepEqual(asksOf(await w.venue.quote(live.ticker, NOW)), {
        upAskCents: 99.9,
        downAskCents: 3.4568,
      })
    } finally {
      await w.close()
    }
  })

  it('reads the legacy status words open and settled as trading and final', async () => {
    const open = makeMarket({ ...window(-2), status: 'open', floorStrike: 68421.37 })
    const settled = makeMarket({
      ...window(-20),
      status: 'settled',
      result: 'no',
      expirationValue: '68,400.10',
    })
    const w = await startKalshiVenueWorld({ seed: (k) => [open, settled].forEach(k.addMarket) })
    try {
      assert.equal((await w.venue.market(open.ticker, NOW))?.phase, 'trading')
      assert.deepEqual(await w.venue.result(settled.ticker, NOW), {
        kind: 'settled',
        side: 'down',
        priceDollars: 68400.1,
      })
    } finally {
      await w.close()
    }
  })

  // how the venue lists the Thursday pause is undocumented (§1.13): as maintenance windows
  // (kalshi-operating.test.ts), as a gap in the standard hours, or not at all
  for (const [form, at, schedule] of [
    [
      'a gap in the standard hours',
      '2026-03-03T15:00:00Z', // Tuesday 10:00 EST
      week((d) =>
        d === 'tuesday'
          ? [
              { open_time: '00:00', close_time: '09:00' },
              { open_time: '11:00', close_time: '24:00' },
            ]
          : allDay,
      ),
    ],
    ['not listed at all (the Thursday window)', '2026-03-05T09:00:00Z', week(() => allDay)], // Thursday 04:00 EST
  ] as const) {
    it(`reports a pause the schedule shows as ${form} as scheduled`, async () => {
      const live = makeMarket({ ...window(-3), status: 'active', floorStrike: 68_000 })
      const w = await startKalshiVenueWorld({
        seed: (k) => {
          k.addMarket(live)
          k.setSchedule({ standard_hours: [schedule], maintenance_windows: [] })
          k.setExchangeStatus({ exchange_active: true, trading_active: false })
        },
        venue: { wallClock: clockAt(at) },
      })
      try {
        const status = await eventually(
          () => w.venue.status(),
          (s) => s.check === 'paused',
        )
        assert.equal(status.scheduledPause, true)
        assert.equal(w.venue.tradingPaused(Date.now(), SERIES), true)
      } finally {
        await w.close()
      }
    })
  }
})
