// The request rules (src/http/request-rules.ts) hold on both request paths: two Host lines, an
// HTTP/1.1 request without Host, two Authorization lines and a `#` in the request target are each
// a 400 `bad-request`, and so is an HTTP version other than 1.x that Node's parser lets through. Every case first sends the same request without the fault, so the contest
// cache is warm and the fast path answers it (checked: Fastify never saw it); then the faulty one
// goes to an app with the fast path and to one without, and both answers must be that 400, alike
// in status line, header lines and bytes.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect } from 'node:net'
import { after, before, describe, test } from 'node:test'
import {
  expiryOutlastingTheRun,
  makeContest,
  makeIssuedKey,
  makeSettledContest,
  newSeries,
  quarterHourOf,
} from './support/contest-fixtures.ts'
import { createStubStreamHub } from './support/stub-stream-hub.ts'
import { createTestWorld, TEST_BASE_URL, type TestWorld } from './support/test-world.ts'
import { createWireClient, type WireResponse } from './support/wire-client.ts'

type Headers = Record<string, string | string[]>
type Case = {
  name: string
  method?: 'GET' | 'HEAD'
  /** the request without its fault: the fast path answers it from a warm cache */
  clean: { path: string; headers: Headers }
  /** the faulty request */
  path: string
  headers: Headers
  detail: RegExp
  /** a Host fault ends the connection */
  closes: boolean
  /** the router refuses the URL itself: answered without hooks (framework-errors.ts), so unseen */
  routerRefuses?: true
}

