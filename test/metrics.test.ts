// The operator's view of METRICS_PORT: the real CLI serves Prometheus metrics on a port of their own
// (never on the public API), for every role, with the counters and gauges an operator alerts on.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { families, metricsUrlOf, sample, scrape } from './support/metrics-scrape.ts'
import { freePort } from './support/ports.ts'
import { deletePrefix, REDIS_TEST_URL, uniquePrefix } from './support/redis.ts'
import { type ServiceProcess, startProcess, tempDir } from './support/service-process.ts'
import { activeContest } from './support/sim-service.ts'
import { openStream, type SseClient } from './support/sse-client.ts'
import { OFF_PAUSE_START } from './support/timeline.ts'
import { waitFor } from './support/wait.ts'

const BASE_ENV = {
  PORT: '0',
  SIM_SPEED: '60',
  SIM_START: OFF_PAUSE_START,
  SIM_SEED: '3',
  SIM_BACKFILL_DAYS: '0',
  LOG_LEVEL: 'info',
}

describe('METRICS_PORT (serve)', () => {
  const tmp = tempDir()
  let service: ServiceProcess
  let url: string
  let metricsUrl: string
  let metricsPort: number
  let key: string
  let stream: SseClient | undefined

  before(async () => {
    metricsPort = await freePort()
    service = startProcess(['serve'], {
      ...BASE_ENV,
      DATABASE_URL: `sqlite:${path.join(tmp.dir, 'cs.db')}`,
      METRICS_PORT: String(metricsPort),
      RATE_LIMIT_BURST: '3',
    })
    url = await service.url
    metricsUrl = await metricsUrlOf(service)
    key = await service.bootstrapKey
  })
  after(async () => {
    stream?.close()
    await service.kill('SIGTERM')
    tmp.remove()
  })

  it('logs where it serves metrics: the configured port on HOST', () => {
    assert.equal(metricsUrl, `http://127.0.0.1:${metricsPort}/metrics`)
  })

  it('counts requests by route and status, 429s included, and the public port has no /metrics', async () => {
    const active = `${url}/v1/contests/active?series=KXBTC15M`
    await activeContest(url, key)
    assert.equal((await fetch(active)).status, 401)
    const onApi = await fetch(`${url}/metrics`)
    assert.equal(onApi.status, 404)
    assert.match(onApi.headers.get('content-type') ?? '', /^application\/problem\+json/)
    assert.match(((await onApi.json()) as { type: string }).type, /\/problems\/not-found$/)
    // The bucket holds 3; a slow start may have refilled one, so ask until refused.
    const refused = await waitFor('a 429', async () =>
      (await fetch(active)).status === 429 ? true : undefined,
    )
    assert.ok(refused)

    const text = await scrape(metricsUrl)
    const route = '/v1/contests/active'
    assert.equal(sample(text, 'cs_http_requests_total', { route, method: 'GET', status: '200' }), 1)
    assert.ok((sample(text, 'cs_http_requests_total', { route, method: 'GET', status: '401' }) ?? 0) >= 1)
    assert.ok((sample(text, 'cs_http_requests_total', { route, method: 'GET', status: '429' }) ?? 0) >= 1)
    assert.equal(
      sample(text, 'cs_http_requests_total', { route: 'unknown', method: 'GET', status: '404' }),
      1,
    )
    assert.ok((sample(text, 'cs_http_rate_limited_total') ?? 0) >= 1)
    assert.doesNotMatch(text, /route="\/metrics"/)
  })

  it('shows an open stream, the events fanned out to it and their lag, leadership and the store', async () => {
    // The bucket refills at 1 per second: wait for the token the stream needs.
    stream = await waitFor(
      'a stream to open',
      async () => {
        const s = await openStream(`${url}/v1/stream/contests?series=KXBTC15M`, { key })
        if (s.status === 200) return s
        return undefined
      },
      15_000,
      300,
    )
    const opened = stream
    // Past the snapshot: at 60× a signal is raised about every wall second.
    const firstCount = await waitFor('the snapshot', () =>
      opened.events.length > 0 ? opened.events.length : undefined,
    )
    await waitFor('a live event', () => (opened.events.length > firstCount ? true : undefined))

    const text = await scrape(metricsUrl)
    assert.equal(sample(text, 'cs_streams_open'), 1)
    assert.ok((sample(text, 'cs_events_fanned_out_total', { type: 'signal.emitted' }) ?? 0) > 0)
    assert.ok((sample(text, 'cs_fanout_lag_seconds_count') ?? 0) > 0)
    assert.equal(sample(text, 'cs_engine_leader'), 1)
    assert.equal(sample(text, 'cs_store_up'), 1)
    const age = sample(text, 'cs_engine_heartbeat_age_seconds')
    assert.ok(age !== undefined && age >= 0 && age < 30, `heartbeat age ${age}`)
    // No Redis configured: no Redis gauge rather than a misleading 0.
    assert.equal(sample(text, 'cs_redis_up'), undefined)
    assert.ok((sample(text, 'process_resident_memory_bytes') ?? 0) > 0)

    stream.close()
    await waitFor('the stream to be gone', async () =>
      sample(await scrape(metricsUrl), 'cs_streams_open') === 0 ? true : undefined,
    )
  })

  it('answers 404 on the metrics port for anything but /metrics', async () => {
    const res = await fetch(new URL('/other', metricsUrl))
    assert.equal(res.status, 404)
    await res.body?.cancel()
  })
})

