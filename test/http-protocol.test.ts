// Protocol details every response and every method shares: nosniff on every answer, 405 with Allow
// for any other method on a known path (QUERY included), plain OPTIONS, malformed escapes in the
// query, and invalid_params naming every bad parameter.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { rawExchange, rawRequest } from './support/raw-request.ts'
import { openStream } from './support/sse-client.ts'
import { useTestWorld } from './support/test-world.ts'

const { world } = useTestWorld()
const auth = () => ({ authorization: `Bearer ${world.key}` })

describe('X-Content-Type-Options', () => {
  test('every response says nosniff: data, problems, 404, 405, health, OpenAPI, problem pages, preflight, stream, unparseable', async () => {
    const cases: Array<[string, string, Record<string, string>]> = [
      ['GET', '/v1/contests?series=X', auth()],
      ['GET', '/v1/contests?series=X&limit=0', auth()],
      ['GET', '/v1/contests/active?series=X', {}],
      ['GET', '/nowhere', {}],
      ['DELETE', '/v1/contests', {}],
      ['GET', '/v1/health', {}],
      ['HEAD', '/v1/health', {}],
      ['GET', '/v1/openapi.json', {}],
      ['GET', '/problems/not-found', {}],
      ['OPTIONS', '/v1/contests', { origin: 'https://a.example', 'access-control-request-method': 'GET' }],
      ['GET', '/v1/contests/%E0%A4%A', auth()],
    ]
    for (const [method, path, headers] of cases) {
      const res = await rawRequest(`${world.baseUrl}${path}`, { method, headers })
      assert.equal(res.headers['x-content-type-options'], 'nosniff', `${method} ${path} → ${res.status}`)
    }
    const stream = await openStream(`${world.baseUrl}/v1/stream/contests?series=X`, { key: world.key })
    assert.equal(stream.headers.get('x-content-type-options'), 'nosniff')
    stream.close()
  })
})

describe('methods', () => {
  for (const method of ['QUERY', 'PROPFIND', 'TRACE', 'POST', 'DELETE']) {
    test(`${method} on a known path › 405 method-not-allowed with Allow`, async () => {
      const res = await rawRequest(`${world.baseUrl}/v1/contests?series=X`, { method, headers: auth() })
      assert.equal(res.status, 405)
      assert.equal(res.headers.allow, 'GET, HEAD, OPTIONS')
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/)
      if (method !== 'HEAD') assert.equal(JSON.parse(res.body.toString()).status, 405)
    })
  }

  test('QUERY on an unknown path › 404 problem', async () => {
    const res = await rawRequest(`${world.baseUrl}/v2/nothing`, { method: 'QUERY' })
    assert.equal(res.status, 404)
    assert.equal(JSON.parse(res.body.toString()).status, 404)
  })

  test('a plain OPTIONS (not a preflight) › 204 with Allow on a known path, 404 problem elsewhere', async () => {
    const known = await rawRequest(`${world.baseUrl}/v1/stream/contests`, { method: 'OPTIONS' })
    assert.equal(known.status, 204)
    assert.equal(known.headers.allow, 'GET, OPTIONS')
    assert.equal(known.body.length, 0)
    const withOriginOnly = await rawRequest(`${world.baseUrl}/v1/contests/X-1`, {
      method: 'OPTIONS',
      headers: { origin: 'https://a.example' },
    })
    assert.equal(withOriginOnly.status, 204)
    assert.equal(withOriginOnly.headers.allow, 'GET, HEAD, OPTIONS')
    assert.equal(withOriginOnly.headers['access-control-allow-origin'], '*')
    const unknown = await rawRequest(`${world.baseUrl}/nowhere`, { method: 'OPTIONS' })
    assert.equal(unknown.status, 404)
    assert.equal(unknown.headers.allow, undefined)
    assert.equal(JSON.parse(unknown.body.toString()).status, 404)
  })

  test('OPTIONS * asks about the server as a whole › 204 with every method some path allows', async () => {
    const text = await rawExchange(world.baseUrl, 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n')
    assert.match(text, /^HTTP\/1\.1 204 No Content\r\n/)
    assert.match(text, /\r\nallow: GET, HEAD, OPTIONS\r\n/i)
    // another method on `*` names no resource
    const get = await rawExchange(world.baseUrl, 'GET * HTTP/1.1\r\nHost: x\r\n\r\n')
    assert.match(get, /^HTTP\/1\.1 404 Not Found\r\n/)
  })

  test('a method token the parser does not know (FROBNICATE) › 501 not-implemented problem', async () => {
    for (const target of ['/v1/contests', '/nowhere']) {
      const text = await rawExchange(world.baseUrl, `FROBNICATE ${target} HTTP/1.1\r\nHost: x\r\n\r\n`)
      assert.match(text, /^HTTP\/1\.1 501 Not Implemented\r\n/)
      assert.match(text, /\r\nContent-Type: application\/problem\+json; charset=utf-8\r\n/i)
      const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { type: string; status: number }
      assert.equal(body.status, 501)
      assert.match(body.type, /\/problems\/not-implemented$/)
    }
  })

  test('CONNECT (any target, with or without a key) › 501 not-implemented problem, never a dropped connection', async () => {
    for (const target of ['127.0.0.1:443', '/v1/contests?series=X', '*']) {
      const text = await rawExchange(
        world.baseUrl,
        `CONNECT ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${world.key}\r\n\r\n`,
      )
      assert.match(text, /^HTTP\/1\.1 501 Not Implemented\r\n/, target)
      assert.match(text, /\r\nContent-Type: application\/problem\+json; charset=utf-8\r\n/i)
      const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { type: string; status: number }
      assert.equal(body.status, 501)
      assert.match(body.type, /\/problems\/not-implemented$/)
    }
    // and the server keeps answering
    const health = await rawRequest(`${world.baseUrl}/v1/health`)
    assert.equal(health.status, 200)
  })

  test('bytes that are no request line › 400 saying so, never a 5xx: a TLS hello, junk, junk after a good request', async () => {
    const problemOf = (text: string) =>
      JSON.parse(text.slice(text.lastIndexOf('\r\n\r\n') + 4)) as { type: string; detail: string }
    const tlsHello = '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03'
    for (const junk of [tlsHello, 'hello there\r\n\r\n', '\x00\x01\x02\x03']) {
      const text = await rawExchange(world.baseUrl, junk)
      assert.match(text, /^HTTP\/1\.1 400 Bad Request\r\n/, JSON.stringify(junk))
      assert.match(problemOf(text).detail, /not an HTTP\/1\.1 request line/)
    }
    // junk in the same packet as good requests: each good one is answered, in order (RFC 9112
    // §9.3.2), then the junk is 400, not 501 — whether the good one is answered at once or after a
    // store read
    const statuses = (text: string) => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1])
    const good = (path: string) =>
      `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${world.key}\r\n\r\n`
    const text = await rawExchange(world.baseUrl, `${good('/v1/health')}${tlsHello}`)
    assert.deepEqual(statuses(text), ['200', '400'])
    const two = await rawExchange(
      world.baseUrl,
      `${good('/v1/contests/NO-SUCH-TICKER')}${good('/v1/contests?series=X')}GARBAGE\r\n\r\n`,
    )
    assert.deepEqual(statuses(two), ['404', '200', '400'])
    // while an unknown method on a good line after a good request stays 501
    const frob = await rawExchange(
      world.baseUrl,
      'GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\nFROB /x HTTP/1.1\r\nHost: x\r\n\r\n',
    )
    assert.deepEqual(statuses(frob), ['200', '501'])
  })

  test('a malformed header or framing › 400 naming which', async () => {
    const header = await rawExchange(world.baseUrl, 'GET /v1/health HTTP/1.1\r\nBad Header: x\r\n\r\n')
    assert.match(header, /^HTTP\/1\.1 400 /)
    assert.match(header, /header line is malformed/)
    const framing = await rawExchange(
      world.baseUrl,
      'POST /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
    )
    assert.match(framing, /^HTTP\/1\.1 400 /)
    assert.match(framing, /framing is malformed/)
  })

  test('a CORS preflight is still answered 204 without a key', async () => {
    const res = await rawRequest(`${world.baseUrl}/v1/contests`, {
      method: 'OPTIONS',
      headers: { origin: 'https://a.example', 'access-control-request-method': 'GET' },
    })
    assert.equal(res.status, 204)
    assert.equal(res.headers['access-control-allow-origin'], '*')
  })
})

