import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { StoredEvent } from '../domain/events.ts'
import { createMetrics } from './metrics.ts'

/** The value of one sample in the exposition text, or undefined when it is absent. */
async function sample(
  metrics: ReturnType<typeof createMetrics>,
  name: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> {
  const metric = metrics.registry.getSingleMetric(name)
  if (!metric) return undefined
  const { values } = await metric.get()
  const found = values.find((v) =>
    Object.entries(labels).every(([k, want]) => String((v.labels as Record<string, unknown>)[k]) === want),
  )
  return found?.value
}

function event(type: StoredEvent['type'], appendedAt: number): StoredEvent {
  return { type, series: 'S', ticker: 'T', data: '{}', seq: 1, appendedAt }
}

describe('metrics', () => {
  it('counts requests by route, method and status, and 429s on their own', async () => {
    const metrics = createMetrics()
    metrics.countRequest('/v1/contests', 'GET', 200, 0.002)
    metrics.countRequest('/v1/contests', 'GET', 200, 0.004)
    metrics.countRequest('unknown', 'GET', 404, 0.001)
    metrics.countRequest('/v1/contests', 'GET', 429, 0.0001)
    metrics.countRequest('/v1/stream/contests', 'GET', 200, null)
    assert.equal(await sample(metrics, 'cs_http_requests_total', { route: '/v1/contests', status: '200' }), 2)
    assert.equal(await sample(metrics, 'cs_http_requests_total', { route: 'unknown', status: '404' }), 1)
    assert.equal(await sample(metrics, 'cs_http_rate_limited_total'), 1)
  })

  it('observes request latency by route, without streams, so p99 can be graphed', async () => {
    const metrics = createMetrics()
    metrics.countRequest('/v1/contests', 'GET', 200, 0.002)
    metrics.countRequest('/v1/contests', 'GET', 200, 0.02)
    metrics.countRequest('/v1/stream/contests', 'GET', 200, null)
    const text = await metrics.registry.metrics()
    assert.match(text, /^cs_http_request_duration_seconds_bucket\{le="0\.0025",route="\/v1\/contests"\} 1$/m)
    assert.match(text, /^cs_http_request_duration_seconds_count\{route="\/v1\/contests"\} 2$/m)
    assert.doesNotMatch(text, /cs_http_request_duration_seconds_count\{route="\/v1\/stream\/contests"\}/)
  })

  it('states the build: version and model as labels of a constant 1', async () => {
    const metrics = createMetrics({ build: { version: '9.9.9', model: 'settle-mean-t-2.abc' } })
    assert.equal(
      await sample(metrics, 'cs_build_info', { version: '9.9.9', model: 'settle-mean-t-2.abc' }),
      1,
    )
  })

  it('counts fanned-out events by type and observes their lag, never negative', async () => {
    const metrics = createMetrics()
    metrics.countFanout([event('signal.emitted', 9_750), event('contest.opened', 10_200)], 10_000)
    assert.equal(await sample(metrics, 'cs_events_fanned_out_total', { type: 'signal.emitted' }), 1)
    assert.equal(await sample(metrics, 'cs_events_fanned_out_total', { type: 'contest.opened' }), 1)
    const text = await metrics.registry.metrics()
    assert.match(text, /^cs_fanout_lag_seconds_count 2$/m)
    assert.match(text, /^cs_fanout_lag_seconds_sum 0\.25$/m)
  })

  it('counts venue requests by venue, endpoint and status with their latency, retries and skipped readings', async () => {
    const metrics = createMetrics()
    const kalshi = metrics.venueTelemetry('kalshi')
    const polymarket = metrics.venueTelemetry('polymarket')
    kalshi.request('orderbook', '200', 0.04)
    kalshi.request('orderbook', '200', 0.06)
    kalshi.request('markets', 'timeout', 5)
    kalshi.retry('markets')
    polymarket.request('orderbook', '200', 0.5)
    polymarket.rejected?.('orderbook', 'asks')
    polymarket.socket?.(false)
    metrics.countSkippedReading('no-spot')
    metrics.countSkippedReading('no-spot')
    const text = await metrics.registry.metrics()
    assert.match(
      text,
      /^cs_venue_request_duration_seconds_count\{venue="kalshi",endpoint="orderbook",status="200"\} 2$/m,
    )
    assert.match(
      text,
      /^cs_venue_request_duration_seconds_sum\{venue="kalshi",endpoint="orderbook",status="200"\} 0\.1$/m,
    )
    assert.match(
      text,
      /^cs_venue_request_duration_seconds_count\{venue="kalshi",endpoint="markets",status="timeout"\} 1$/m,
    )
    assert.match(
      text,
      /^cs_venue_request_duration_seconds_count\{venue="polymarket",endpoint="orderbook",status="200"\} 1$/m,
    )
    assert.equal(await sample(metrics, 'cs_venue_retries_total', { venue: 'kalshi', endpoint: 'markets' }), 1)
    assert.equal(
      await sample(metrics, 'cs_venue_rejected_bodies_total', {
        venue: 'polymarket',
        endpoint: 'orderbook',
        field: 'asks',
      }),
      1,
    )
    assert.equal(await sample(metrics, 'cs_venue_socket_connected', { venue: 'polymarket' }), 0)
    assert.equal(await sample(metrics, 'cs_venue_socket_drops_total', { venue: 'polymarket' }), 1)
    assert.equal(await sample(metrics, 'cs_readings_skipped_total', { reason: 'no-spot' }), 2)
  })

  it('reports each spot exchange’s socket, its REST requests and its unreadable frames, labelled with it', async () => {
    const metrics = createMetrics()
    const kraken = metrics.spotTelemetry('kraken')
    metrics.spotTelemetry('bitstamp')
    // a source made and never connected reads 0 with 0 drops: "fewer than 2 connected" can count it
    assert.equal(await sample(metrics, 'cs_spot_socket_connected', { source: 'bitstamp' }), 0)
    assert.equal(await sample(metrics, 'cs_spot_socket_drops_total', { source: 'bitstamp' }), 0)
    kraken.socket(true)
    assert.equal(await sample(metrics, 'cs_spot_socket_connected', { source: 'kraken' }), 1)
    assert.equal(await sample(metrics, 'cs_spot_socket_drops_total', { source: 'kraken' }), 0)
    kraken.socket(false)
    kraken.socket(false)
    assert.equal(await sample(metrics, 'cs_spot_socket_connected', { source: 'kraken' }), 0)
    assert.equal(await sample(metrics, 'cs_spot_socket_drops_total', { source: 'kraken' }), 2)
    kraken.request('ticker', '503')
    kraken.request('ticker', '503')
    kraken.request('candles', 'timeout')
    assert.equal(
      await sample(metrics, 'cs_spot_rest_requests_total', {
        source: 'kraken',
        endpoint: 'ticker',
        status: '503',
      }),
      2,
    )
    assert.equal(
      await sample(metrics, 'cs_spot_rest_requests_total', {
        source: 'kraken',
        endpoint: 'candles',
        status: 'timeout',
      }),
      1,
    )
    // a bad entry anywhere in an array is one series
    kraken.rejected('ticker.data[0].bid')
    kraken.rejected('ticker.data[3].bid')
    kraken.rejected('message')
    assert.equal(
      await sample(metrics, 'cs_spot_rejected_frames_total', {
        source: 'kraken',
        field: 'ticker.data[].bid',
      }),
      2,
    )
    assert.equal(
      await sample(metrics, 'cs_spot_rejected_frames_total', { source: 'kraken', field: 'message' }),
      1,
    )
  })

  it('reads the age of each venue’s last poll and of each spot source at scrape time', async () => {
    const metrics = createMetrics()
    let now = 100_000
    metrics.watchFeeds(
      () => [
        { name: 'kalshi', state: 'ok', lastOkAt: 97_500 },
        { name: 'polymarket', state: 'ok', lastOkAt: 99_500 },
      ],
      () => [
        { name: 'coinbase', state: 'ok', lastOkAt: 99_000, midDollars: 1, midAt: 99_000, fresh: true },
        { name: 'kraken', state: 'down', lastOkAt: null, midDollars: null, midAt: null, fresh: false },
      ],
      () => now,
      () => now,
    )
    assert.equal(await sample(metrics, 'cs_venue_last_poll_age_seconds', { venue: 'kalshi' }), 2.5)
    assert.equal(await sample(metrics, 'cs_venue_last_poll_age_seconds', { venue: 'polymarket' }), 0.5)
    assert.equal(await sample(metrics, 'cs_spot_source_age_seconds', { source: 'coinbase' }), 1)
    assert.equal(
      await sample(metrics, 'cs_spot_source_age_seconds', { source: 'kraken' }),
      Number.POSITIVE_INFINITY,
    )
    now += 10_000
    assert.equal(await sample(metrics, 'cs_venue_last_poll_age_seconds', { venue: 'kalshi' }), 12.5)
  })

  it('registers a gauge only for the sources this process has', async () => {
    const metrics = createMetrics()
    const text = await metrics.registry.metrics()
    for (const name of [
      'cs_streams_open',
      'cs_engine_leader',
      'cs_store_up',
      'cs_redis_up',
      'cs_venue_last_poll_age_seconds',
      'cs_spot_source_age_seconds',
    ]) {
      assert.doesNotMatch(text, new RegExp(`^# TYPE ${name} `, 'm'))
    }
  })

  it('exports only the families of its role: an engine has no HTTP or fan-out family, an api no venue or skip family', async () => {
    const declared = async (metrics: ReturnType<typeof createMetrics>) =>
      [...(await metrics.registry.metrics()).matchAll(/^# TYPE (cs_\S+) /gm)].map((m) => m[1])
    const engine = createMetrics({ role: 'engine', build: { version: '1', model: 'm' } })
    engine.countSkippedReading('late')
    assert.deepEqual(await declared(engine), [
      'cs_build_info',
      'cs_venue_request_duration_seconds',
      'cs_venue_retries_total',
      'cs_venue_rejected_bodies_total',
      'cs_venue_socket_connected',
      'cs_venue_socket_drops_total',
      'cs_spot_socket_connected',
      'cs_spot_socket_drops_total',
      'cs_spot_rejected_frames_total',
      'cs_spot_rest_requests_total',
      'cs_readings_skipped_total',
    ])
    const api = createMetrics({ role: 'api', build: { version: '1', model: 'm' } })
    api.countRequest('/v1/health', 'GET', 200, 0.001)
    assert.deepEqual(await declared(api), [
      'cs_http_requests_total',
      'cs_http_request_duration_seconds',
      'cs_build_info',
      'cs_http_rate_limited_total',
      'cs_events_fanned_out_total',
      'cs_fanout_lag_seconds',
    ])
    // serve (the default) runs both roles, so it exports both
    assert.equal((await declared(createMetrics())).length, 15)
  })

  it('reads streams, leadership and Redis health at scrape time', async () => {
    const metrics = createMetrics()
    let open = 2
    let leader = true
    let redis: 'ok' | 'degraded' = 'ok'
    metrics.watchStreams(() => open)
    metrics.watchEngine(() => leader)
    metrics.watchRedis(() => redis)
    assert.equal(await sample(metrics, 'cs_streams_open'), 2)
    assert.equal(await sample(metrics, 'cs_engine_leader'), 1)
    assert.equal(await sample(metrics, 'cs_redis_up'), 1)
    open = 0
    leader = false
    redis = 'degraded'
    assert.equal(await sample(metrics, 'cs_streams_open'), 0)
    assert.equal(await sample(metrics, 'cs_engine_leader'), 0)
    assert.equal(await sample(metrics, 'cs_redis_up'), 0)
  })

  it('reports the store up and the heartbeat age from one reading per scrape', async () => {
    const metrics = createMetrics()
    let reads = 0
    metrics.watchStore(
      async () => {
        reads++
        return { reachable: true, engineHeartbeat: 100_000 }
      },
      () => 103_500,
    )
    const text = await metrics.registry.metrics()
    assert.match(text, /^cs_store_up 1$/m)
    assert.match(text, /^cs_engine_heartbeat_age_seconds 3\.5$/m)
    assert.equal(reads, 1)
  })

  it('reports +Inf heartbeat age while no engine has ever written one', async () => {
    const metrics = createMetrics()
    metrics.watchStore(
      async () => ({ reachable: true, engineHeartbeat: null }),
      () => 1,
    )
    assert.match(await metrics.registry.metrics(), /^cs_engine_heartbeat_age_seconds \+Inf$/m)
  })

  it('reports the store down when it fails or does not answer in time, and keeps ageing the last heartbeat', async () => {
    const metrics = createMetrics({ storeTimeoutMs: 30 })
    let mode: 'ok' | 'fail' | 'hang' = 'ok'
    let now = 50_000
    metrics.watchStore(
      () => {
        if (mode === 'fail') return Promise.reject(new Error('connection refused'))
        if (mode === 'hang') return new Promise(() => undefined)
        return Promise.resolve({ reachable: true, engineHeartbeat: 49_000 })
      },
      () => now,
    )
    assert.equal(await sample(metrics, 'cs_store_up'), 1)
    mode = 'fail'
    now = 60_000
    assert.equal(await sample(metrics, 'cs_store_up'), 0)
    assert.equal(await sample(metrics, 'cs_engine_heartbeat_age_seconds'), 11)
    mode = 'hang'
    assert.equal(await sample(metrics, 'cs_store_up'), 0)
  })
})
