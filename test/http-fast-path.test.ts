// The fast path and the framework path give the same answers: each case of a matrix of requests goes
// to an app with the fast path and to one without it (same data, same keys, same settings) as its
// own test, and the answers must match in status, header lines (names, order, values; Date aside,
// and the request id when the server made it up) and body bytes. The fast app also reports which
// requests Fastify saw, so the test knows the hot cases really took the fast path. Every case but
// the streams is sent twice and the second answer compared, so the cache is warm where it matters.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Contest } from '../src/domain/contest.ts'
import {
  expiryOutlastingTheRun,
  makeContest,
  makeIssuedKey,
  makeSettledContest,
  makeSignal,
  newSeries,
  quarterHourOf,
} from './support/contest-fixtures.ts'
import { createStubStreamHub, type StubStreamHub } from './support/stub-stream-hub.ts'
import { createTestWorld, type TestWorld } from './support/test-world.ts'
import { waitUntil } from './support/wait.ts'
import { createWireClient, type WireResponse } from './support/wire-client.ts'

type Case = {
  name: string
  method?: 'GET' | 'HEAD' | 'POST' | 'OPTIONS'
  path: string
  headers?: Record<string, string | string[]>
  /** the fast app must answer it without Fastify (a cache hit it can serve) */
  fast?: boolean
  /** requests from the same client address before the compared one (429) */
  drain?: number
  /** a part of the body that may differ (the health check's time) */
  varies?: RegExp
  /** an open-ended stream: compare the head, and what the hub was asked to open */
  stream?: boolean
  /** send no Host header */
  noHost?: boolean
}

const QUARTER = 15 * 60_000

async function seed(
  worlds: TestWorld[],
  series: string,
  live: Contest,
  settled: Contest[],
  keys: ReturnType<typeof makeIssuedKey>[],
) {
  for (const w of worlds) {
    await w.store.openContest(live)
    for (const s of live.signals) await w.store.addSignal(s)
    await w.store.importHistory(settled)
    for (const k of keys) await w.store.createKey(k.record)
  }
  void series
}

