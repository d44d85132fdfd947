import assert from 'node:assert/strict'
import { randomInt } from 'node:crypto'
import { describe, test } from 'node:test'
import { rateLimitPolicy } from '../src/main/app-settings.ts'
import type { Store } from '../src/ports/store.ts'
import { createMemoryBucketStore } from '../src/store/memory/memory-bucket-store.ts'
import { createApiClient } from './support/api-client.ts'
import { newSeries, seedLiveContest } from './support/contest-fixtures.ts'
import { createManualClock } from './support/manual-clock.ts'
import { rawExchange } from './support/raw-request.ts'
import { createTestWorld, TEST_BASE_URL, useTestWorld } from './support/test-world.ts'

// One world whose proxy (the loopback test client) is trusted: each test sends its own
// X-Forwarded-For address and so owns a fresh bucket of 5. The buckets' clock stands still, so no
// bucket refills during a test, however slowly the machine runs it.
const BURST = 5
let storeCalls = 0
const series = newSeries()
const bucketClock = createManualClock(Date.now())
const { world, api } = useTestWorld(
  {
    env: { RATE_LIMIT_BURST: String(BURST), RATE_LIMIT_PER_SEC: '0.01', TRUST_PROXY: '127.0.0.1,10.0.0.9' },
    buckets: (config) => createMemoryBucketStore({ ...rateLimitPolicy(config), clock: bucketClock }),
    wrapStore: countingStore,
  },
  async (w) => {
    await seedLiveContest(w.store, series, 1)
  },
)

function countingStore(store: Store): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        storeCalls++
        return value.apply(target, args)
      }
    },
  })
}

let nextHost = 1
/** A client address no other test uses. */
function client(): string {
  return `198.51.${randomInt(0, 255)}.${nextHost++ % 250}`
}

const from = (ip: string, extra: Record<string, string> = {}) => ({ 'x-forwarded-for': ip, ...extra })

async function drain(ip: string, count = BURST): Promise<void> {
  for (let i = 0; i < count; i++) await api.get('/nope', undefined, from(ip))
}

