import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { gunzipSync } from 'node:zlib'
import { PROBLEM_NAMES, PROBLEMS } from '../src/http/problems.ts'
import type { Store } from '../src/ports/store.ts'
import { createApiClient } from './support/api-client.ts'
import { newSeries, seedLiveContest } from './support/contest-fixtures.ts'
import { rawExchange, rawRequest } from './support/raw-request.ts'
import { createStubStreamHub } from './support/stub-stream-hub.ts'
import { createTestWorld, TEST_BASE_URL, useTestWorld } from './support/test-world.ts'
import { waitUntil } from './support/wait.ts'

const { world, api } = useTestWorld()

const problemType = (name: string) => `${TEST_BASE_URL}/problems/${name}`

/** A store whose listed methods throw the given error; everything else works. */
function failing(methods: (keyof Store)[], error: Error) {
  return (store: Store): Store =>
    new Proxy(store, {
      get(target, prop, receiver) {
        if (methods.includes(prop as keyof Store)) return async () => Promise.reject(error)
        return Reflect.get(target, prop, receiver)
      },
    })
}

describe('problem responses', () => {
  test('answers an unknown path with a 404 not-found problem', async () => {
    for (const path of [
      '/v2/contests',
      '/nowhere',
      '/v1/contests/active/extra',
      '/v1/health/',
      '/V1/health',
    ]) {
      const res = await api.get(path, world.key)
      assert.equal(res.status, 404, path)
      assert.match(res.headers.get('content-type')!, /^application\/problem\+json/)
      assert.deepEqual(Object.keys(res.json).sort(), ['detail', 'status', 'title', 'type'])
      assert.equal(res.json.type, problemType('not-found'))
      assert.equal(res.json.status, 404)
    }
  })

  test('answers other methods on known paths with 405 and Allow', async () => {
    const paths: [string, string][] = [
      ['/v1/contests/active?series=S', 'GET, HEAD, OPTIONS'],
      ['/v1/contests/ANY-TICKER', 'GET, HEAD, OPTIONS'],
      ['/v1/contests?series=S', 'GET, HEAD, OPTIONS'],
      ['/v1/stream/contests?series=S', 'GET, OPTIONS'],
      ['/v1/health', 'GET, HEAD, OPTIONS'],
      ['/v1/openapi.json', 'GET, HEAD, OPTIONS'],
      ['/problems/not-found', 'GET, HEAD, OPTIONS'],
    ]
    for (const [path, allow] of paths) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        const res = await api.request(path, { method, key: world.key })
        assert.equal(res.status, 405, `${method} ${path}`)
        assert.equal(res.headers.get('allow'), allow)
        assert.equal(res.json.type, problemType('method-not-allowed'))
      }
    }
  })

  test('answers rarer methods on known paths with 405 too, and on unknown paths with 404', async () => {
    for (const method of ['TRACE', 'PROPFIND', 'MKCOL']) {
      const known = await rawRequest(`${world.baseUrl}/v1/contests/SOME-TICKER`, { method })
      assert.equal(known.status, 405, method)
      assert.equal(known.headers.allow, 'GET, HEAD, OPTIONS')
      assert.equal(JSON.parse(known.body.toString()).type, problemType('method-not-allowed'))
      const unknown = await rawRequest(`${world.baseUrl}/v1/nowhere`, { method })
      assert.equal(unknown.status, 404, method)
    }
  })

  test('answers HEAD on the stream with 405, as a stream has no headers-only form', async () => {
    const res = await rawRequest(`${world.baseUrl}/v1/stream/contests?series=S`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${world.key}` },
    })
    assert.equal(res.status, 405)
    assert.equal(res.headers.allow, 'GET, OPTIONS')
  })

  test('answers 405 to a POST with a body before reading the body', async () => {
    const res = await fetch(`${world.baseUrl}/v1/contests`, {
      method: 'POST',
      headers: { 'content-type': 'application/xml' },
      body: '<x/>'.repeat(10_000),
    })
    assert.equal(res.status, 405)
    assert.equal(((await res.json()) as { type: string }).type, problemType('method-not-allowed'))
  })

  test('answers a plain OPTIONS (not a preflight) with 204 and Allow', async () => {
    const res = await api.request('/v1/contests', { method: 'OPTIONS' })
    assert.equal(res.status, 204)
    assert.equal(res.headers.get('allow'), 'GET, HEAD, OPTIONS')
  })

  test('answers an unknown server fault with a 500 internal-error that carries no internals', async () => {
    const lines: string[] = []
    const broken = await createTestWorld({
      env: { LOG_LEVEL: 'error' },
      logSink: (line) => lines.push(line),
      wrapStore: failing(['getContest'], new Error('SECRET-DETAIL at /srv/db.ts:42')),
    })
    try {
      const client = createApiClient(broken)
      const res = await client.get('/v1/contests/SOME-TICKER', broken.key, { 'x-request-id': 'req-500-test' })
      assert.equal(res.status, 500)
      assert.equal(res.json.type, problemType('internal-error'))
      assert.equal(res.json.title, 'Internal Server Error')
      assert.doesNotMatch(res.text, /SECRET|srv|stack|Error:/)
      assert.equal(res.headers.get('x-request-id'), 'req-500-test')
      const logged = lines.map((l) => JSON.parse(l)).find((l) => l.level >= 50 && l.err)
      assert.ok(logged, 'the fault is logged')
      assert.equal(logged.reqId, 'req-500-test')
      assert.match(logged.err.message, /SECRET-DETAIL/)
    } finally {
      await broken.close()
    }
  })

  test('answers 503 unavailable with Retry-After when the store cannot be reached', async () => {
    const down = new Error('database is locked')
    const broken = await createTestWorld({
      wrapStore: failing(['ping', 'getContest', 'getLiveContest', 'listSettled', 'findKeyByDigest'], down),
    })
    try {
      const client = createApiClient(broken)
      const res = await client.get('/v1/contests?series=S', broken.key)
      assert.equal(res.status, 503)
      assert.equal(res.json.type, problemType('unavailable'))
      assert.match(res.headers.get('retry-after')!, /^[1-9][0-9]*$/)
      assert.doesNotMatch(res.text, /locked/)
    } finally {
      await broken.close()
    }
  })

  test('answers 503 unavailable with Retry-After while the server shuts down', async () => {
    const streams = createStubStreamHub()
    const endShutdown = streams.closeGate.hold()
    const closing = await createTestWorld({ streams })
    try {
      const client = createApiClient(closing)
      const series = newSeries()
      await seedLiveContest(closing.store, series, 0)
      assert.equal((await client.get(`/v1/contests/active?series=${series}`, closing.key)).status, 200)
      const closed = closing.app.close()
      await waitUntil(() => streams.closing, 'the shutdown to begin')
      for (const path of [`/v1/contests/active?series=${series}`, '/v1/health']) {
        const res = await client.get(path, closing.key)
        assert.equal(res.status, 503, path)
        assert.equal(res.json.type, problemType('unavailable'))
        assert.match(res.headers.get('retry-after')!, /^[1-9][0-9]*$/)
      }
      endShutdown()
      await closed
    } finally {
      endShutdown()
      await closing.close()
    }
  })

  test('answers oversized request headers with a 431 problem', async () => {
    const res = await rawRequest(`${world.baseUrl}/v1/health`, { headers: { 'x-big': 'x'.repeat(20_000) } })
    assert.equal(res.status, 431)
    assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8')
    assert.equal(JSON.parse(res.body.toString()).type, problemType('request-header-fields-too-large'))
  })

  test('answers a malformed request with a 400 bad-request problem', async () => {
    const text = await rawExchange(world.baseUrl, 'GET not a request\r\n\r\n')
    assert.match(text, /^HTTP\/1\.1 400 /)
    assert.match(text, /application\/problem\+json/)
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))
    assert.equal(body.type, problemType('bad-request'))
  })

  test('echoes a sane X-Request-Id and makes one up otherwise', async () => {
    const echoed = await api.get('/v1/health', undefined, { 'x-request-id': 'abc-123' })
    assert.equal(echoed.headers.get('x-request-id'), 'abc-123')
    const replaced = await api.get('/v1/health', undefined, { 'x-request-id': 'bad id with spaces' })
    assert.match(replaced.headers.get('x-request-id')!, /^[0-9a-f-]{36}$/)
    const made = await api.get('/nope')
    assert.match(made.headers.get('x-request-id')!, /^[0-9a-f-]{36}$/)
  })

  test('never writes an API key or Authorization header to the log', async () => {
    const lines: string[] = []
    const logged = await createTestWorld({ env: { LOG_LEVEL: 'trace' }, logSink: (l) => lines.push(l) })
    try {
      const client = createApiClient(logged)
      await client.get(`/v1/contests?series=${newSeries()}`, logged.key)
      await client.get('/v1/contests?series=S', `cs_${'Q'.repeat(30)}`)
      // a key pasted into X-Request-Id is neither echoed nor logged
      const misplaced = await client.get('/v1/health', undefined, { 'x-request-id': logged.key })
      assert.doesNotMatch(misplaced.headers.get('x-request-id')!, /cs_/)
      assert.ok(lines.length > 0)
      const all = lines.join('\n')
      assert.ok(!all.includes(logged.key))
      assert.ok(!all.includes('Q'.repeat(30)))
      assert.doesNotMatch(all, /bearer/i)
    } finally {
      await logged.close()
    }
  })
})

describe('problem pages', () => {
  test('every problem type URI resolves to a short human page', async () => {
    for (const name of PROBLEM_NAMES) {
      const res = await api.get(`/problems/${name}`)
      assert.equal(res.status, 200, name)
      assert.match(res.headers.get('content-type')!, /^text\/html/)
      assert.ok(res.text.includes(PROBLEMS[name].title), name)
      assert.ok(res.text.includes(problemType(name)), name)
    }
  })

  test('answers an unknown problem name with a 404 problem', async () => {
    for (const name of ['nope', '__proto__', 'constructor', 'toString']) {
      const res = await api.get(`/problems/${name}`)
      assert.equal(res.status, 404, name)
      assert.equal(res.json.type, problemType('not-found'))
    }
  })

  test('compresses pages over 1 KiB with @fastify/compress', async () => {
    const res = await rawRequest(`${world.baseUrl}/problems/rate-limited`, {
      headers: { 'accept-encoding': 'gzip' },
    })
    assert.equal(res.headers['content-encoding'], 'gzip')
    assert.match(gunzipSync(res.body).toString(), /Too Many Requests/)
  })

  test('the type of every problem the API answers has a page', async () => {
    const res = await api.get('/v1/contests?series=S&limit=0', world.key)
    const page = await fetch(`${world.baseUrl}${new URL(res.json.type).pathname}`)
    assert.equal(page.status, 200)
  })
})
