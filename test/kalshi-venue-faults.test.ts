// The Kalshi adapter under venue faults, over real sockets: rate limiting and server errors with
// backoff and pacing, slow answers, malformed markets, late-appearing markets, outages, signing.

import assert from 'node:assert/strict'
import { constants, generateKeyPairSync, verify } from 'node:crypto'
import { describe, it } from 'node:test'
import { createKalshiVenue } from '../src/feeds/kalshi/kalshi-venue.ts'
import { NO_ANSWER } from '../src/ports/venue.ts'
import { fixtureTicker, type KalshiFixture, makeMarket } from './fixtures/kalshi-fixture.ts'
import { type KalshiVenueWorld, MINUTE, SERIES, startKalshiVenueWorld } from './support/kalshi-venue-world.ts'
import { createManualClock } from './support/manual-clock.ts'
import { freePort } from './support/ports.ts'
import { eventually, waitUntil, within } from './support/wait.ts'

const NOW = Math.floor(Date.now() / MINUTE) * MINUTE
const window = (startMinutes: number) => ({
  openTime: NOW + startMinutes * MINUTE,
  closeTime: NOW + (startMinutes + 15) * MINUTE,
})
const live = makeMarket({ ...window(-2), status: 'active', floorStrike: 68421.37 })
const next = makeMarket({ ...window(13), status: 'initialized' })
/** the backoff waits the adapter chose before retrying `endpoint`, as it logged them */
const retryWaits = (w: KalshiVenueWorld, endpoint: string) =>
  w.logs
    .filter((l) => l.msg === 'kalshi request failed; retrying' && l.fields.endpoint === endpoint)
    .map((l) => l.fields.retryInMs)

describe('Kalshi venue › rate limits and server errors', () => {
  it('backs off a 429 burst with growing delays while keeping under the request pacing', async () => {
    const closed = makeMarket({ ...window(-17), status: 'closed' })
    const w = await startKalshiVenueWorld({
      // one market per page, so the close window (just closed, live, next) is a burst of three pages
      fixture: { pageSize: 1 },
      seed: (k) => {
        for (const m of [closed, live, next]) k.addMarket(m)
        k.failNext(3, 429, { path: /\/markets\?/ })
      },
      // jitter pinned to the top of its range so the schedule is visible: 99, 199, 399 ms
      venue: { maxRequestsPerSec: 20, backoff: { baseMs: 100, capMs: 2_000 }, random: () => 0.999 },
    })
    try {
      const first = w.requestsTo('/markets').filter((r) => !r.query.cursor)
      assert.equal(first.length, 4)
      // the waits the adapter chose, as it logs them (the pacing between requests is the request
      // pacer's rule, held on a manual clock by src/feeds/kalshi/request-pacer.test.ts)
      assert.deepEqual(retryWaits(w, 'markets'), [99, 199, 399])
      assert.deepEqual(w.telemetry.retries, ['markets', 'markets', 'markets'])
      assert.equal(w.telemetry.requests.filter((r) => r.status === '429').length, 3)
      assert.equal(w.requestsTo('/markets').filter((r) => r.query.cursor).length, 2)
      for (const m of [closed, live, next]) assert.ok(await w.venue.market(m.ticker, NOW), m.ticker)
    } finally {
      await w.close()
    }
  })

  it('retries a 500 burst; a listing that exhausts its attempts holds up no result lookup', async () => {
    const awaited = makeMarket({ ...window(-40), status: 'closed', floorStrike: 68_000 })
    const w = await startKalshiVenueWorld({
      seed: (k) => {
        for (const m of [live, next, awaited]) k.addMarket(m)
        k.failNext(2, 500, { path: /\/markets\?/ })
      },
      venue: { maxAttempts: 4, backoff: { baseMs: 40, capMs: 1_000 }, random: () => 0.999 },
    })
    try {
      assert.equal(w.requestsTo('/markets').length, 3)
      assert.deepEqual(retryWaits(w, 'markets'), [39, 79])
      assert.notEqual(w.venue.status().lastOkAt, null)
      assert.equal((await w.venue.market(live.ticker, NOW))?.phase, 'trading')

      // the engine waits on a result past the close window; then every listing fails for good
      assert.equal(await w.venue.result(awaited.ticker, NOW), null)
      w.kalshi.failNext(1_000_000, 503, { path: /\/markets\?/ })
      w.kalshi.updateMarket(awaited.ticker, {
        status: 'finalized',
        result: 'no',
        expiration_value: '67,990.00',
      })
      const settled = await eventually(
        () => w.venue.result(awaited.ticker, NOW),
        (r) => r !== null,
      )
      assert.deepEqual(settled, { kind: 'settled', side: 'down', priceDollars: 67_990 })
      assert.ok(
        w.logs.some(
          (l) => l.level === 'warn' && l.msg === 'kalshi listing failed' && l.fields.status === '503',
        ),
      )
    } finally {
      await w.close()
    }
  })

  it('abandons an answer slower than the timeout and retries it', async () => {
    // the first listing is answered only after start has returned: a start that waited for it
    // could not finish
    let fixture: KalshiFixture | undefined
    const starting = startKalshiVenueWorld({
      seed: (k) => {
        fixture = k
        k.addMarket(next)
        k.holdNext(1, { path: /\/markets\?/ })
      },
      venue: { requestTimeoutMs: 150 },
    })
    const w = await within(starting, 'start to give up on the slow answer', 15_000).catch(async (err) => {
      // let the waiting start finish, so the failed test leaves nothing running
      fixture?.releaseHeld()
      await (await starting).close()
      throw err
    })
    try {
      w.kalshi.releaseHeld()
      assert.ok(w.requestsTo('/markets').length >= 2)
      const timedOut = w.telemetry.requests.filter((r) => r.status === 'timeout')
      assert.equal(timedOut.length, 1)
      assert.equal((await w.venue.market(next.ticker, NOW))?.phase, 'upcoming')
    } finally {
      await w.close()
    }
  })
})