describe('rate limiting', () => {
  test('lets an idle client send the whole burst, then answers 429', async () => {
    const ip = client()
    for (let i = 0; i < BURST; i++) {
      const res = await api.get(`/v1/contests/active?series=${series}`, world.key, from(ip))
      assert.equal(res.status, 200, `request ${i + 1}`)
    }
    const res = await api.get(`/v1/contests/active?series=${series}`, world.key, from(ip))
    assert.equal(res.status, 429)
  })

  test('answers 429 with the spec body and headers', async () => {
    const ip = client()
    await drain(ip)
    const res = await api.get(`/v1/contests?series=${series}`, world.key, from(ip))
    assert.equal(res.status, 429)
    assert.match(res.headers.get('content-type')!, /^application\/problem\+json/)
    assert.equal(res.json.type, `${TEST_BASE_URL}/problems/rate-limited`)
    assert.equal(res.json.title, 'Too Many Requests')
    assert.equal(res.json.status, 429)
    assert.match(res.json.detail, /rate limit is exceeded/i)
    assert.match(res.json.detail, /retry shortly/i)
    assert.match(res.headers.get('retry-after')!, /^[1-9][0-9]*$/)
    // 0.01 tokens per second: one token is 100 s away.
    assert.equal(res.headers.get('retry-after'), '100')
    assert.equal(res.headers.get('x-ratelimit-limit'), String(BURST))
    assert.equal(res.headers.get('x-ratelimit-remaining'), '0')
    assert.equal(res.headers.get('cache-control'), 'no-store')
  })

  test('sends no rate-limit headers on successful responses', async () => {
    const ip = client()
    for (let i = 0; i < BURST; i++) {
      const res = await api.get(`/v1/contests/active?series=${series}`, world.key, from(ip))
      assert.equal(res.status, 200)
      assert.equal(res.headers.get('x-ratelimit-limit'), null)
      assert.equal(res.headers.get('x-ratelimit-remaining'), null)
      assert.equal(res.headers.get('retry-after'), null)
    }
  })

  test('runs nothing else on a refused request: no key check, no store access', async () => {
    const ip = client()
    await drain(ip)
    const before = storeCalls
    const res = await api.get(`/v1/contests?series=${newSeries()}`, `cs_${'Z'.repeat(30)}`, from(ip))
    assert.equal(res.status, 429)
    assert.equal(storeCalls, before)
  })

  test('shares one bucket across every key used from an address', async () => {
    const ip = client()
    const other = await world.issueKey('second')
    for (let i = 0; i < BURST; i++) {
      const key = i % 2 === 0 ? world.key : other.key
      assert.equal((await api.get(`/v1/contests/active?series=${series}`, key, from(ip))).status, 200)
    }
    assert.equal((await api.get(`/v1/contests/active?series=${series}`, other.key, from(ip))).status, 429)
    assert.equal((await api.get(`/v1/contests/active?series=${series}`, world.key, from(ip))).status, 429)
  })

  test('shares one bucket across every endpoint', async () => {
    const ip = client()
    await api.get(`/v1/contests/active?series=${series}`, world.key, from(ip))
    await api.get(`/v1/contests?series=${series}`, world.key, from(ip))
    await api.get('/v1/openapi.json', undefined, from(ip))
    await api.get('/problems/rate-limited', undefined, from(ip))
    await api.get(`/v1/contests/nope`, world.key, from(ip))
    assert.equal((await api.get('/v1/openapi.json', undefined, from(ip))).status, 429)
  })

  test('counts 401s, 404s, 405s, the OpenAPI document, problem pages and the home and dashboard pages', async () => {
    const counted: [string, { method?: string; key?: string }][] = [
      ['/', {}],
      ['/dashboard', {}],
      [`/v1/contests/active?series=${series}`, {}],
      ['/no/such/path', {}],
      ['/v1/contests', { method: 'POST' }],
      ['/v1/openapi.json', {}],
      ['/problems/not-found', {}],
      [`/v1/contests?series=${series}&limit=0`, { key: 'KEY' }],
      ['/v1/health', { method: 'DELETE' }],
      ['/v1/contests', { method: 'OPTIONS' }],
    ]
    for (const [path, opts] of counted) {
      const ip = client()
      for (let i = 0; i < BURST; i++) {
        const res = await api.request(path, {
          method: opts.method,
          key: opts.key ? world.key : undefined,
          headers: from(ip),
        })
        assert.notEqual(res.status, 429, `${opts.method ?? 'GET'} ${path} #${i + 1}`)
      }
      const res = await api.get('/v1/openapi.json', undefined, from(ip))
      assert.equal(res.status, 429, `${opts.method ?? 'GET'} ${path} was not counted`)
    }
  })

  test('counts requests whose URL cannot be decoded', async () => {
    const ip = client()
    for (let i = 0; i < BURST; i++) {
      assert.equal((await api.get('/v1/contests/%E0%A4%A', world.key, from(ip))).status, 400)
    }
    const res = await api.get('/v1/contests/%E0%A4%A', world.key, from(ip))
    assert.equal(res.status, 429)
    assert.equal(res.headers.get('x-ratelimit-limit'), String(BURST))
  })

  test('counts malformed requests and what is answered on the bare socket, then refuses them with 429', async () => {
    const request = (line: string, ip: string, extra = '') =>
      `${line}\r\nHost: x\r\nX-Forwarded-For: ${ip}\r\n${extra}\r\n`
    const status = (text: string) => text.match(/^HTTP\/1\.1 (\d{3}) /)?.[1]
    const kinds: [string, (ip: string) => string, string][] = [
      ['an unknown method', (ip) => request('FROBNICATE /v1/contests HTTP/1.1', ip), '501'],
      ['CONNECT', (ip) => request('CONNECT 127.0.0.1:443 HTTP/1.1', ip), '501'],
      [
        'a malformed header line',
        (ip) => request('GET /v1/contests HTTP/1.1', ip, 'Bad Header: x\r\n'),
        '400',
      ],
      [
        'two Authorization lines',
        (ip) =>
          request('GET /v1/contests HTTP/1.1', ip, 'Authorization: Bearer a\r\nAuthorization: Bearer b\r\n'),
        '400',
      ],
      ['HTTP/2.0', (ip) => request('GET /v1/contests HTTP/2.0', ip), '400'],
      ['a fragment in the target', (ip) => request('GET /v1/contests#x HTTP/1.1', ip), '400'],
    ]
    for (const [kind, bytes, answered] of kinds) {
      const ip = client()
      for (let i = 0; i < BURST; i++)
        assert.equal(status(await rawExchange(world.baseUrl, bytes(ip))), answered, `${kind} #${i + 1}`)
      const refused = await rawExchange(world.baseUrl, bytes(ip))
      assert.equal(status(refused), '429', `${kind} was not counted`)
      assert.match(refused, /\r\nretry-after: \d+\r\n/i, kind)
      assert.match(refused, /\r\nx-ratelimit-remaining: 0\r\n/i, kind)
      assert.equal((await api.get('/nope', undefined, from(ip))).status, 429, kind)
    }
  })

  test('a forwarded hop with a port counts as its address, and one that is no address as its proxy', async () => {
    const ip = client()
    await drain(`${ip}:4711`)
    assert.equal((await api.get('/nope', undefined, from(ip))).status, 429)
    assert.equal((await api.get('/nope', undefined, from(`${ip}:4712`))).status, 429)
    const v6 = `2001:db8:${randomInt(1, 65535).toString(16)}:7`
    await drain(`[${v6}::1]:443`)
    assert.equal((await api.get('/nope', undefined, from(`${v6}::2`))).status, 429)
    // junk reported by the trusted proxy is charged to a proxy of its own (here 10.0.0.9, trusted)
    const proxied = (hop: string) => from(`${hop}, 10.0.0.9`)
    for (let i = 0; i < BURST; i++) await api.get('/nope', undefined, proxied(`junk-${i}`))
    assert.equal((await api.get('/nope', undefined, proxied('more-junk'))).status, 429)
  })

  test('never limits GET or HEAD /v1/health', async () => {
    const ip = client()
    await drain(ip)
    for (let i = 0; i < BURST * 2; i++) {
      assert.equal((await api.get('/v1/health', undefined, from(ip))).status, 200)
      assert.equal((await api.request('/v1/health', { method: 'HEAD', headers: from(ip) })).status, 200)
    }
    assert.equal((await api.get('/v1/health?probe=1', undefined, from(ip))).status, 200)
    // nor a health check too big to parse: its 431 is answered on the bare socket, still uncounted
    const huge = `GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${ip}\r\nX-Padding: ${'x'.repeat(20_000)}\r\n\r\n`
    assert.match(await rawExchange(world.baseUrl, huge), /^HTTP\/1\.1 431 /)
  })

  test('does not count CORS preflights, and answers them when the bucket is empty', async () => {
    const ip = client()
    const preflight = from(ip, { origin: 'https://app.example', 'access-control-request-method': 'GET' })
    for (let i = 0; i < BURST * 2; i++) {
      assert.equal((await api.request('/v1/contests', { method: 'OPTIONS', headers: preflight })).status, 204)
    }
    assert.equal((await api.get(`/v1/contests/active?series=${series}`, world.key, from(ip))).status, 200)
    await drain(ip)
    assert.equal((await api.request('/v1/contests', { method: 'OPTIONS', headers: preflight })).status, 204)
  })

  test('counts by the right-most untrusted X-Forwarded-For address', async () => {
    const ip = client()
    await drain(ip)
    // A client cannot escape its bucket by prepending addresses of its own.
    const spoofed = from(`203.0.113.${randomInt(1, 250)}, ${ip}`)
    assert.equal((await api.get('/nope', undefined, spoofed)).status, 429)
    // Addresses added by trusted proxies are skipped.
    assert.equal((await api.get('/nope', undefined, from(`${ip}, 127.0.0.1`))).status, 429)
  })

  test('counts IPv4-mapped IPv6 as IPv4 and IPv6 by its /64', async () => {
    const ip = client()
    await drain(ip)
    assert.equal((await api.get('/nope', undefined, from(`::ffff:${ip}`))).status, 429)
    const v6 = `2001:db8:${randomInt(1, 65535).toString(16)}:1`
    await drain(`${v6}::1`)
    assert.equal((await api.get('/nope', undefined, from(`${v6}:ffff::2`))).status, 429)
    assert.equal((await api.get('/nope', undefined, from(`${v6.replace(/:1$/, ':2')}::1`))).status, 404)
  })

  test('lets a limited client through again once a token has refilled', async () => {
    // The bucket's clock is the test's: no time passes between requests unless the test says so.
    const clock = createManualClock(Date.now())
    const fast = await createTestWorld({
      env: { RATE_LIMIT_BURST: '1', RATE_LIMIT_PER_SEC: '20' },
      buckets: (config) => createMemoryBucketStore({ ...rateLimitPolicy(config), clock }),
    })
    try {
      const client = createApiClient(fast)
      assert.equal((await client.get('/nope')).status, 404)
      const refused = await client.get('/nope')
      assert.equal(refused.status, 429)
      assert.equal(refused.headers.get('retry-after'), '1')
      clock.advance(40)
      assert.equal((await client.get('/nope')).status, 429, 'less than a token after 40 ms at 20/s')
      clock.advance(20)
      assert.equal((await client.get('/nope')).status, 404)
    } finally {
      await fast.close()
    }
  })
})

describe('rate limiting without a trusted proxy', () => {
  test('ignores X-Forwarded-For and counts the socket peer', async () => {
    const direct = await createTestWorld({ env: { RATE_LIMIT_BURST: '2', RATE_LIMIT_PER_SEC: '0.01' } })
    try {
      const client = createApiClient(direct)
      await client.get('/nope', undefined, { 'x-forwarded-for': '203.0.113.1' })
      await client.get('/nope', undefined, { 'x-forwarded-for': '203.0.113.2' })
      const res = await client.get('/nope', undefined, { 'x-forwarded-for': '203.0.113.3' })
      assert.equal(res.status, 429)
    } finally {
      await direct.close()
    }
  })
})
