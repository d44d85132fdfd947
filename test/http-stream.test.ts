import assert from 'node:assert/strict'
import { get } from 'node:http'
import { describe, test } from 'node:test'
import { createApiClient } from './support/api-client.ts'
import { newSeries, seedLiveContest } from './support/contest-fixtures.ts'
import { createTestWorldWithRealHub } from './support/real-hub-world.ts'
import { openStream } from './support/sse-client.ts'
import { createStubStreamHub } from './support/stub-stream-hub.ts'
import { createTestWorld, TEST_BASE_URL, useTestWorld } from './support/test-world.ts'
import { waitUntil } from './support/wait.ts'

const hub = createStubStreamHub()
const { world, api } = useTestWorld({ streams: hub })

const streamUrl = (query: string) => `${world.baseUrl}/v1/stream/contests?${query}`

describe('GET /v1/stream/contests', () => {
  test('opens a text/event-stream and hands the response to the stream hub', async () => {
    const series = newSeries()
    const stream = await openStream(streamUrl(`series=${series}`), { key: world.key })
    try {
      assert.equal(stream.status, 200)
      assert.equal(stream.headers.get('content-type'), 'text/event-stream; charset=utf-8')
      assert.equal(stream.headers.get('cache-control'), 'no-store')
      assert.equal(stream.headers.get('x-accel-buffering'), 'no')
      assert.equal(stream.headers.get('content-encoding'), null)
      assert.deepEqual(hub.attached.at(-1), { series, lastEventId: null })
    } finally {
      stream.close()
    }
  })

  test('passes Last-Event-ID to the hub, preferring the header to last_event_id', async () => {
    const series = newSeries()
    const byHeader = await openStream(streamUrl(`series=${series}&last_event_id=from-query`), {
      key: world.key,
      lastEventId: 'abc123-000000000042',
    })
    byHeader.close()
    assert.deepEqual(hub.attached.at(-1), { series, lastEventId: 'abc123-000000000042' })
    const byQuery = await openStream(streamUrl(`series=${series}&last_event_id=from-query`), {
      key: world.key,
    })
    byQuery.close()
    assert.deepEqual(hub.attached.at(-1), { series, lastEventId: 'from-query' })
  })

  test('passes a garbage Last-Event-ID through for the hub to treat as unknown', async () => {
    const series = newSeries()
    const stream = await openStream(streamUrl(`series=${series}`), {
      key: world.key,
      lastEventId: '../../etc;<script>',
    })
    stream.close()
    assert.equal(stream.status, 200)
    assert.equal(hub.attached.at(-1)?.lastEventId, '../../etc;<script>')
  })

  test('copies the CORS and request-id headers onto the stream', async () => {
    const stream = await openStream(streamUrl(`series=${newSeries()}`), {
      key: world.key,
      headers: { origin: 'https://app.example', 'x-request-id': 'stream-req-1' },
    })
    stream.close()
    assert.equal(stream.headers.get('access-control-allow-origin'), '*')
    assert.match(stream.headers.get('access-control-expose-headers')!, /Retry-After/)
    assert.equal(stream.headers.get('x-request-id'), 'stream-req-1')
  })

  test('never compresses the stream', async () => {
    const res = await rawRequestHeaders(streamUrl(`series=${newSeries()}`), {
      authorization: `Bearer ${world.key}`,
      'accept-encoding': 'gzip, br',
    })
    assert.equal(res.status, 200)
    assert.equal(res.headers['content-encoding'], undefined)
  })

  test('returns 400 invalid-parameter for a missing, empty, long or repeated series', async () => {
    for (const query of ['', 'series=', `series=${'A'.repeat(129)}`, 'series=A&series=B']) {
      const res = await api.get(`/v1/stream/contests?${query}`, world.key)
      assert.equal(res.status, 400, query)
      assert.equal(res.json.type, `${TEST_BASE_URL}/problems/invalid-parameter`)
      assert.equal(res.json.invalid_params[0].name, 'series')
    }
  })

  test('costs one request against the rate allowance', async () => {
    const limitedHub = createStubStreamHub()
    const limited = await createTestWorld({
      streams: limitedHub,
      env: { RATE_LIMIT_BURST: '2', RATE_LIMIT_PER_SEC: '0.01' },
    })
    try {
      const stream = await openStream(`${limited.baseUrl}/v1/stream/contests?series=S`, { key: limited.key })
      assert.equal(stream.status, 200)
      const client = createApiClient(limited)
      assert.equal((await client.get('/nope')).status, 404)
      const refused = await openStream(`${limited.baseUrl}/v1/stream/contests?series=S`, { key: limited.key })
      assert.equal(refused.status, 429)
      stream.close()
    } finally {
      await limited.close()
    }
  })

  test('ends open streams cleanly on shutdown', async () => {
    const closingHub = createStubStreamHub()
    const closing = await createTestWorld({ streams: closingHub })
    const stream = await openStream(`${closing.baseUrl}/v1/stream/contests?series=S`, { key: closing.key })
    assert.equal(stream.status, 200)
    await closing.close()
    await stream.ended
    assert.deepEqual(stream.retries, [3000])
  })
})

describe('GET /v1/stream/contests with the real stream hub', () => {
  test('sends the live contest snapshot as events matching the OpenAPI stream schema', async (t) => {
    const real = await createTestWorldWithRealHub()
    t.after(() => real.close())
    const series = newSeries()
    const live = await seedLiveContest(real.store, series, 2)
    await real.sync()
    const stream = await openStream(`${real.baseUrl}/v1/stream/contests?series=${series}`, { key: real.key })
    try {
      assert.equal(stream.status, 200)
      await waitUntil(() => stream.events.length >= 3, 'the snapshot').catch(() => undefined)
      assert.deepEqual(
        stream.events.map((e) => e.event),
        ['contest.opened', 'signal.emitted', 'signal.emitted'],
      )
      assert.equal(JSON.parse(stream.events[0]!.data).ticker, live.ticker)
      const contract = createApiClient(real).contract
      for (const e of stream.events)
        contract.checkStreamEvent('/v1/stream/contests', e.event ?? '', e.id ?? '', e.data)
    } finally {
      stream.close()
    }
  })
})

function rawRequestHeaders(url: string, headers: Record<string, string>) {
  // The stream never ends by itself: read the status line and headers, then drop the socket.
  return new Promise<{ status: number; headers: Record<string, unknown> }>((resolve, reject) => {
    const req = get(url, { headers }, (res) => {
      resolve({ status: res.statusCode!, headers: res.headers })
      res.destroy()
    })
    req.on('error', reject)
  })
}