describe('METRICS_PORT (engine and api roles apart)', () => {
  const tmp = tempDir()
  const db = `sqlite:${path.join(tmp.dir, 'cs.db')}`
  const redisPrefix = uniquePrefix('metrics')
  let engine: ServiceProcess
  let api: ServiceProcess
  let engineMetrics: string
  let apiMetrics: string
  let apiUrl: string

  before(async () => {
    engine = startProcess(['engine'], {
      ...BASE_ENV,
      DATABASE_URL: db,
      METRICS_PORT: String(await freePort()),
    })
    engineMetrics = await metricsUrlOf(engine)
    api = startProcess(['api'], {
      ...BASE_ENV,
      DATABASE_URL: db,
      METRICS_PORT: String(await freePort()),
      REDIS_URL: REDIS_TEST_URL,
      REDIS_PREFIX: redisPrefix,
    })
    apiUrl = await api.url
    apiMetrics = await metricsUrlOf(api)
  })
  after(async () => {
    await Promise.all([engine.kill('SIGTERM'), api?.kill('SIGTERM')])
    await deletePrefix(redisPrefix)
    tmp.remove()
  })

  it('the engine serves leadership, heartbeat age and the store, and nothing of HTTP', async () => {
    const text = await scrape(engineMetrics)
    assert.equal(sample(text, 'cs_engine_leader'), 1)
    assert.equal(sample(text, 'cs_store_up'), 1)
    const age = sample(text, 'cs_engine_heartbeat_age_seconds')
    assert.ok(age !== undefined && age < 30, `heartbeat age ${age}`)
    assert.equal(sample(text, 'cs_streams_open'), undefined)
    assert.equal(sample(text, 'cs_http_requests_total'), undefined)
  })

  it('each role exports only its own families: no api family (not even at zero) on the engine, no engine family on the api', async () => {
    const apiOnly = /^cs_(http_|streams_open$|events_fanned_out_total$|fanout_lag_seconds$|redis_up$)/
    const engineOnly = /^cs_(venue_|spot_|readings_skipped_total$|engine_leader$)/
    const onEngine = families(await scrape(engineMetrics))
    const onApi = families(await scrape(apiMetrics))
    assert.deepEqual(
      onEngine.filter((name) => apiOnly.test(name)),
      [],
    )
    assert.deepEqual(
      onApi.filter((name) => engineOnly.test(name)),
      [],
    )
    // both still say what they share
    for (const shared of ['cs_build_info', 'cs_store_up', 'cs_engine_heartbeat_age_seconds']) {
      assert.ok(onEngine.includes(shared), `engine exports ${shared}`)
      assert.ok(onApi.includes(shared), `api exports ${shared}`)
    }
    assert.ok(onEngine.includes('cs_readings_skipped_total'))
    assert.ok(onApi.includes('cs_http_requests_total'))
  })

  it('an api replica reads the engine heartbeat age from the store and reports Redis', async () => {
    const text = await scrape(apiMetrics)
    assert.equal(sample(text, 'cs_engine_leader'), undefined)
    assert.equal(sample(text, 'cs_store_up'), 1)
    const age = sample(text, 'cs_engine_heartbeat_age_seconds')
    assert.ok(age !== undefined && age < 30, `heartbeat age ${age}`)
    assert.equal(sample(text, 'cs_redis_up'), 1)
    assert.equal(sample(text, 'cs_streams_open'), 0)
  })

  it('labels OPTIONS (preflight or plain) and other methods by the path pattern they asked about, or unknown: never the CORS catch-all', async () => {
    const preflight = { Origin: 'https://a.example', 'Access-Control-Request-Method': 'GET' }
    const options = async (path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${apiUrl}${path}`, { method: 'OPTIONS', headers })
      await res.body?.cancel()
      return res.status
    }
    const before = await scrape(apiMetrics)
    assert.equal(await options('/v1/contests', preflight), 204)
    assert.equal(await options('/v1/contests/KXBTC15M-26NOV221415-15', preflight), 204)
    assert.equal(await options('/v1/health'), 204)
    assert.equal(await options('/v1/nothing-here'), 404)
    const propfind = await fetch(`${apiUrl}/v1/contests`, { method: 'PROPFIND' })
    await propfind.body?.cancel()
    assert.equal(propfind.status, 405)
    const text = await scrape(apiMetrics)
    const moved = (labels: Record<string, string>) =>
      (sample(text, 'cs_http_requests_total', labels) ?? 0) -
      (sample(before, 'cs_http_requests_total', labels) ?? 0)
    assert.equal(moved({ route: '/v1/contests', method: 'OPTIONS', status: '204' }), 1)
    assert.equal(moved({ route: '/v1/contests/:ticker', method: 'OPTIONS', status: '204' }), 1)
    assert.equal(moved({ route: '/v1/health', method: 'OPTIONS', status: '204' }), 1)
    assert.equal(moved({ route: 'unknown', method: 'OPTIONS', status: '404' }), 1)
    assert.equal(moved({ route: '/v1/contests', method: 'PROPFIND', status: '405' }), 1)
    assert.doesNotMatch(text, /route="\*"/)
  })
})
