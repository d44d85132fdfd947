// The access log (decisions §4): one JSON line per answered request — method, path, status, bytes,
// duration, client address, request id, never the key — written the same way whichever request path
// answered. The same requests go to an app with the fast path and one without it; their lines must
// match field for field (time and duration aside).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import {
  expiryOutlastingTheRun,
  makeContest,
  makeIssuedKey,
  newSeries,
  quarterHourOf,
} from './support/contest-fixtures.ts'
import { rawExchange } from './support/raw-request.ts'
import { createTestWorld, type TestWorld } from './support/test-world.ts'
import { waitUntil } from './support/wait.ts'
import { createWireClient } from './support/wire-client.ts'

type Line = Record<string, unknown> & { msg?: string; reqId?: string }

/** A key's characters after the prefix, its first one percent-encoded. */
function escapedTail(key: string): string {
  const tail = key.slice('cs_'.length)
  return `%${tail.charCodeAt(0).toString(16).toUpperCase()}${tail.slice(1)}`
}

describe('access log', () => {
  const series = newSeries()
  const key = makeIssuedKey('log')
  const opensAt = quarterHourOf(Date.now())
  const contest = makeContest({ series, opensAt, expiresAt: expiryOutlastingTheRun(opensAt) })
  const lines: [Line[], Line[]] = [[], []]
  let worlds: [TestWorld, TestWorld]
  const fastAnswered = new Set<string>()

  before(async () => {
    const sink = (i: 0 | 1) => (line: string) => lines[i].push(JSON.parse(line) as Line)
    worlds = [
      await createTestWorld({
        fastPath: true,
        logSink: sink(0),
        beforeListen: (app) =>
          app.addHook('onRequest', async (request) => {
            fastAnswered.delete(request.id)
          }),
      }),
      await createTestWorld({ fastPath: false, logSink: sink(1) }),
    ]
    for (const w of worlds) {
      await w.store.openContest(contest)
      await w.store.createKey(key.record)
    }
  })
  after(async () => {
    for (const w of worlds ?? []) await w.close()
  })

  const auth = () => ({ Authorization: `Bearer ${key.key}` })
  const cases = (): { id: string; method?: string; path: string; headers?: Record<string, string> }[] => [
    { id: 'warm', path: `/v1/contests/${contest.ticker}`, headers: auth() },
    { id: 'hit', path: `/v1/contests/${contest.ticker}`, headers: auth() },
    { id: 'head', method: 'HEAD', path: `/v1/contests/${contest.ticker}`, headers: auth() },
    { id: 'active', path: `/v1/contests/active?series=${series}`, headers: auth() },
    { id: 'history', path: `/v1/contests?series=${series}&limit=5`, headers: auth() },
    { id: 'no-key', path: `/v1/contests/${contest.ticker}` },
    { id: 'key-in-url', path: `/v1/contests/active?series=${series}&k=${key.key}` },
    // the same key with characters percent-encoded, as a client's URL encoder may write it
    { id: 'key-escaped', path: `/v1/contests/active?series=${series}&k=cs%5F${escapedTail(key.key)}` },
    { id: 'unknown', path: `/v1/contests/${series}-NOPE`, headers: auth() },
    { id: 'bad-escape', path: '/v1/contests/%zz', headers: auth() },
    { id: 'options', method: 'OPTIONS', path: '/v1/contests' },
    { id: 'health', path: '/v1/health' },
  ]

  test('one line per answered request, the same on both paths', async () => {
    for (const [i, w] of worlds.entries()) {
      const client = createWireClient(Number(new URL(w.baseUrl).port))
      for (const c of cases()) {
        if (i === 0) fastAnswered.add(c.id)
        await client.send(c.method ?? 'GET', c.path, { ...c.headers, 'X-Request-Id': c.id })
      }
      client.close()
    }
    const expected = cases().length - 1 // the health probe has none
    await waitUntil(
      () => lines.every((l) => l.filter((x) => x.msg === 'request').length >= expected),
      'lines',
    )
    const [fast, framework] = lines.map((l) =>
      l
        .filter((x) => x.msg === 'request')
        .map(({ time, durationMs, ...rest }) => {
          assert.equal(typeof time, 'number')
          assert.equal(typeof durationMs, 'number')
          return rest
        }),
    )
    assert.deepEqual(fast, framework)
    assert.deepEqual(
      fast!.map((l) => l.reqId),
      cases()
        .map((c) => c.id)
        .filter((id) => id !== 'health'),
    )
    const hit = fast!.find((l) => l.reqId === 'hit')!
    assert.deepEqual(
      { ...hit, pid: 0, hostname: '' },
      {
        level: 30,
        pid: 0,
        hostname: '',
        reqId: 'hit',
        method: 'GET',
        path: `/v1/contests/${contest.ticker}`,
        status: 200,
        bytes: hit.bytes,
        address: '127.0.0.1',
        msg: 'request',
      },
    )
    assert.ok(Number(hit.bytes) > 100)
    assert.equal(fast!.find((l) => l.reqId === 'no-key')?.status, 401)
    assert.equal(fast!.find((l) => l.reqId === 'bad-escape')?.status, 400)
    assert.equal(fast!.find((l) => l.reqId === 'options')?.status, 204)
    assert.equal(
      fast!.find((l) => l.reqId === 'key-in-url')?.path,
      `/v1/contests/active?series=${series}&k=cs_[redacted]`,
    )
    // the hot ones really came from the fast path
    for (const id of ['hit', 'head', 'active', 'history']) assert.ok(fastAnswered.has(id), id)
    assert.equal(
      fast!.find((l) => l.reqId === 'key-escaped')?.path,
      `/v1/contests/active?series=${series}&k=cs_[redacted]`,
    )
    // the key's secret part, written either way, is in no line
    const secret = key.key.slice('cs_'.length)
    for (const l of [...lines[0], ...lines[1]]) {
      const text = JSON.stringify(l)
      assert.ok(!text.includes(secret) && !text.includes(escapedTail(key.key)))
    }
  })

  test('a request id the client chose but may not have is replaced, and the line stays valid JSON', async () => {
    for (const [i, w] of worlds.entries()) {
      const client = createWireClient(Number(new URL(w.baseUrl).port))
      const logged = lines[i as 0 | 1]
      const before = logged.length
      // a quote and a brace: echoed into a line, they would break it
      const res = await client.send('GET', `/v1/contests/${contest.ticker}`, {
        ...auth(),
        'X-Request-Id': 'x","status":999,"y":"',
      })
      client.close()
      assert.match(res.statusLine, / 200 /)
      const id = res.headers.find(([name]) => name.toLowerCase() === 'x-request-id')?.[1] ?? ''
      assert.match(id, /^[0-9a-f-]{36}$/, 'a fresh id instead')
      // the sink parses every line as JSON: a broken one would fail there
      await waitUntil(() => logged.slice(before).some((l) => l.reqId === id), 'the line')
      const line = logged.slice(before).find((l) => l.reqId === id)!
      assert.equal(line.status, 200)
    }
  })

  /** Bytes sent on a raw socket: the answer, its X-Request-Id, and the access line it wrote. */
  async function rawAnswerAndLine(bytes: string) {
    const before = lines[0].length
    const text = await rawExchange(worlds[0].baseUrl, bytes)
    await waitUntil(() => lines[0].length > before, 'the line')
    return { text, sentId: /\r\nx-request-id: ([^\r]+)\r\n/i.exec(text)?.[1], line: lines[0].at(-1)! }
  }

  test('a request Node cannot parse gets its line too, with what the bytes say and a request id', async () => {
    const { text, sentId, line } = await rawAnswerAndLine(
      'FROBNICATE /v1/health?x=1 HTTP/1.1\r\nHost: x\r\n\r\n',
    )
    assert.match(text, /^HTTP\/1\.1 501 /)
    assert.equal(line.msg, 'request')
    assert.equal(line.status, 501)
    assert.equal(line.address, '127.0.0.1')
    assert.equal(line.method, 'FROBNICATE')
    assert.equal(line.path, '/v1/health?x=1')
    assert.ok(sentId, 'the answer carries X-Request-Id')
    assert.equal(line.reqId, sentId)
    // a failed health probe is a warning whichever path answered it (pino: 40 warn, 30 info)
    assert.equal(line.level, 40)
  })

  test('a failed health probe is a warning on every path: a refused method, a parser fault, a route', async () => {
    for (const bytes of [
      'TRACE /v1/health HTTP/1.1\r\nHost: x\r\n\r\n',
      'POST /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n',
      'GET /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
    ]) {
      const { text, line } = await rawAnswerAndLine(bytes)
      assert.match(text, /^HTTP\/1\.1 4\d\d /, bytes)
      assert.equal(line.path, '/v1/health', bytes)
      assert.equal(line.level, 40, bytes)
    }
    // any other path's refusal stays at info
    const { line } = await rawAnswerAndLine('TRACE /v1/contests HTTP/1.1\r\nHost: x\r\n\r\n')
    assert.equal(line.level, 30)
  })

  test('bytes that are no request at all get a line with no method or path, and a request id', async () => {
    const { text, sentId, line } = await rawAnswerAndLine(
      '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n',
    )
    assert.match(text, /^HTTP\/1\.1 400 /)
    assert.equal(line.status, 400)
    assert.equal(line.method, '')
    assert.equal(line.path, '')
    assert.ok(sentId, 'the answer carries X-Request-Id')
    assert.equal(line.reqId, sentId)
  })
})