describe('query parameters', () => {
  test('?series=%ZZ › 400 invalid-parameter, as a malformed escape in the path is 400', async () => {
    for (const bad of ['%ZZ', '%', 'a%2', '%E0%A4%A']) {
      const res = await rawRequest(`${world.baseUrl}/v1/contests?series=${bad}`, { headers: auth() })
      const body = JSON.parse(res.body.toString())
      assert.equal(res.status, 400, bad)
      assert.match(body.type, /\/problems\/invalid-parameter$/)
      assert.deepEqual(
        body.invalid_params.map((p: { name: string }) => p.name),
        ['series'],
      )
    }
    const active = await rawRequest(`${world.baseUrl}/v1/contests/active?series=%ZZ`, { headers: auth() })
    assert.equal(active.status, 400)
    const fine = await rawRequest(`${world.baseUrl}/v1/contests?series=A%25B&x=%ZZ`, { headers: auth() })
    assert.equal(fine.status, 200, 'a valid escape and a malformed unknown parameter are fine')
  })

  test('invalid_params lists every bad parameter, whatever rule each breaks', async () => {
    const cases: Array<[string, string[]]> = [
      ['limit=0&since=yesterday&before=never', ['series', 'limit', 'since', 'before']],
      ['series=A&series=B&limit=1e1&since=x', ['series', 'limit', 'since']],
      ['series=%ZZ&limit=101', ['series', 'limit']],
      [`series=${'x'.repeat(129)}&limit=abc`, ['limit', 'series']],
      // since after before is named with the others, whichever rule they break
      ['limit=0&since=2026-12-03T08:00:00Z&before=2026-12-02T08:00:00Z', ['series', 'limit', 'since']],
      ['series=A&since=2026-12-03T08:00:00Z&before=2026-12-02T08:00:00Z&limit=1e1', ['limit', 'since']],
      ['series=A&series=B&since=2026-12-03T08:00:00Z&before=2026-12-02T08:00:00Z', ['series', 'since']],
    ]
    for (const [query, names] of cases) {
      const res = await rawRequest(`${world.baseUrl}/v1/contests?${query}`, { headers: auth() })
      const body = JSON.parse(res.body.toString())
      assert.equal(res.status, 400, query)
      assert.deepEqual(
        body.invalid_params.map((p: { name: string }) => p.name).sort(),
        [...names].sort(),
        query,
      )
      if (query.includes('since=2026'))
        assert.ok(
          body.invalid_params.some(
            (p: { name: string; reason: string }) =>
              p.name === 'since' && p.reason === 'must not be after before',
          ),
          query,
        )
    }
  })
})