describe('Kalshi venue › malformed and missing markets', () => {
  it('skips a malformed market with one warning naming the field, and uses the rest of the page', async () => {
    const bad = makeMarket({ ...window(28), ticker: 'KXBTC15M-BADSTRIKE', status: 'initialized' })
    const w = await startKalshiVenueWorld({
      fixture: { pageSize: 2 },
      seed: (k) => {
        k.addMarket(live)
        k.addMarket(next)
        k.injectMalformed({ ...bad, floor_strike: '68421.37' })
        k.injectMalformed({ status: 'active', open_time: 'yesterday' })
      },
    })
    try {
      await w.polls(2)
      const warnings = w.logs.filter((l) => l.level === 'warn' && l.msg.includes('malformed'))
      assert.deepEqual(
        warnings.map((l) => [l.fields.ticker, l.fields.field]),
        [
          [null, 'ticker'],
          ['KXBTC15M-BADSTRIKE', 'floor_strike'],
        ],
      )
      assert.equal(await w.venue.market('KXBTC15M-BADSTRIKE', NOW), null)
      assert.equal((await w.venue.market(live.ticker, NOW))?.strikePriceDollars, 68421.37)
      assert.equal((await w.venue.market(next.ticker, NOW))?.phase, 'upcoming')
    } finally {
      await w.close()
    }
  })

  it('keeps the last good view of a market when the venue later sends it malformed', async () => {
    const w = await startKalshiVenueWorld({ seed: (k) => k.addMarket(live) })
    try {
      const good = await w.venue.market(live.ticker, NOW)
      w.kalshi.updateMarket(live.ticker, { close_time: 'soon', floor_strike: 1 })
      await w.polls(2)
      assert.deepEqual(await w.venue.market(live.ticker, NOW), good)
      assert.ok(
        w.logs.some(
          (l) => l.level === 'warn' && l.fields.ticker === live.ticker && l.fields.field === 'close_time',
        ),
      )
    } finally {
      await w.close()
    }
  })

  it('reads a floor_strike of 0 (or below) as not set yet, so the real strike still arrives', async () => {
    // a placeholder before the venue fills it (venue facts §2.4, §6): no bitcoin price is 0
    const w = await startKalshiVenueWorld({ seed: (k) => k.addMarket({ ...live, floor_strike: 0 }) })
    try {
      assert.equal((await w.venue.market(live.ticker, NOW))?.strikePriceDollars, null)
      w.kalshi.updateMarket(live.ticker, { floor_strike: -1 })
      await w.polls(2)
      assert.equal((await w.venue.market(live.ticker, NOW))?.strikePriceDollars, null)
      w.kalshi.updateMarket(live.ticker, { floor_strike: 68_421.37 })
      await w.polls(2)
      assert.equal((await w.venue.market(live.ticker, NOW))?.strikePriceDollars, 68_421.37)
    } finally {
      await w.close()
    }
  })

  it('reads an expiration_value of 0 (or below) as not reported: settled with no settlement price', async () => {
    // no bitcoin price is 0 or negative (decisions §3: the price is null when the oracle did not report it)
    for (const value of ['0', '0.00', '-12.5', '-68,433.05']) {
      const ended = makeMarket({ ...window(-15), status: 'closed', floorStrike: 68_000 })
      const w = await startKalshiVenueWorld({ seed: (k) => k.addMarket(ended) })
      try {
        w.kalshi.updateMarket(ended.ticker, { status: 'finalized', result: 'yes', expiration_value: value })
        const settled = await eventually(
          () => w.venue.result(ended.ticker, NOW),
          (r) => r !== null,
        )
        assert.deepEqual(settled, { kind: 'settled', side: 'up', priceDollars: null }, value)
      } finally {
        await w.close()
      }
    }
  })

  it('counts a malformed market looked up by ticker under its own endpoint, while recording too', async () => {
    // closed long ago, so no close-window listing shows it: only GET /markets/{ticker} does
    const old = makeMarket({ ...window(-60), status: 'closed', floorStrike: 68_000 })
    for (const tap of [undefined, { market() {}, book() {} }]) {
      const w = await startKalshiVenueWorld({
        seed: (k) => k.addMarket({ ...old, floor_strike: 'not a number' }),
        ...(tap ? { venue: { tap } } : {}),
      })
      try {
        await w.venue.result(old.ticker, NOW)
        await waitUntil(() => w.rejected.length > 0, 'the malformed market counted')
        assert.deepEqual(
          w.rejected[0],
          { endpoint: 'market', field: 'floor_strike' },
          tap ? 'recording' : 'not recording',
        )
      } finally {
        await w.close()
      }
    }
  })

  it('retries a market that answers 404 until it appears', async () => {
    const ticker = fixtureTicker(SERIES, NOW - 16 * MINUTE)
    const w = await startKalshiVenueWorld({
      seed: (k) => {
        k.addMarket(
          makeMarket({ ...window(-31), ticker, status: 'finalized', result: 'yes', expirationValue: '1.5' }),
        )
        k.notFoundFor(ticker, 3)
      },
    })
    try {
      assert.equal(await w.venue.result(ticker, NOW), null)
      await w.polls(5)
      assert.equal(w.requestsTo(`/markets/${ticker}`).length, 4)
      assert.deepEqual(await w.venue.result(ticker, NOW), { kind: 'settled', side: 'up', priceDollars: 1.5 })
    } finally {
      await w.close()
    }
  })

  it('stops looking up a market that keeps answering 404', async () => {
    const ticker = 'KXBTC15M-NEVER'
    const w = await startKalshiVenueWorld({ venue: { notFoundGiveUpMs: 250 } })
    try {
      await w.venue.result(ticker, NOW)
      await w.polls(6)
      const lookups = w.requestsTo(`/markets/${ticker}`).length
      assert.ok(lookups >= 2)
      assert.ok(
        w.logs.some((l) => l.level === 'warn' && l.fields.ticker === ticker && l.msg.includes('giving up')),
      )
      await w.venue.result(ticker, NOW)
      await w.polls(2)
      assert.equal(w.requestsTo(`/markets/${ticker}`).length, lookups)
    } finally {
      await w.close()
    }
  })
})

