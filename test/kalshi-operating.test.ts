// Running on Kalshi for real (decisions §8), the adapter against the fixture venue over real sockets:
// the close-window listing and the bytes it saves, the exchange's pause, settling only on a final
// result, unknown statuses, quotes that stop parsing, and the client's own manners.

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { KALSHI_USER_AGENT } from '../src/feeds/kalshi/kalshi-client.ts'
import { NO_ANSWER } from '../src/ports/venue.ts'
import { makeMarket } from './fixtures/kalshi-fixture.ts'
import { MINUTE, SERIES, startKalshiVenueWorld } from './support/kalshi-venue-world.ts'
import { asksOf } from './support/venue-quote.ts'
import { eventually } from './support/wait.ts'

const QUARTER = 15 * MINUTE
const NOW = Math.floor(Date.now() / MINUTE) * MINUTE
const window = (startMinutes: number, minutes = 15) => ({
  openTime: NOW + startMinutes * MINUTE,
  closeTime: NOW + (startMinutes + minutes) * MINUTE,
})
/** A Monday noon in New York (no pause scheduled), running on from there at the wall clock's pace. */
const mondayNoon = () => {
  const offset = Date.parse('2026-03-02T17:00:00Z') - Date.now()
  return { now: () => Date.now() + offset }
}

describe('Kalshi on the real venue › listing economically', () => {
  it('moves a few markets a poll where the unopened listing moved a day of them', async () => {
    const current = Math.floor(Date.now() / QUARTER) * QUARTER
    const w = await startKalshiVenueWorld({
      seed: (k) => {
        // a day of finalized windows behind, the live one, and a day of initialized ones ahead
        // (venue facts §2.3)
        for (let open = current - 96 * QUARTER; open <= current + 95 * QUARTER; open += QUARTER) {
          const past = open + QUARTER <= Date.now()
          k.addMarket(
            makeMarket({
              openTime: open,
              closeTime: open + QUARTER,
              status: past ? 'finalized' : open <= Date.now() ? 'active' : 'initialized',
              ...(past ? { result: 'yes', expirationValue: '68100.00', floorStrike: 68_000 } : {}),
            }),
          )
        }
      },
    })
    try {
      await w.polls(3)
      const listings = w.requestsTo('/markets')
      const perPoll = listings.filter((r) => !r.query.cursor)
      // one request a poll: no page beyond the first, no lookup by ticker, no unopened listing
      assert.equal(listings.length, perPoll.length)
      assert.equal(w.kalshi.requests.filter((r) => /\/markets\/[^/]+$/.test(r.path)).length, 0)
      const pollBytes = Math.max(...perPoll.map((r) => r.bytes))
      // what the unopened listing alone costs on the same venue, asked directly
      const before = await fetch(
        `${w.kalshi.baseUrl}/markets?series_ticker=${SERIES}&status=unopened&limit=200`,
      )
      const unopenedBytes = (await before.arrayBuffer()).byteLength
      assert.ok(unopenedBytes > 150_000, `unopened listing ${unopenedBytes} B`)
      assert.ok(pollBytes * 20 < unopenedBytes, `a close-window poll moved ${pollBytes} B`)
      const markets = JSON.parse(await (await fetch(listingUrl(perPoll.at(-1)!, w.kalshi.baseUrl))).text())
      assert.ok(markets.markets.length >= 3 && markets.markets.length <= 4)
    } finally {
      await w.close()
    }
  })
})

const listingUrl = (r: { query: Record<string, string> }, base: string) =>
  `${base}/markets?${new URLSearchParams(r.query).toString()}`

