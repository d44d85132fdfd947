import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createApiClient } from './support/api-client.ts'
import { newSeries, seedLiveContest } from './support/contest-fixtures.ts'
import { rawExchange } from './support/raw-request.ts'
import { createTestWorld, useTestWorld } from './support/test-world.ts'

const ORIGIN = 'https://dashboard.example'

/** The head of a raw answer, its header names in lower case. */
function headOf(answer: string): { status: string; headers: Map<string, string> } {
  const [statusLine = '', ...lines] = answer.slice(0, answer.indexOf('\r\n\r\n')).split('\r\n')
  const headers = new Map<string, string>()
  for (const line of lines)
    headers.set(line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim())
  return { status: statusLine.split(' ')[1] ?? '', headers }
}

/** Requests Node's parser refuses, answered on the bare socket: an unknown method, a bad header line, a head too big. */
const unparsable = (origin: string): [string, string][] => [
  ['501', `FROBNICATE /v1/contests HTTP/1.1\r\nHost: x\r\nOrigin: ${origin}\r\n\r\n`],
  ['400', `GET /v1/health HTTP/1.1\r\nHost: x\r\nOrigin: ${origin}\r\nFoo bar\r\n\r\n`],
  ['431', `GET /v1/contests?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\nOrigin: ${origin}\r\n\r\n`],
]

function assertExposesLimitHeaders(headers: Headers): void {
  const exposed = (headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/\s*,\s*/)
  for (const h of ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining']) {
    assert.ok(exposed.includes(h), `exposes ${h}: ${exposed}`)
  }
}

describe('CORS with CORS_ORIGINS=*', () => {
  const { world, api } = useTestWorld({ env: { RATE_LIMIT_BURST: '20', RATE_LIMIT_PER_SEC: '0.01' } })

  test('answers a preflight with 204, without a key, allowing Authorization and Last-Event-ID', async () => {
    const res = await api.request('/v1/contests/active?series=S', {
      method: 'OPTIONS',
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization, last-event-id',
      },
    })
    assert.equal(res.status, 204)
    assert.equal(res.text, '')
    assert.equal(res.headers.get('access-control-allow-origin'), '*')
    const allowed = res.headers.get('access-control-allow-headers')!.toLowerCase()
    assert.match(allowed, /authorization/)
    assert.match(allowed, /last-event-id/)
    assert.equal(res.headers.get('access-control-allow-methods'), 'GET, HEAD')
    assert.equal(res.headers.get('access-control-allow-credentials'), null)
  })

  test("allows the stream's preflight GET alone, as its Allow does (HEAD there is 405)", async () => {
    const preflight = await api.request('/v1/stream/contests?series=S', {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': 'GET' },
    })
    assert.equal(preflight.status, 204)
    assert.equal(preflight.headers.get('access-control-allow-methods'), 'GET')
    const head = await api.request('/v1/stream/contests?series=S', {
      method: 'HEAD',
      headers: { origin: ORIGIN },
    })
    assert.equal(head.status, 405)
    assert.equal(head.headers.get('allow'), 'GET, OPTIONS')
  })

  test('marks responses readable cross-origin and exposes the rate-limit headers', async () => {
    const series = newSeries()
    await seedLiveContest(world.store, series, 0)
    const res = await api.get(`/v1/contests/active?series=${series}`, world.key, { origin: ORIGIN })
    assert.equal(res.status, 200)
    assert.equal(res.headers.get('access-control-allow-origin'), '*')
    assertExposesLimitHeaders(res.headers)
  })

  test('marks 401 problems readable cross-origin', async () => {
    const res = await api.get('/v1/contests?series=S', undefined, { origin: ORIGIN })
    assert.equal(res.status, 401)
    assert.equal(res.headers.get('access-control-allow-origin'), '*')
  })

  test('marks the answers to requests Node cannot parse readable cross-origin too', async () => {
    for (const [status, bytes] of unparsable(ORIGIN)) {
      const { status: got, headers } = headOf(await rawExchange(world.baseUrl, bytes))
      assert.equal(got, status)
      assert.equal(headers.get('access-control-allow-origin'), '*', status)
    }
  })

  test('marks 429 responses readable cross-origin, rate-limit headers included', async () => {
    const limited = await createTestWorld({ env: { RATE_LIMIT_BURST: '1', RATE_LIMIT_PER_SEC: '0.01' } })
    try {
      const client = createApiClient(limited)
      await client.get('/nope')
      const res = await client.get('/v1/contests?series=S', limited.key, { origin: ORIGIN })
      assert.equal(res.status, 429)
      assert.equal(res.headers.get('access-control-allow-origin'), '*')
      assertExposesLimitHeaders(res.headers)
    } finally {
      await limited.close()
    }
  })
})

describe('CORS with a list of origins', () => {
  const { world, api } = useTestWorld({ env: { CORS_ORIGINS: `${ORIGIN},https://other.example` } })

  test('reflects an allowed origin on the answers to requests Node cannot parse, read from their bytes', async () => {
    for (const [status, bytes] of unparsable(ORIGIN)) {
      const { status: got, headers } = headOf(await rawExchange(world.baseUrl, bytes))
      assert.equal(got, status)
      assert.equal(headers.get('access-control-allow-origin'), ORIGIN, status)
      assert.match(headers.get('vary') ?? '', /origin/i, status)
    }
    for (const [status, bytes] of unparsable('https://evil.example')) {
      const { headers } = headOf(await rawExchange(world.baseUrl, bytes))
      assert.equal(headers.get('access-control-allow-origin'), undefined, status)
    }
  })

  test('reflects an allowed origin and varies on Origin', async () => {
    const res = await api.get('/v1/health', undefined, { origin: ORIGIN })
    assert.equal(res.headers.get('access-control-allow-origin'), ORIGIN)
    assert.match(res.headers.get('vary') ?? '', /origin/i)
  })

  test('gives an origin outside the list no Access-Control-Allow-Origin', async () => {
    const res = await api.get('/v1/health', undefined, { origin: 'https://evil.example' })
    assert.equal(res.status, 200)
    assert.equal(res.headers.get('access-control-allow-origin'), null)
    const preflight = await api.request('/v1/contests', {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    })
    assert.equal(preflight.headers.get('access-control-allow-origin'), null)
  })
})