describe('Kalshi venue › outages and lifecycle', () => {
  it('goes down once the venue has not answered for the threshold', async () => {
    // the adapter's clock is the test's: it moves only when the test says so
    const clock = createManualClock(Date.now())
    const w = await startKalshiVenueWorld({
      seed: (k) => k.addMarket(live),
      venue: { downAfterMs: 600, wallClock: clock },
    })
    try {
      const up = w.venue.status()
      assert.equal(up.state, 'ok')
      assert.equal(up.name, 'kalshi')
      assert.equal(up.lastOkAt, clock.now())
      await w.kalshi.close()
      const logged = w.logs.length
      await waitUntil(
        () => w.logs.slice(logged).some((l) => l.msg === 'kalshi listing failed'),
        'a poll to fail against the closed venue',
      )
      clock.advance(600)
      assert.equal(w.venue.status().state, 'ok', 'not down at the threshold')
      clock.advance(1)
      const down = w.venue.status()
      assert.equal(down.state, 'down')
      assert.equal(down.lastOkAt, up.lastOkAt)
      // what was known is still served, never invented
      assert.equal((await w.venue.market(live.ticker, NOW))?.ticker, live.ticker)
    } finally {
      await w.close()
    }
  })

  it('starts against a venue that refuses connections, and reports it down after the threshold', async () => {
    const port = await freePort()
    const warnings: unknown[] = []
    // a Monday noon in New York: no pause is scheduled then, so the outage is one
    const clock = createManualClock(Date.parse('2026-03-02T17:00:00Z'))
    const venue = createKalshiVenue({
      baseUrl: `http://127.0.0.1:${port}/trade-api/v2`,
      series: [SERIES],
      pollMs: 100,
      wallClock: clock,
      logger: { info() {}, debug() {}, error() {}, warn: (o) => warnings.push(o) },
      downAfterMs: 500,
      maxRequestsPerSec: 100,
      maxAttempts: 2,
      backoff: { baseMs: 10, capMs: 50 },
    })
    try {
      await venue.start()
      const early = venue.status()
      assert.deepEqual([early.state, early.check, early.lastOkAt], ['ok', 'ok', null])
      assert.match(String(early.failure), /^error: ECONNREFUSED 127\.0\.0\.1:\d+$/)
      assert.ok(warnings.length > 0)
      clock.advance(500)
      assert.equal(venue.status().state, 'ok', 'not down at the threshold')
      clock.advance(1)
      const later = venue.status()
      assert.deepEqual([later.state, later.check, later.scheduledPause], ['down', 'unreachable', false])
      assert.equal(await venue.marketAt(SERIES, NOW), null)
    } finally {
      await venue.close()
    }
  })

  it('close() aborts a request in flight and stops polling', async () => {
    const w = await startKalshiVenueWorld({
      seed: (k) => {
        k.addMarket(live)
        // answered only after close() has returned: close() must not wait for it
        k.holdNext(1, { path: /orderbook/ })
      },
    })
    try {
      const quote = w.venue.quote(live.ticker, NOW)
      await waitUntil(
        () => w.requestsTo(`/markets/${live.ticker}/orderbook`).length === 1,
        'the order-book request to reach the venue',
      )
      await within(w.venue.close(), 'close() to abort the request in flight')
      w.kalshi.releaseHeld()
      assert.equal(await quote, NO_ANSWER)
      // close() has returned once its poll loop did: a request of ours is the only one the venue sees now
      const seen = w.kalshi.requests.length
      await (await fetch(`${w.kalshi.baseUrl}/exchange/status`)).arrayBuffer()
      assert.equal(w.kalshi.requests.length, seen + 1)
    } finally {
      await w.close()
    }
  })
})