describe('Kalshi on the real venue › the exchange’s trading pause', () => {
  const live = makeMarket({ ...window(-3), status: 'active', floorStrike: 68_000 })

  it('reads trading_active: paused while the venue says so though the market stays active', async () => {
    const w = await startKalshiVenueWorld({ seed: (k) => k.addMarket(live) })
    try {
      assert.equal(w.venue.tradingPaused(Date.now(), SERIES), false)
      const now = Date.now()
      w.kalshi.setSchedule({
        standard_hours: [],
        maintenance_windows: [
          {
            start_datetime: new Date(now - 60_000).toISOString(),
            end_datetime: new Date(now + 3_600_000).toISOString(),
          },
        ],
      })
      w.kalshi.setExchangeStatus({ exchange_active: true, trading_active: false })
      await w.polls(2)
      assert.equal(w.venue.tradingPaused(Date.now(), SERIES), true)
      assert.equal(
        (await w.venue.marketAt(SERIES, NOW))?.phase,
        'trading',
        'the market itself still says active',
      )
      // the schedule read at start had no window: trading stopping makes the venue read it again, so a
      // pause announced minutes before it began is known as scheduled (health stays ok)
      assert.deepEqual([w.venue.status().check, w.venue.status().scheduledPause], ['paused', true])
      assert.equal(w.requestsTo('/exchange/schedule').length, 2)

      w.kalshi.setExchangeStatus({ exchange_active: true, trading_active: true })
      await w.polls(2)
      assert.equal(w.venue.tradingPaused(Date.now(), SERIES), false)
      assert.equal(w.venue.status().check, 'ok')
    } finally {
      await w.close()
    }
  })

  it('reports a pause the schedule lists as scheduled, even when the venue answers 503 meanwhile', async () => {
    const now = Date.now()
    const w = await startKalshiVenueWorld({
      seed: (k) => {
        k.addMarket(live)
        k.setSchedule({
          standard_hours: [],
          maintenance_windows: [
            {
              start_datetime: new Date(now - 60_000).toISOString(),
              end_datetime: new Date(now + 3_600_000).toISOString(),
            },
          ],
        })
      },
      venue: { downAfterMs: 300 },
    })
    try {
      // the status body comes with the 503, as the venue's OpenAPI lists it
      w.kalshi.setExchangeStatus({ exchange_active: false, trading_active: false }, 503)
      w.kalshi.failNext(1_000_000, 503, { path: /\/markets/ })
      const status = await eventually(
        () => w.venue.status(),
        (s) => s.state === 'down',
      )
      assert.deepEqual([status.check, status.scheduledPause], ['paused', true])
      assert.equal(w.venue.tradingPaused(Date.now(), SERIES), true)
    } finally {
      await w.close()
    }
  })

  it('reports an unscheduled 5xx outage as unreachable', async () => {
    const w = await startKalshiVenueWorld({
      seed: (k) => k.addMarket(live),
      venue: { downAfterMs: 300, wallClock: mondayNoon(), maxAttempts: 1 },
    })
    try {
      assert.equal(w.venue.status().check, 'ok')
      w.kalshi.answerAll({ status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' })
      const status = await eventually(
        () => w.venue.status(),
        (s) => s.state === 'down',
      )
      assert.deepEqual([status.check, status.scheduledPause], ['unreachable', false])
      assert.equal(status.failure, 'HTTP 502: 502 Bad Gateway')
      assert.equal(
        w.venue.tradingPaused(Date.now(), SERIES),
        false,
        'an outage is not a pause the venue announced',
      )
    } finally {
      await w.close()
    }
  })
})

describe('Kalshi on the real venue › safe settlement', () => {
  it('settles on amended or finalized (decisions §8), not on determined', async () => {
    const m = makeMarket({ ...window(-16), status: 'closed', floorStrike: 68_000 })
    const w = await startKalshiVenueWorld({ seed: (k) => k.addMarket(m) })
    try {
      w.kalshi.updateMarket(m.ticker, { status: 'determined', result: 'yes', expiration_value: '68100.00' })
      await w.polls(2)
      assert.equal((await w.venue.market(m.ticker, NOW))?.phase, 'closed')
      assert.equal(await w.venue.result(m.ticker, NOW), null, 'determined can still be disputed')
      w.kalshi.updateMarket(m.ticker, { status: 'disputed' })
      await w.polls(2)
      assert.equal(await w.venue.result(m.ticker, NOW), null, 'disputed is waited on')
      w.kalshi.updateMarket(m.ticker, { status: 'amended', result: 'no', expiration_value: '67900.00' })
      await w.polls(2)
      assert.deepEqual(await w.venue.result(m.ticker, NOW), {
        kind: 'settled',
        side: 'down',
        priceDollars: 67_900,
      })
    } finally {
      await w.close()
    }
  })

  it('waits on a finalized record whose result is empty until it fills in; never voids it', async () => {
    const m = makeMarket({ ...window(-16), status: 'finalized', result: '', floorStrike: 68_000 })
    const w = await startKalshiVenueWorld({ seed: (k) => k.addMarket(m) })
    try {
      await w.polls(2)
      assert.equal(await w.venue.result(m.ticker, NOW), null)
      w.kalshi.updateMarket(m.ticker, {
        result: 'no',
        expiration_value: '67,900.00',
        settlement_value_dollars: '0.0000',
      })
      await w.polls(2)
      assert.deepEqual(await w.venue.result(m.ticker, NOW), {
        kind: 'settled',
        side: 'down',
        priceDollars: 67_900,
      })
    } finally {
      await w.close()
    }
  })

  it('takes a status it does not know as not trading: no quote, not the old view', async () => {
    const m = makeMarket({ ...window(-3), status: 'active', floorStrike: 68_000 })
    const w = await startKalshiVenueWorld({
      seed: (k) => {
        k.addMarket(m)
        k.setOrderbook(m.ticker, { yes: [['0.4000', '10.00']], no: [['0.5500', '10.00']] })
      },
      venue: { orderbookMinIntervalMs: 0 },
    })
    try {
      assert.ok(await w.venue.quote(m.ticker, NOW))
      w.kalshi.updateMarket(m.ticker, { status: 'suspended' })
      await w.polls(2)
      assert.equal((await w.venue.market(m.ticker, NOW))?.phase, 'paused')
      assert.equal(await w.venue.quote(m.ticker, NOW), null)
      assert.ok(w.logs.some((l) => l.level === 'warn' && l.fields.field === 'status:suspended'))
    } finally {
      await w.close()
    }
  })
})

describe('Kalshi on the real venue › health that tells the truth', () => {
  const live = makeMarket({ ...window(-3), status: 'active', floorStrike: 68_000 })

  it('says malformed once every book for the window failed to parse, and counts them by field', async () => {
    const w = await startKalshiVenueWorld({
      seed: (k) => {
        k.addMarket(live)
        k.setOrderbook(live.ticker, { yes: [['0.40', 'lots']], no: [['0.5500', '10.00']] })
      },
      venue: { orderbookMinIntervalMs: 0, malformedAfterMs: 400 },
    })
    try {
      assert.equal(await w.venue.quote(live.ticker, NOW), NO_ANSWER, 'an unreadable book is not had')
      assert.equal(w.venue.status().check, 'ok', 'one bad book is not yet a pattern')
      await eventually(
        async () => {
          await w.venue.quote(live.ticker, NOW)
          return w.venue.status().check
        },
        (c) => c === 'malformed',
      )
      assert.ok(w.rejected.length >= 2)
      assert.deepEqual(
        new Set(w.rejected.map((r) => `${r.endpoint} ${r.field}`)),
        new Set(['orderbook orderbook_fp.yes_dollars']),
      )

      // one good book ends it; a count with 3 decimals is a count
      w.kalshi.setOrderbook(live.ticker, { yes: [['0.4000', '12.125']], no: [['0.5500', '0.001']] })
      assert.deepEqual(asksOf(await w.venue.quote(live.ticker, NOW)), { upAskCents: 45, downAskCents: 60 })
      assert.equal(w.venue.status().check, 'ok')
    } finally {
      await w.close()
    }
  })

  it('says malformed after books broken for 3 reading minutes at the engine’s cadence, JSON or not', async () => {
    for (const broken of ['fields', 'not json'] as const) {
      const t0 = Math.floor(Date.now() / MINUTE) * MINUTE
      let now = t0
      const m = makeMarket({
        openTime: t0 - MINUTE,
        closeTime: t0 + 14 * MINUTE,
        status: 'active',
        floorStrike: 68_000,
      })
      const w = await startKalshiVenueWorld({
        seed: (k) => {
          k.addMarket(m)
          k.setOrderbook(m.ticker, { yes: [['0.40', 'lots']], no: [['0.5500', '10.00']] })
        },
        // the default threshold (3 minutes); polls may fail meanwhile
        venue: { wallClock: { now: () => now }, downAfterMs: 3_600_000, maxAttempts: 1 },
      })
      try {
        if (broken === 'not json')
          w.kalshi.answerAll({ status: 200, body: '{"orderbook_fp": {"yes_dollars": [' })
        const checks: string[] = []
        // the engine asks in the first seconds of each reading minute, every 2 s while it retries
        for (let minute = 0; minute < 3; minute++) {
          for (let s = 0; s <= 10; s += 2) {
            now = t0 + minute * MINUTE + s * 1000
            assert.equal(await w.venue.quote(m.ticker, now), NO_ANSWER)
          }
          now = t0 + minute * MINUTE + 30_000
          checks.push(w.venue.status().check ?? 'ok')
        }
        assert.deepEqual(checks, ['ok', 'ok', 'malformed'], broken)
        // it holds through the minutes without a reading, then ends with the run
        now = t0 + 5 * MINUTE
        assert.equal(w.venue.status().check, 'malformed', broken)
        now = t0 + 6 * MINUTE
        assert.equal(w.venue.status().check, 'ok', broken)
      } finally {
        await w.close()
      }
    }
  })

  it('counts a malformed market by endpoint and field', async () => {
    const w = await startKalshiVenueWorld({
      seed: (k) => {
        k.addMarket(live)
        k.injectMalformed({ ...live, ticker: 'KXBTC15M-BAD', close_time: 'later' })
      },
    })
    try {
      assert.ok(w.rejected.some((r) => r.endpoint === 'markets' && r.field === 'close_time'))
    } finally {
      await w.close()
    }
  })

  it('sends a User-Agent on every request', async () => {
    const w = await startKalshiVenueWorld({ seed: (k) => k.addMarket(live) })
    try {
      await w.venue.quote(live.ticker, NOW)
      assert.ok(w.kalshi.requests.length >= 3)
      for (const r of w.kalshi.requests) assert.equal(r.headers['user-agent'], KALSHI_USER_AGENT, r.path)
    } finally {
      await w.close()
    }
  })
})