for (const cors of ['*', 'https://app.example.com,https://other.example.com']) {
  describe(`fast path vs framework path (CORS_ORIGINS=${cors})`, () => {
    const env = {
      TRUST_PROXY: '127.0.0.1,10.0.0.0/8',
      RATE_LIMIT_BURST: '10',
      RATE_LIMIT_PER_SEC: '1',
      CORS_ORIGINS: cors,
    }
    const seenByFastify = new Set<string>()
    let fast: TestWorld
    let framework: TestWorld
    const series = newSeries()
    const key = makeIssuedKey('diff')
    const revoked = makeIssuedKey('diff-revoked')
    const opensAt = quarterHourOf(Date.now())
    const bare = makeContest({ series, opensAt, expiresAt: expiryOutlastingTheRun(opensAt) })
    const live: Contest = { ...bare, signals: [1, 2, 3].map((minute) => makeSignal(bare, { minute })) }
    const settled = Array.from({ length: 30 }, (_, i) => {
      const c = makeSettledContest({
        series,
        opensAt: opensAt - (i + 1) * QUARTER,
        expiresAt: opensAt - i * QUARTER,
      })
      return {
        ...c,
        signals: [1, 2, 3, 4, 5].map((minute) => ({ ...makeSignal(c, { minute }), outcome: 'win' as const })),
      }
    })
    let etag = ''

    before(async () => {
      fast = await createTestWorld({
        env,
        fastPath: true,
        streams: createStubStreamHub(),
        beforeListen: (app) => {
          // onResponse misses hijacked streams; onRequest (added last, after the limiter) misses a 429.
          app.addHook('onRequest', async (request) => {
            seenByFastify.add(request.id)
          })
          app.addHook('onResponse', async (request) => {
            seenByFastify.add(request.id)
          })
        },
      })
      framework = await createTestWorld({ env, fastPath: false, streams: createStubStreamHub() })
      await seed([fast, framework], series, live, settled, [key, revoked])
      for (const w of [fast, framework]) {
        await w.store.revokeKey(revoked.record.id, Date.now())
        await w.sync()
      }
      const probe = createWireClient(Number(new URL(framework.baseUrl).port))
      const res = await probe.send('GET', `/v1/contests?series=${series}&limit=100`, {
        Authorization: `Bearer ${key.key}`,
        'X-Forwarded-For': '192.0.2.200',
      })
      probe.close()
      etag = res.headers.find(([k]) => k === 'etag')?.[1] ?? ''
      assert.match(etag, /^"[0-9a-f]{32}"$/)
    })
    after(async () => {
      await fast?.close()
      await framework?.close()
    })

    const auth = () => ({ Authorization: `Bearer ${key.key}` })
    const cases = (): Case[] => {
      const history = `/v1/contests?series=${series}&limit=100`
      const one = `/v1/contests/${settled[0]!.ticker}`
      const active = `/v1/contests/active?series=${series}`
      return [
        { name: 'active contest', path: active, headers: auth(), fast: true },
        {
          name: 'active contest by its live ticker',
          path: `/v1/contests/active?series=${live.ticker}`,
          headers: auth(),
          fast: true,
        },
        { name: 'contest by ticker', path: one, headers: auth(), fast: true },
        { name: 'history, limit=100', path: history, headers: auth(), fast: true },
        {
          name: 'history, default limit',
          path: `/v1/contests?series=${series}`,
          headers: auth(),
          fast: true,
        },
        {
          name: 'history, limit first',
          path: `/v1/contests?limit=5&series=${series}`,
          headers: auth(),
          fast: true,
        },
        {
          name: 'history, gzip',
          path: history,
          headers: { ...auth(), 'Accept-Encoding': 'gzip' },
          fast: true,
        },
        {
          name: 'history, br',
          path: history,
          headers: { ...auth(), 'Accept-Encoding': 'gzip, deflate, br' },
          fast: true,
        },
        {
          name: 'history, br refused',
          path: history,
          headers: { ...auth(), 'Accept-Encoding': 'br;q=0, gzip' },
          fast: true,
        },
        {
          name: 'history, identity only',
          path: history,
          headers: { ...auth(), 'Accept-Encoding': 'identity' },
          fast: true,
        },
        {
          name: 'small body, br accepted',
          path: active,
          headers: { ...auth(), 'Accept-Encoding': 'br' },
          fast: true,
        },
        { name: '304 on the ETag', path: history, headers: { ...auth(), 'If-None-Match': etag }, fast: true },
        {
          name: '304 on the br tag, br accepted',
          path: history,
          headers: { ...auth(), 'If-None-Match': `${etag.slice(0, -1)}-br"`, 'Accept-Encoding': 'br' },
          fast: true,
        },
        {
          name: '200 on another tag',
          path: history,
          headers: { ...auth(), 'If-None-Match': '"0000"' },
          fast: true,
        },
        { name: 'HEAD', method: 'HEAD', path: one, headers: auth(), fast: true },
        {
          name: 'HEAD, br',
          method: 'HEAD',
          path: history,
          headers: { ...auth(), 'Accept-Encoding': 'br' },
          fast: true,
        },
        {
          name: 'HEAD, 304',
          method: 'HEAD',
          path: history,
          headers: { ...auth(), 'If-None-Match': etag },
          fast: true,
        },
        {
          name: 'scheme in lower case',
          path: one,
          headers: { Authorization: `bearer ${key.key}` },
          fast: true,
        },
        {
          name: 'multi-hop X-Forwarded-For behind trusted proxies',
          path: one,
          headers: { ...auth(), 'X-Forwarded-For': '203.0.113.9, 10.1.1.1,10.2.2.2' },
          fast: true,
        },
        {
          name: 'no X-Request-Id: one is made up',
          path: one,
          headers: { ...auth(), 'X-Request-Id': '' },
          fast: true,
        },
        {
          name: 'an insane X-Request-Id is replaced',
          path: one,
          headers: { ...auth(), 'X-Request-Id': 'a b' },
          fast: true,
        },
        {
          name: 'repeated header lines: X-Forwarded-For and Accept-Encoding joined',
          path: history,
          headers: {
            Authorization: `Bearer ${key.key}`,
            'X-Forwarded-For': ['203.0.113.50', '10.0.0.1'],
            'Accept-Encoding': ['identity;q=0.5', 'gzip'],
          },
          fast: true,
        },
        {
          name: 'repeated Authorization is a 400 (request-rules.ts), the first line the key',
          path: one,
          headers: { Authorization: [`Bearer ${key.key}`, 'Bearer cs_notTheKeyButSecond'] },
        },
        {
          name: 'repeated Authorization is a 400, the first line unknown',
          path: one,
          headers: { Authorization: ['Bearer cs_notTheKeyButFirstSoItCounts', `Bearer ${key.key}`] },
        },
        {
          name: 'repeated X-Request-Id is replaced',
          path: one,
          headers: { ...auth(), 'X-Request-Id': ['a', 'b'] },
          fast: true,
        },
        { name: '401, no key', path: one },
        { name: '401, unknown key', path: one, headers: { Authorization: `Bearer cs_${'q'.repeat(30)}` } },
        { name: '401, malformed key', path: one, headers: { Authorization: 'Bearer not a key' } },
        { name: '401, revoked key', path: one, headers: { Authorization: `Bearer ${revoked.key}` } },
        { name: '401 beats 400', path: `/v1/contests?series=${series}&limit=0` },
        { name: '404, unknown ticker', path: `/v1/contests/${series}-NOPE`, headers: auth() },
        { name: '404, no live contest', path: `/v1/contests/active?series=${newSeries()}`, headers: auth() },
        {
          name: '404, encoded ticker',
          path: `/v1/contests/${encodeURIComponent(`${series}/x`)}`,
          headers: auth(),
        },
        { name: '400, limit=0', path: `/v1/contests?series=${series}&limit=0`, headers: auth() },
        { name: '400, limit=1e1', path: `/v1/contests?series=${series}&limit=1e1`, headers: auth() },
        {
          name: '400, repeated series',
          path: `/v1/contests?series=${series}&series=${series}`,
          headers: auth(),
        },
        { name: '400, no series', path: '/v1/contests/active', headers: auth() },
        { name: 'unknown parameter ignored', path: `/v1/contests?series=${series}&x=1`, headers: auth() },
        {
          name: 'encoded series',
          path: `/v1/contests/active?series=${encodeURIComponent(series)}%20`,
          headers: auth(),
        },
        { name: '429, bucket drained', path: one, headers: auth(), drain: 10 },
        { name: '429 without a key', path: one, drain: 10 },
        {
          name: 'cross-origin request',
          path: one,
          headers: { ...auth(), Origin: 'https://app.example.com' },
        },
        { name: 'foreign origin', path: one, headers: { ...auth(), Origin: 'https://evil.example.com' } },
        { name: 'health', path: '/v1/health', varies: /"time":"[^"]+"/ },
        {
          name: 'stream',
          path: `/v1/stream/contests?series=${series}`,
          headers: auth(),
          stream: true,
          fast: true,
        },
        {
          name: 'stream with Last-Event-ID',
          path: `/v1/stream/contests?series=${live.ticker}`,
          headers: { ...auth(), 'Last-Event-ID': 'x-000000000001' },
          stream: true,
          fast: true,
        },
        {
          name: 'stream, last_event_id in the query',
          path: `/v1/stream/contests?series=${series}&last_event_id=a-1`,
          headers: auth(),
          stream: true,
        },
        { name: 'stream, 401', path: `/v1/stream/contests?series=${series}` },
        { name: 'stream, 400', path: '/v1/stream/contests', headers: auth() },
        {
          name: 'stream, HEAD is 405',
          method: 'HEAD',
          path: `/v1/stream/contests?series=${series}`,
          headers: auth(),
        },
        { name: 'stream, 429', path: `/v1/stream/contests?series=${series}`, headers: auth(), drain: 10 },
        { name: '405', method: 'POST', path: one, headers: auth() },
        { name: 'no Host header: 400 on both paths', path: one, headers: auth(), noHost: true },
        { name: 'no Host header on a history page', path: history, headers: auth(), noHost: true },
        { name: 'no Host header, with a query', path: `${one}?x=1`, headers: auth(), noHost: true },
        { name: 'plain OPTIONS on a known path: 204 with Allow', method: 'OPTIONS', path: one },
        { name: 'plain OPTIONS on an unknown path: 404', method: 'OPTIONS', path: '/v1/nowhere' },
        {
          name: 'preflight',
          method: 'OPTIONS',
          path: one,
          headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'GET' },
        },
      ]
    }

    /** Status line, header lines and body, with Date and (optionally) the request id masked. */
    function comparable(res: WireResponse, maskId: boolean, varies?: RegExp) {
      return {
        statusLine: res.statusLine,
        headers: res.headers.map(([k, v]): [string, string] =>
          k.toLowerCase() === 'date' ? [k, '*'] : maskId && k === 'x-request-id' ? [k, '*'] : [k, v],
        ),
        body: varies ? res.body.toString('latin1').replace(varies, '*') : res.body.toString('base64'),
      }
    }

    for (const [i, { name }] of cases().entries()) {
      test(name, async () => {
        // built now: some cases carry the ETag the before() hook read
        const c = cases()[i]!
        const clients = [fast, framework].map((w) => createWireClient(Number(new URL(w.baseUrl).port)))
        try {
          // Each case counts against its own client address, so the bucket is drained only on purpose.
          const hop = `198.51.${Math.floor(i / 250)}.${(i % 250) + 1}`
          const givenId = c.headers?.['X-Request-Id']
          const answers: WireResponse[] = []
          for (const [w, client] of clients.entries()) {
            const headers = { 'X-Forwarded-For': hop, ...c.headers }
            for (let n = 0; n < (c.drain ?? 0); n++)
              await client.send('GET', '/v1/no-such-path', { ...headers, 'X-Request-Id': `drain-${i}-${n}` })
            // The first request loads the caches; the second is the one compared.
            const opts = c.noHost ? { noHost: true } : {}
            if (!c.drain && !c.stream)
              await client.send(c.method ?? 'GET', c.path, { ...headers, 'X-Request-Id': `warm-${i}` }, opts)
            const sent = givenId === undefined ? { ...headers, 'X-Request-Id': `case-${i}` } : headers
            if (givenId === '') delete (sent as Record<string, string>)['X-Request-Id']
            if (c.stream) {
              const once = createWireClient(Number(new URL([fast, framework][w]!.baseUrl).port))
              answers.push(await once.send('GET', c.path, sent, { headOnly: true }))
              once.close()
            } else answers.push(await client.send(c.method ?? 'GET', c.path, sent, opts))
          }
          const [a, b] = answers as [WireResponse, WireResponse]
          assert.deepEqual(
            comparable(a, givenId !== undefined, c.varies),
            comparable(b, givenId !== undefined, c.varies),
            c.name,
          )
          if (c.stream) {
            const [sa, sb] = [fast, framework].map((w) => (w.streams as StubStreamHub).attached.at(-1))
            assert.deepEqual(sa, sb, `${c.name}: what the hub was asked to open`)
          }
          if (c.fast) {
            assert.match(a.statusLine, /^HTTP\/1\.1 (200|304) /, c.name)
            if (givenId === undefined)
              assert.ok(!seenByFastify.has(`case-${i}`), `${c.name}: Fastify answered it`)
          } else if (givenId === undefined && c.method !== 'OPTIONS') {
            assert.ok(seenByFastify.has(`case-${i}`), `${c.name}: expected Fastify to answer`)
          }
        } finally {
          for (const c of clients) c.close()
        }
      })
    }

    test('answers identically while shutting down', async () => {
      const answers: WireResponse[] = []
      const closing: Promise<void>[] = []
      const endShutdowns: Array<() => void> = []
      try {
        for (const w of [fast, framework]) {
          const client = createWireClient(Number(new URL(w.baseUrl).port))
          await client.send('GET', `/v1/contests/${settled[0]!.ticker}`, {
            ...auth(),
            'X-Request-Id': 'warm',
          })
          const hub = w.streams as StubStreamHub
          endShutdowns.push(hub.closeGate.hold())
          closing.push(w.app.close())
          await waitUntil(() => hub.closing, 'the shutdown to begin')
          const fresh = createWireClient(Number(new URL(w.baseUrl).port))
          answers.push(
            await fresh.send('GET', `/v1/contests/${settled[0]!.ticker}`, {
              ...auth(),
              'X-Request-Id': 'bye',
            }),
          )
          fresh.close()
          client.close()
        }
      } finally {
        for (const end of endShutdowns) end()
      }
      await Promise.all(closing)
      const [a, b] = answers as [WireResponse, WireResponse]
      assert.match(a.statusLine, /^HTTP\/1\.1 503 /)
      assert.deepEqual(comparable(a, false), comparable(b, false))
    })
  })
}