describe('request rules on the fast path and the framework path', () => {
  const series = newSeries()
  const key = makeIssuedKey('rules')
  const seenByFastify = new Set<string>()
  let fast: TestWorld
  let framework: TestWorld
  const opensAt = quarterHourOf(Date.now())
  const settled = makeSettledContest({ series, opensAt: opensAt - 15 * 60_000, expiresAt: opensAt })

  before(async () => {
    fast = await createTestWorld({
      fastPath: true,
      streams: createStubStreamHub(),
      beforeListen: (app) => {
        // onRequest (added last) misses what an earlier hook answers; onResponse misses a stream.
        app.addHook('onRequest', async (request) => {
          seenByFastify.add(request.id)
        })
        app.addHook('onResponse', async (request) => {
          seenByFastify.add(request.id)
        })
      },
    })
    framework = await createTestWorld({ fastPath: false, streams: createStubStreamHub() })
    for (const w of [fast, framework]) {
      await w.store.openContest(makeContest({ series, opensAt, expiresAt: expiryOutlastingTheRun(opensAt) }))
      await w.store.importHistory([settled])
      await w.store.createKey(key.record)
      await w.sync()
    }
  })
  after(async () => {
    await fast?.close()
    await framework?.close()
  })

  const auth = { Authorization: `Bearer ${key.key}` }
  const ticker = () => `/v1/contests/${settled.ticker}`
  const active = () => `/v1/contests/active?series=${series}`
  const history = () => `/v1/contests?series=${series}&limit=5`
  const stream = () => `/v1/stream/contests?series=${series}`
  const TWO_HOSTS = /exactly one Host header line/
  const TWO_AUTHORIZATIONS = /one Authorization header line/
  const FRAGMENT = /contains "#"/

  const cases = (): Case[] => [
    {
      name: 'two Host lines, different values',
      clean: { path: ticker(), headers: auth },
      path: ticker(),
      headers: { Host: ['a.example', 'b.example'], ...auth },
      detail: TWO_HOSTS,
      closes: true,
    },
    {
      name: 'two Host lines, the same value',
      clean: { path: active(), headers: auth },
      path: active(),
      headers: { Host: ['127.0.0.1', '127.0.0.1'], ...auth },
      detail: TWO_HOSTS,
      closes: true,
    },
    {
      name: 'two Host lines on a HEAD',
      method: 'HEAD',
      clean: { path: history(), headers: auth },
      path: history(),
      headers: { host: ['a', 'B'], ...auth },
      detail: TWO_HOSTS,
      closes: true,
    },
    {
      name: 'two Host lines on the health check',
      clean: { path: '/v1/health', headers: {} },
      path: '/v1/health',
      headers: { Host: ['a', 'b'] },
      detail: TWO_HOSTS,
      closes: true,
    },
    {
      name: 'no Host line in HTTP/1.1',
      clean: { path: ticker(), headers: auth },
      path: ticker(),
      // an empty list: the wire client sends no Host line at all
      headers: { Host: [], ...auth },
      detail: /must carry a Host header/,
      closes: true,
    },
    {
      name: 'two Authorization lines, the same key',
      clean: { path: ticker(), headers: auth },
      path: ticker(),
      headers: { Authorization: [auth.Authorization, auth.Authorization] },
      detail: TWO_AUTHORIZATIONS,
      closes: false,
    },
    {
      name: 'two Authorization lines, the key second',
      clean: { path: history(), headers: auth },
      path: history(),
      headers: { authorization: ['Bearer cs_someoneElsesKeyXXXXXXXXXXXXXXX', auth.Authorization] },
      detail: TWO_AUTHORIZATIONS,
      closes: false,
    },
    {
      name: 'two Authorization lines on a HEAD',
      method: 'HEAD',
      clean: { path: active(), headers: auth },
      path: active(),
      headers: { Authorization: [auth.Authorization, 'Basic eDp5'] },
      detail: TWO_AUTHORIZATIONS,
      closes: false,
    },
    {
      name: 'two Authorization lines on the stream',
      clean: { path: stream(), headers: auth },
      path: stream(),
      headers: { Authorization: [auth.Authorization, auth.Authorization] },
      detail: TWO_AUTHORIZATIONS,
      closes: false,
    },
    {
      name: 'two Authorization lines on the health check (no key needed there either)',
      clean: { path: '/v1/health', headers: {} },
      path: '/v1/health',
      headers: { Authorization: ['Bearer a', 'Bearer b'] },
      detail: TWO_AUTHORIZATIONS,
      closes: false,
    },
    {
      name: 'a fragment after the series',
      clean: { path: active(), headers: auth },
      path: `${active()}#x`,
      headers: auth,
      detail: FRAGMENT,
      closes: false,
    },
    {
      name: 'a fragment after limit',
      clean: { path: history(), headers: auth },
      path: `${history()}#x`,
      headers: auth,
      detail: FRAGMENT,
      closes: false,
    },
    {
      name: 'a fragment after the ticker',
      clean: { path: ticker(), headers: auth },
      path: `${ticker()}#top`,
      headers: auth,
      detail: FRAGMENT,
      closes: false,
    },
    {
      name: 'an empty fragment on a HEAD',
      method: 'HEAD',
      clean: { path: ticker(), headers: auth },
      path: `${ticker()}#`,
      headers: auth,
      detail: FRAGMENT,
      closes: false,
    },
    {
      name: 'a fragment on the stream',
      clean: { path: stream(), headers: auth },
      path: `${stream()}#x`,
      headers: auth,
      detail: FRAGMENT,
      closes: false,
    },
    {
      name: 'a fragment without a key (the rules come before the key)',
      clean: { path: ticker(), headers: auth },
      path: `${ticker()}#x`,
      headers: {},
      detail: FRAGMENT,
      closes: false,
    },
    {
      name: 'a fragment on the health check and the OpenAPI document',
      clean: { path: '/v1/health', headers: {} },
      path: '/v1/openapi.json#/paths',
      headers: {},
      detail: FRAGMENT,
      closes: false,
    },
    {
      name: 'a fragment on a path segment the router refuses as too long',
      clean: { path: ticker(), headers: auth },
      path: `/v1/contests/${'X'.repeat(300)}#x`,
      headers: auth,
      detail: FRAGMENT,
      closes: false,
      routerRefuses: true,
    },
    {
      name: 'a fragment on a path with a malformed escape',
      clean: { path: ticker(), headers: auth },
      path: '/v1/contests/%zz#x',
      headers: auth,
      detail: FRAGMENT,
      closes: false,
      routerRefuses: true,
    },
  ]

  const comparable = (res: WireResponse) => ({
    statusLine: res.statusLine,
    headers: res.headers.map(([k, v]): [string, string] => (k.toLowerCase() === 'date' ? [k, '*'] : [k, v])),
    body: res.body.toString('latin1'),
  })
  const header = (res: WireResponse, name: string) => res.headers.find(([k]) => k === name)?.[1]

  for (const [i, c] of cases().entries()) {
    test(`${c.name} › 400 bad-request on both paths`, async () => {
      const method = c.method ?? 'GET'
      const isStream = c.clean.path === stream()
      const answers: WireResponse[] = []
      for (const w of [fast, framework]) {
        const port = Number(new URL(w.baseUrl).port)
        // the first loads the cache, the second is answered from it
        for (const id of [`warm-${i}`, `clean-${i}`]) {
          const warm = createWireClient(port)
          const warmed = await warm.send(
            isStream ? 'GET' : method,
            c.clean.path,
            { ...c.clean.headers, 'X-Request-Id': id },
            { headOnly: isStream },
          )
          warm.close()
          assert.match(warmed.statusLine, / 200 /, `${c.name}: the clean request`)
        }
        // one connection per faulty request: a Host fault ends it
        const client = createWireClient(port)
        answers.push(
          await client.send(
            method,
            c.path,
            { ...c.headers, 'X-Request-Id': `rule-${i}` },
            { headOnly: false },
          ),
        )
        client.close()
      }
      // The clean request was the fast path's (keyed and cached), the faulty one the framework's.
      if (c.clean.path !== '/v1/health') assert.ok(!seenByFastify.has(`clean-${i}`), `${c.name}: clean`)
      if (!c.routerRefuses)
        assert.ok(seenByFastify.has(`rule-${i}`), `${c.name}: Fastify answered the faulty request`)
      const [viaFast, viaFramework] = answers as [WireResponse, WireResponse]
      assert.deepEqual(comparable(viaFast), comparable(viaFramework), c.name)
      assert.match(viaFast.statusLine, /^HTTP\/1\.1 400 Bad Request$/)
      assert.match(header(viaFast, 'content-type') ?? '', /^application\/problem\+json/)
      assert.equal(header(viaFast, 'x-content-type-options'), 'nosniff')
      assert.equal(header(viaFast, 'connection') === 'close', c.closes, `${c.name}: connection`)
      if (method === 'HEAD') assert.equal(viaFast.body.length, 0)
      else {
        const problem = JSON.parse(viaFast.body.toString()) as {
          type: string
          status: number
          detail: string
        }
        assert.equal(problem.type, `${TEST_BASE_URL}/problems/bad-request`)
        assert.equal(problem.status, 400)
        assert.match(problem.detail, c.detail)
      }
    })
  }

  test('HTTP/2.0 on a request line, and a request line without a version (HTTP/0.9), are 400 on both paths', async () => {
    for (const line of [`GET ${ticker()} HTTP/2.0`, `GET ${ticker()}`, 'GET /v1/health HTTP/2.0']) {
      for (const w of [fast, framework]) {
        const socket = connect(Number(new URL(w.baseUrl).port), '127.0.0.1')
        socket.write(`${line}\r\nHost: a\r\nAuthorization: ${auth.Authorization}\r\n\r\n`)
        let text = ''
        socket.setEncoding('latin1').on('data', (chunk: string) => {
          text += chunk
        })
        await once(socket, 'close')
        assert.match(text, /^HTTP\/1\.1 400 Bad Request\r\n/, line)
        assert.match(text, /\r\nconnection: close\r\n/i, line)
        assert.match(text, /"detail":"The HTTP version is not one this server speaks/, line)
      }
    }
  })

  test('a request whose lines end in a bare LF is 400 saying so, not blaming its version', async () => {
    for (const w of [fast, framework]) {
      const socket = connect(Number(new URL(w.baseUrl).port), '127.0.0.1')
      socket.write(`GET ${ticker()} HTTP/1.1\nHost: a\nAuthorization: ${auth.Authorization}\n\n`)
      let text = ''
      socket.setEncoding('latin1').on('data', (chunk: string) => {
        text += chunk
      })
      await once(socket, 'close')
      assert.match(text, /^HTTP\/1\.1 400 Bad Request\r\n/)
      assert.match(
        text,
        /"detail":"The request line ends in a bare LF: end it, and each header line, with CRLF/,
      )
    }
  })

  test('one Host line, and HTTP/1.0 without Host, are still answered by the fast path', async () => {
    const one = createWireClient(Number(new URL(fast.baseUrl).port))
    await one.send('GET', ticker(), { Host: 'api.example', ...auth, 'X-Request-Id': 'one-host-warm' })
    const res = await one.send('GET', ticker(), { Host: 'api.example', ...auth, 'X-Request-Id': 'one-host' })
    one.close()
    assert.match(res.statusLine, / 200 /)
    assert.ok(!seenByFastify.has('one-host'))

    const socket = connect(Number(new URL(fast.baseUrl).port), '127.0.0.1')
    socket.write(
      `GET ${ticker()} HTTP/1.0\r\nAuthorization: ${auth.Authorization}\r\nX-Request-Id: old\r\n\r\n`,
    )
    let text = ''
    socket.setEncoding('latin1').on('data', (chunk: string) => {
      text += chunk
    })
    await once(socket, 'close')
    assert.match(text, /^HTTP\/1\.1 200 /)
    assert.ok(!seenByFastify.has('old'))
  })
})