describe('Kalshi venue › request signing', () => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()

  it('signs every request verifiably over timestamp, method and path without the query', async () => {
    const w = await startKalshiVenueWorld({
      seed: (k) => k.addMarket(live),
      venue: { credentials: { keyId: 'test-key-id', privateKeyPem } },
    })
    try {
      await w.venue.quote(live.ticker, NOW)
      assert.ok(w.kalshi.requests.length >= 4)
      for (const r of w.kalshi.requests) {
        assert.equal(r.headers['kalshi-access-key'], 'test-key-id')
        const timestamp = r.headers['kalshi-access-timestamp'] as string
        assert.match(timestamp, /^\d{13}$/)
        const signature = Buffer.from(r.headers['kalshi-access-signature'] as string, 'base64')
        const ok = verify(
          'sha256',
          Buffer.from(`${timestamp}GET${r.path}`),
          {
            key: publicKey,
            padding: constants.RSA_PKCS1_PSS_PADDING,
            saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
          },
          signature,
        )
        assert.ok(ok, `signature of ${r.path}`)
      }
      assert.ok(w.logs.every((l) => !JSON.stringify(l.fields).includes('PRIVATE KEY')))
    } finally {
      await w.close()
    }
  })

  it('sends no signing headers without credentials', async () => {
    const w = await startKalshiVenueWorld({ seed: (k) => k.addMarket(live) })
    try {
      await w.venue.quote(live.ticker, NOW)
      assert.ok(w.kalshi.requests.length >= 4)
      for (const r of w.kalshi.requests)
        assert.deepEqual(
          Object.keys(r.headers).filter((h) => h.startsWith('kalshi-')),
          [],
        )
    } finally {
      await w.close()
    }
  })
})
