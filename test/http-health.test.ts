import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Config } from '../src/config/config.ts'
import { encodeFeedStatus, FEED_STATUS_SETTING } from '../src/domain/feed-status.ts'
import { rateLimitPolicy } from '../src/main/app-settings.ts'
import { systemClock } from '../src/main/system-clock.ts'
import type { BucketStore } from '../src/ports/bucket-store.ts'
import type { Store } from '../src/ports/store.ts'
import { createMemoryBucketStore } from '../src/store/memory/memory-bucket-store.ts'
import { createApiClient } from './support/api-client.ts'
import { createManualClock } from './support/manual-clock.ts'
import { rawRequest } from './support/raw-request.ts'
import { createTestWorld, type TestWorld } from './support/test-world.ts'
import { waitUntil } from './support/wait.ts'

async function withWorld(
  opts: Parameters<typeof createTestWorld>[0],
  body: (w: TestWorld) => Promise<void>,
): Promise<void> {
  const w = await createTestWorld(opts)
  try {
    await body(w)
  } finally {
    await w.close()
  }
}

describe('GET /v1/health', () => {
  test('returns ok with version, time and checks when the store and the engine are fine', () =>
    withWorld({ version: '9.8.7' }, async (w) => {
      await w.store.recordEngineHeartbeat(Date.now())
      const res = await createApiClient(w).get('/v1/health')
      assert.equal(res.status, 200)
      assert.match(res.headers.get('content-type')!, /^application\/json/)
      assert.equal(res.headers.get('cache-control'), 'no-store')
      assert.deepEqual(Object.keys(res.json), ['status', 'version', 'time', 'checks'])
      assert.equal(res.json.status, 'ok')
      assert.equal(res.json.version, '9.8.7')
      assert.deepEqual(res.json.checks, { store: 'ok', engine: 'ok' })
      assert.match(res.json.time, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/)
      assert.ok(Math.abs(Date.parse(res.json.time) - Date.now()) < 5000)
    }))

  test('is not logged at info, while other requests are', async () => {
    const lines: string[] = []
    const w = await createTestWorld({ env: { LOG_LEVEL: 'info' }, logSink: (line) => lines.push(line) })
    try {
      const client = createApiClient(w)
      assert.equal((await client.get('/v1/health')).status, 200)
      assert.equal((await client.get('/v1/contests/active?series=KXBTC15M', w.key)).status, 404)
      await waitUntil(() => lines.some((l) => l.includes('/v1/contests/active')), 'the access line')
      const urls = lines.map((l) => JSON.parse(l) as { path?: string }).map((e) => e.path)
      assert.ok(urls.includes('/v1/contests/active?series=KXBTC15M'), 'other requests are logged')
      assert.ok(!urls.includes('/v1/health'), 'health probes are not')
    } finally {
      await w.close()
    }
  })

  test('needs no key and ignores a bad one', () =>
    withWorld({}, async (w) => {
      const client = createApiClient(w)
      assert.equal((await client.get('/v1/health')).status, 200)
      assert.equal((await client.get('/v1/health', 'garbage')).status, 200)
    }))

  test('answers HEAD with the headers and no body', () =>
    withWorld({}, async (w) => {
      const res = await rawRequest(`${w.baseUrl}/v1/health`, { method: 'HEAD' })
      assert.equal(res.status, 200)
      assert.equal(res.body.length, 0)
      assert.equal(res.headers['cache-control'], 'no-store')
      assert.match(String(res.headers['content-type']), /^application\/json/)
    }))

  test('reports degraded with the venue unreachable when the engine says its venue is down', () =>
    withWorld({}, async (w) => {
      await w.store.recordEngineHeartbeat(Date.now())
      const venueDown = encodeFeedStatus({ name: 'kalshi', state: 'down' }, [{ name: 'kraken', state: 'ok' }])
      await w.store.putSetting(FEED_STATUS_SETTING, venueDown)
      const res = await createApiClient(w).get('/v1/health')
      assert.equal(res.status, 200)
      assert.equal(res.json.status, 'degraded')
      assert.deepEqual(res.json.checks, { store: 'ok', engine: 'ok', venue: 'unreachable' })
    }))

  test('names each venue when the engine follows several: a scheduled pause of one keeps it ok, an outage of the other degrades it', () => {
    const clock = createManualClock(Date.now())
    return withWorld({ wallClock: clock }, async (w) => {
      await w.store.recordEngineHeartbeat(Date.now())
      const spot = [{ name: 'kraken', state: 'ok' as const }]
      const kalshiPaused = {
        name: 'kalshi',
        state: 'ok' as const,
        check: 'paused' as const,
        scheduledPause: true,
      }
      await w.store.putSetting(
        FEED_STATUS_SETTING,
        encodeFeedStatus([kalshiPaused, { name: 'polymarket', state: 'ok' }], spot),
      )
      const paused = await createApiClient(w).get('/v1/health')
      assert.equal(paused.status, 200)
      assert.equal(paused.json.status, 'ok')
      assert.deepEqual(paused.json.checks, {
        store: 'ok',
        engine: 'ok',
        venue: 'paused',
        venues: { kalshi: 'paused', polymarket: 'ok' },
      })
      clock.advance(1100) // the store probe caches its reading for a second
      await w.store.putSetting(
        FEED_STATUS_SETTING,
        encodeFeedStatus([kalshiPaused, { name: 'polymarket', state: 'down' }], spot),
      )
      const down = await createApiClient(w).get('/v1/health')
      assert.equal(down.json.status, 'degraded')
      assert.deepEqual(down.json.checks, {
        store: 'ok',
        engine: 'ok',
        venue: 'unreachable',
        venues: { kalshi: 'paused', polymarket: 'unreachable' },
      })
      clock.advance(1100)
      const bothUp = [
        { name: 'kalshi', state: 'ok' as const },
        { name: 'polymarket', state: 'ok' as const },
      ]
      await w.store.putSetting(FEED_STATUS_SETTING, encodeFeedStatus(bothUp, spot))
      const ok = await createApiClient(w).get('/v1/health')
      assert.equal(ok.json.status, 'ok')
      assert.deepEqual(ok.json.checks, {
        store: 'ok',
        engine: 'ok',
        venues: { kalshi: 'ok', polymarket: 'ok' },
      })
    })
  })

  test('reports degraded with the spot unreachable only when every spot source is down', () => {
    const clock = createManualClock(Date.now())
    return withWorld({ wallClock: clock }, async (w) => {
      await w.store.recordEngineHeartbeat(Date.now())
      const oneLeft = [
        { name: 'coinbase', state: 'down' as const },
        { name: 'kraken', state: 'ok' as const },
      ]
      await w.store.putSetting(
        FEED_STATUS_SETTING,
        encodeFeedStatus({ name: 'kalshi', state: 'ok' }, oneLeft),
      )
      assert.equal((await createApiClient(w).get('/v1/health')).json.status, 'ok')
      clock.advance(1100) // the store probe caches its reading for a second
      const none = oneLeft.map((s) => ({ ...s, state: 'down' as const }))
      await w.store.putSetting(FEED_STATUS_SETTING, encodeFeedStatus({ name: 'kalshi', state: 'ok' }, none))
      const res = await createApiClient(w).get('/v1/health')
      assert.equal(res.json.status, 'degraded')
      assert.deepEqual(res.json.checks, { store: 'ok', engine: 'ok', spot: 'unreachable' })
    })
  })

  test('says whether the settlement index flows, and never degrades for it: the exchange median carries on', () => {
    const clock = createManualClock(Date.now())
    return withWorld({ wallClock: clock }, async (w) => {
      await w.store.recordEngineHeartbeat(Date.now())
      const withIndex = (index: 'ok' | 'stale' | 'refused') => [
        { name: 'kraken', state: 'ok' as const },
        { name: 'brti', state: index === 'ok' ? ('ok' as const) : ('down' as const), index },
      ]
      for (const index of ['ok', 'refused', 'stale'] as const) {
        clock.advance(1100) // the store probe caches its reading for a second
        await w.store.putSetting(
          FEED_STATUS_SETTING,
          encodeFeedStatus({ name: 'kalshi', state: 'ok' }, withIndex(index)),
        )
        const res = await createApiClient(w).get('/v1/health')
        assert.equal(res.json.status, 'ok', index)
        assert.deepEqual(res.json.checks, { store: 'ok', engine: 'ok', index })
      }
    })
  })

  test('reports the engine stale, and the service degraded, after 2 minutes without a heartbeat', () =>
    withWorld({}, async (w) => {
      await w.store.recordEngineHeartbeat(Date.now() - 121_000)
      const res = await createApiClient(w).get('/v1/health')
      assert.equal(res.status, 200)
      assert.equal(res.json.status, 'degraded')
      assert.equal(res.json.checks.engine, 'stale')
    }))

  test('reports the engine stale when no engine has ever written', () =>
    withWorld({}, async (w) => {
      const res = await createApiClient(w).get('/v1/health')
      assert.equal(res.json.checks.engine, 'stale')
      assert.equal(res.json.status, 'degraded')
    }))

  test('answers 503 with status unavailable when the store cannot be reached', () =>
    withWorld({ wrapStore: unreachable }, async (w) => {
      const res = await createApiClient(w).get('/v1/health')
      assert.equal(res.status, 503)
      assert.match(res.headers.get('content-type')!, /^application\/json/)
      assert.equal(res.headers.get('cache-control'), 'no-store')
      assert.equal(res.json.status, 'unavailable')
      assert.equal(res.json.checks.store, 'unavailable')
    }))

  test('a failed probe gets an access line at warn; an answered one gets none (decisions §4)', async () => {
    const failing: Record<string, unknown>[] = []
    const fine: Record<string, unknown>[] = []
    const sink = (into: Record<string, unknown>[]) => (line: string) =>
      into.push(JSON.parse(line) as Record<string, unknown>)
    await withWorld({ wrapStore: unreachable, logSink: sink(failing) }, async (w) => {
      const res = await createApiClient(w).get('/v1/health', undefined, { 'X-Request-Id': 'probe-down' })
      assert.equal(res.status, 503)
      await waitUntil(() => failing.some((l) => l.reqId === 'probe-down'), 'the warn line')
    })
    const line = failing.find((l) => l.reqId === 'probe-down')!
    assert.equal(line.msg, 'request')
    assert.equal(line.level, 40)
    assert.equal(line.path, '/v1/health')
    assert.equal(line.status, 503)
    await withWorld({ logSink: sink(fine) }, async (w) => {
      await w.store.recordEngineHeartbeat(Date.now())
      await createApiClient(w).get('/v1/health', undefined, { 'X-Request-Id': 'probe-ok' })
      // a request after it that does get a line: once it is written, the probe's would be too
      await createApiClient(w).get('/v1/contests/active?series=X', undefined, { 'X-Request-Id': 'after' })
      await waitUntil(() => fine.some((l) => l.reqId === 'after'), 'the next line')
    })
    assert.equal(
      fine.some((l) => l.reqId === 'probe-ok'),
      false,
    )
  })

  test('adds a degraded rate_limit check when the shared rate-limit store is down', () =>
    withWorld({ buckets: degradedBuckets }, async (w) => {
      await w.store.recordEngineHeartbeat(Date.now())
      const res = await createApiClient(w).get('/v1/health')
      assert.equal(res.status, 200)
      assert.equal(res.json.status, 'degraded')
      assert.deepEqual(res.json.checks, { store: 'ok', engine: 'ok', rate_limit: 'degraded' })
    }))

  test('asks the store at most about once a second however often it is called', () => {
    let pings = 0
    const counting = (store: Store): Store =>
      new Proxy(store, {
        get(target, prop, receiver) {
          if (prop === 'ping') {
            return () => {
              pings++
              return target.ping()
            }
          }
          return Reflect.get(target, prop, receiver)
        },
      })
    return withWorld({ wrapStore: counting }, async (w) => {
      const client = createApiClient(w)
      await Promise.all(Array.from({ length: 20 }, () => client.get('/v1/health')))
      assert.ok(pings <= 2, `${pings} pings`)
    })
  })
})

function unreachable(store: Store): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'ping' || prop === 'lastEngineHeartbeat') return () => Promise.reject(new Error('gone'))
      return Reflect.get(target, prop, receiver)
    },
  })
}

function degradedBuckets(config: Config): BucketStore {
  const inner = createMemoryBucketStore({ ...rateLimitPolicy(config), clock: systemClock })
  return { ...inner, health: () => 'degraded' }
}
