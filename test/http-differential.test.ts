// One request path, provably: random requests (fast-check) go to an app with the fast path and to
// one without it (same data, keys and settings), each first as a warm-up so the contest cache holds
// what the fast path would answer from, then again — with the ETag the warm-up returned when the case
// asks for If-None-Match — and the two answers must match in status line, header lines (names,
// order, values; Date and a made-up request id aside) and body bytes. Streams are left to the matrix
// in http-fast-path.test.ts (an open stream has no end to compare). DIFF_RUNS sets the case count.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import fc from 'fast-check'
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
import { DIFF_RUNS as RUNS } from './support/long-runs.ts'
import { createTestWorld, type TestWorld } from './support/test-world.ts'
import { createWireClient, type WireClient, type WireResponse } from './support/wire-client.ts'

const QUARTER = 15 * 60_000

describe('fast path and framework path answer random requests identically (warm cache)', () => {
  const env = { TRUST_PROXY: '127.0.0.1', CORS_ORIGINS: 'https://app.example.com' }
  const series = newSeries()
  const key = makeIssuedKey('prop')
  const revoked = makeIssuedKey('prop-revoked')
  const opensAt = quarterHourOf(Date.now())
  const bare = makeContest({ series, opensAt, expiresAt: expiryOutlastingTheRun(opensAt) })
  const live: Contest = { ...bare, signals: [1, 2, 3].map((minute) => makeSignal(bare, { minute })) }
  const settled = Array.from({ length: 12 }, (_, i) => {
    const c = makeSettledContest({
      series,
      opensAt: opensAt - (i + 1) * QUARTER,
      expiresAt: opensAt - i * QUARTER,
    })
    return {
      ...c,
      signals: [1, 2, 3, 4].map((minute) => ({ ...makeSignal(c, { minute }), outcome: 'win' as const })),
    }
  })
  let fast: TestWorld
  let framework: TestWorld
  let clients: [WireClient, WireClient]
  /** requests the fast app's Fastify saw (those refused by its first hooks aside) */
  let seenByFastify = 0

  before(async () => {
    fast = await createTestWorld({
      env,
      fastPath: true,
      beforeListen: (app) => {
        app.addHook('onRequest', async () => {
          seenByFastify++
        })
      },
    })
    framework = await createTestWorld({ env, fastPath: false })
    for (const w of [fast, framework]) {
      await w.store.openContest(live)
      for (const s of live.signals) await w.store.addSignal(s)
      await w.store.importHistory(settled)
      for (const k of [key, revoked]) await w.store.createKey(k.record)
      await w.store.revokeKey(revoked.record.id, Date.now())
      await w.sync()
    }
    clients = [fast, framework].map((w) => createWireClient(Number(new URL(w.baseUrl).port))) as [
      WireClient,
      WireClient,
    ]
  })
  after(async () => {
    for (const c of clients ?? []) c.close()
    await fast?.close()
    await framework?.close()
  })

  const seriesValue = fc.oneof(
    fc.constant(series),
    fc.constant(live.ticker),
    fc.constant(newSeries()),
    fc.constant(''),
    fc.constant(`${series}%20`),
    fc.constant(encodeURIComponent(series).replace('X', '%58')),
    fc.stringMatching(/^[A-Za-z0-9._~+-]{1,12}$/),
  )
  const limitPart = fc.oneof(
    fc.constant(''),
    fc
      .constantFrom('1', '5', '20', '99', '100', '0', '101', '1e1', '05', 'abc', '')
      .map((l) => `&limit=${l}`),
  )
  const extraPart = fc.constantFrom(
    '',
    '',
    '',
    '&x=1',
    `&series=${series}`,
    '&since=2026-01-01T00:00:00Z',
    '&limit=3',
  )
  const ticker = fc.oneof(
    fc.constantFrom(...settled.map((c) => c.ticker)),
    fc.constant(live.ticker),
    fc.constant(`${series}-NOPE`),
    fc.constant('active'),
    fc.constant('x'.repeat(200)),
    fc.stringMatching(/^[A-Za-z0-9._~-]{1,20}$/),
  )
  /** URLs the fast path answers (with a valid key, no Origin): most cases should be among them */
  const hot = fc.oneof(
    fc.constantFrom(...settled.map((c) => c.ticker), live.ticker).map((t) => `/v1/contests/${t}`),
    fc.constantFrom(series, live.ticker).map((s) => `/v1/contests/active?series=${s}`),
    fc.constantFrom('', '&limit=1', '&limit=5', '&limit=100').map((l) => `/v1/contests?series=${series}${l}`),
  )
  const target = fc.oneof(
    { weight: 15, arbitrary: hot },
    { weight: 4, arbitrary: ticker.map((t) => `/v1/contests/${t}`) },
    {
      weight: 1,
      arbitrary: fc.tuple(ticker, extraPart).map(([t, x]) => `/v1/contests/${t}?${x.slice(1) || 'y=2'}`),
    },
    {
      weight: 4,
      arbitrary: fc.tuple(seriesValue, extraPart).map(([s, x]) => `/v1/contests/active?series=${s}${x}`),
    },
    { weight: 1, arbitrary: fc.constant('/v1/contests/active') },
    {
      weight: 4,
      arbitrary: fc
        .tuple(seriesValue, limitPart, extraPart, fc.boolean())
        .map(([s, l, x, flip]) =>
          flip && l !== ''
            ? `/v1/contests?${l.slice(1)}&series=${s}${x}`
            : `/v1/contests?series=${s}${l}${x}`,
        ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('/v1/contests', '/v1/contests/', '/v1/nowhere', '/', '/v1/health'),
    },
  )
  const request = fc.record({
    method: fc.constantFrom('GET', 'GET', 'GET', 'GET', 'GET', 'HEAD', 'HEAD', 'OPTIONS', 'POST', 'DELETE'),
    target,
    authorization: fc.constantFrom(
      `Bearer ${key.key}`,
      `Bearer ${key.key}`,
      `Bearer ${key.key}`,
      `Bearer ${key.key}`,
      `Bearer ${key.key}`,
      `Bearer ${key.key}`,
      `Bearer ${key.key}`,
      `Bearer ${key.key}`,
      `bearer ${key.key}`,
      `Bearer ${revoked.key}`,
      'Bearer cs_notAKeyThisServerIssuedAtAll',
      'Basic Zm9vOmJhcg==',
      null,
    ),
    acceptEncoding: fc.constantFrom(null, 'gzip', 'br', 'gzip, deflate, br', 'identity', 'br;q=0, gzip', '*'),
    ifNoneMatch: fc.constantFrom(null, null, 'etag', '"0000"', '*'),
    requestId: fc.constantFrom(null, 'given-id', 'not sane'),
    origin: fc.constantFrom(
      null,
      null,
      null,
      null,
      null,
      null,
      'https://app.example.com',
      'https://evil.example.com',
    ),
    forwardedFor: fc.constantFrom(null, '203.0.113.7', '203.0.113.7, 127.0.0.1', '2001:db8::1'),
    noHost: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  })

  function headersOf(r: Req, etag: string | undefined) {
    const h: Record<string, string> = {}
    if (r.authorization !== null) h.Authorization = r.authorization
    if (r.acceptEncoding !== null) h['Accept-Encoding'] = r.acceptEncoding
    if (r.ifNoneMatch === 'etag' && etag !== undefined) h['If-None-Match'] = etag
    else if (r.ifNoneMatch !== null && r.ifNoneMatch !== 'etag') h['If-None-Match'] = r.ifNoneMatch
    if (r.requestId !== null) h['X-Request-Id'] = r.requestId
    if (r.origin !== null) h.Origin = r.origin
    if (r.forwardedFor !== null) h['X-Forwarded-For'] = r.forwardedFor
    return h
  }

  function comparable(res: WireResponse) {
    return {
      statusLine: res.statusLine,
      headers: res.headers.map(([k, v]): [string, string] =>
        k.toLowerCase() === 'date' || k.toLowerCase() === 'x-request-id' ? [k, '*'] : [k, v],
      ),
      body: res.body.toString('latin1').replace(/"time":"[^"]+"/, '"time":"*"'),
    }
  }

  test(`status, headers and bytes agree (${RUNS} random requests)`, async (t) => {
    let compared = 0
    let fastlyAnswered = 0
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const opts = { noHost: r.noHost }
        const warm = headersOf(r, undefined)
        delete warm['If-None-Match']
        let etag: string | undefined
        for (const client of clients) {
          const res = await client.send(r.method, r.target, warm, opts)
          etag ??= res.headers.find(([k]) => k.toLowerCase() === 'etag')?.[1]
        }
        const sent = headersOf(r, etag)
        const seen = seenByFastify
        const [a, b] = (await Promise.all(clients.map((c) => c.send(r.method, r.target, sent, opts)))) as [
          WireResponse,
          WireResponse,
        ]
        compared++
        if (seenByFastify === seen && /^HTTP\/1\.1 (200|304) /.test(a.statusLine)) fastlyAnswered++
        assert.deepEqual(comparable(a), comparable(b))
        const id = (res: WireResponse) => res.headers.find(([k]) => k.toLowerCase() === 'x-request-id')?.[1]
        if (r.requestId === 'given-id' && a.headers.length > 0) assert.equal(id(a), id(b))
      }),
      { numRuns: RUNS },
    )
    t.diagnostic(`${compared} requests compared, ${fastlyAnswered} of them answered by the fast path`)
    // The property is only worth its name if the fast path really answered a good share of it.
    assert.ok(fastlyAnswered >= compared / 10, `${fastlyAnswered} of ${compared} answered by the fast path`)
  })
})

type Req = {
  method: string
  target: string
  authorization: string | null
  acceptEncoding: string | null
  ifNoneMatch: string | null
  requestId: string | null
  origin: string | null
  forwardedFor: string | null
  noHost: boolean
}
