// The shared security suite (style: unkey): the same key and rate-limit checks against every keyed
// endpoint. Each endpoint gets its own worlds, so buckets and keys never leak between endpoints.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createApiClient } from './api-client.ts'
import { newSeries, seedLiveContest } from './contest-fixtures.ts'
import { createTestWorld, TEST_BASE_URL, useTestWorld } from './test-world.ts'

export type KeyedEndpoint = {
  name: string
  /** the path of a request that succeeds with a valid key, given a series with a live contest */
  path: (ctx: { series: string; ticker: string }) => string
}

type Probe = { status: number; headers: Headers; body: string }

/** Status and headers of a request; a stream's body is not waited for. */
async function probe(url: string, headers: Record<string, string>): Promise<Probe> {
  const controller = new AbortController()
  const res = await fetch(url, { headers, signal: controller.signal })
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
    controller.abort()
    return { status: res.status, headers: res.headers, body: '' }
  }
  return { status: res.status, headers: res.headers, body: await res.text() }
}

export function runSecuritySuite(endpoint: KeyedEndpoint): void {
  describe(`${endpoint.name} security`, () => {
    let path: string
    const { world, api } = useTestWorld({}, async (w) => {
      const series = newSeries()
      const live = await seedLiveContest(w.store, series, 1)
      path = endpoint.path({ series, ticker: live.ticker })
    })

    const unauthorized = (res: { status: number; json: { type: string; status: number } }) => {
      assert.equal(res.status, 401)
      assert.equal(res.json.type, `${TEST_BASE_URL}/problems/unauthorized`)
      assert.equal(res.json.status, 401)
    }

    test('succeeds with a valid key', async () => {
      const res = await probe(`${world.baseUrl}${path}`, { authorization: `Bearer ${world.key}` })
      assert.equal(res.status, 200)
    })

    test('accepts the Bearer scheme name in any case', async () => {
      for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
        const res = await probe(`${world.baseUrl}${path}`, { authorization: `${scheme} ${world.key}` })
        assert.equal(res.status, 200, scheme)
      }
    })

    test('returns 401 with a bare Bearer challenge when no key is sent', async () => {
      const res = await api.get(path)
      unauthorized(res)
      assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="contest-signals"')
      assert.match(res.headers.get('content-type')!, /^application\/problem\+json/)
    })

    test('returns 401 invalid_token for a malformed key', async () => {
      for (const key of ['not-a-key', 'cs_short', `cs_${'x'.repeat(200)}`, 'cs_abc def']) {
        const res = await api.get(path, key)
        unauthorized(res)
        assert.equal(
          res.headers.get('www-authenticate'),
          'Bearer realm="contest-signals", error="invalid_token"',
        )
      }
    })

    test('returns 401 invalid_token for a wrong scheme', async () => {
      for (const authorization of [`Basic ${world.key}`, `Token ${world.key}`, world.key, 'Bearer']) {
        const res = await api.get(path, undefined, { authorization })
        unauthorized(res)
        assert.match(res.headers.get('www-authenticate')!, /error="invalid_token"/, authorization)
      }
    })

    test('returns 401 invalid_token for an unknown key', async () => {
      const res = await api.get(path, `cs_${'A'.repeat(27)}`)
      unauthorized(res)
      assert.equal(
        res.headers.get('www-authenticate'),
        'Bearer realm="contest-signals", error="invalid_token"',
      )
    })

    test('returns 401 invalid_token for a revoked key', async () => {
      const issued = await world.issueKey('to-revoke')
      assert.equal(
        (await probe(`${world.baseUrl}${path}`, { authorization: `Bearer ${issued.key}` })).status,
        200,
      )
      assert.ok(await world.store.revokeKey(issued.record.id, Date.now()))
      await world.sync()
      const res = await api.get(path, issued.key)
      unauthorized(res)
      assert.equal(
        res.headers.get('www-authenticate'),
        'Bearer realm="contest-signals", error="invalid_token"',
      )
    })

    test('returns 429 rate-limited, before any key check, once the bucket is drained', async () => {
      const limited = await createTestWorld({ env: { RATE_LIMIT_BURST: '2', RATE_LIMIT_PER_SEC: '0.01' } })
      try {
        const client = createApiClient(limited)
        await client.get('/nope')
        await client.get('/nope')
        for (const key of [limited.key, 'garbage', undefined]) {
          const res = await client.get(path, key)
          assert.equal(res.status, 429)
          assert.equal(res.json.type, `${TEST_BASE_URL}/problems/rate-limited`)
          assert.ok(Number(res.headers.get('retry-after')) >= 1)
          assert.equal(res.headers.get('x-ratelimit-limit'), '2')
          assert.equal(res.headers.get('x-ratelimit-remaining'), '0')
          assert.equal(res.headers.get('www-authenticate'), null)
        }
      } finally {
        await limited.close()
      }
    })
  })
}
