import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { toContestView } from '../src/domain/contest-view.ts'
import {
  makeContest,
  makeSettledContest,
  makeSignal,
  newSeries,
  quarterHourOf,
  seedHistory,
  seedLiveContest,
} from './support/contest-fixtures.ts'
import { TEST_BASE_URL, useTestWorld } from './support/test-world.ts'

const { world, api } = useTestWorld()

const Q = 15 * 60_000
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z')

function assertInvalidParam(
  res: { status: number; json: { type: string; invalid_params: unknown } },
  name: string,
) {
  assert.equal(res.status, 400)
  assert.equal(res.json.type, `${TEST_BASE_URL}/problems/invalid-parameter`)
  const params = res.json.invalid_params as { name: string; reason: string }[]
  assert.ok(
    params.some((p) => p.name === name && p.reason.length > 0),
    `invalid_params names ${name}: ${JSON.stringify(params)}`,
  )
}

describe('GET /v1/contests/active', () => {
  test('returns the live contest of the series with all its signals', async () => {
    const series = newSeries()
    const live = await seedLiveContest(world.store, series, 3)
    const res = await api.get(`/v1/contests/active?series=${series}`, world.key)
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type')!, /^application\/json/)
    assert.deepEqual(res.json, toContestView(live))
    assert.equal(res.json.state, 'live')
    assert.equal(res.json.settled_side, null)
    assert.equal(res.json.settled_price_dollars, null)
    assert.equal(res.json.signals.length, 3)
  })

  test('writes times as RFC 3339 UTC with Z, and raised_at with milliseconds', async () => {
    const series = newSeries()
    await seedLiveContest(world.store, series, 1)
    const { json } = await api.get(`/v1/contests/active?series=${series}`, world.key)
    assert.match(json.window.opens_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
    assert.match(json.window.expires_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
    assert.match(json.signals[0].raised_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
  })

  test('selects a live contest by its full ticker', async () => {
    const series = newSeries()
    const live = await seedLiveContest(world.store, series, 1)
    const res = await api.get(`/v1/contests/active?series=${encodeURIComponent(live.ticker)}`, world.key)
    assert.equal(res.status, 200)
    assert.equal(res.json.ticker, live.ticker)
  })

  test('returns 404 not-found for the ticker of a settled contest', async () => {
    const series = newSeries()
    const [settled] = await seedHistory(world.store, series, 1)
    const res = await api.get(`/v1/contests/active?series=${settled!.ticker}`, world.key)
    assert.equal(res.status, 404)
    assert.equal(res.json.type, `${TEST_BASE_URL}/problems/not-found`)
  })

  test('returns 404 not-found when the series has no live contest', async () => {
    const series = newSeries()
    await seedHistory(world.store, series, 2)
    const res = await api.get(`/v1/contests/active?series=${series}`, world.key)
    assert.equal(res.status, 404)
    assert.match(res.headers.get('content-type')!, /^application\/problem\+json/)
    assert.deepEqual(Object.keys(res.json).sort(), ['detail', 'status', 'title', 'type'])
    assert.equal(res.json.title, 'Not Found')
  })

  test('matches the series exactly and case-sensitively, not as a string prefix', async () => {
    const series = newSeries()
    await seedLiveContest(world.store, series, 0)
    assert.equal((await api.get(`/v1/contests/active?series=${series.toLowerCase()}`, world.key)).status, 404)
    assert.equal((await api.get(`/v1/contests/active?series=${series.slice(0, -1)}`, world.key)).status, 404)
  })

  test('returns 400 invalid-parameter when series is missing, empty, too long or repeated', async () => {
    assertInvalidParam(await api.get('/v1/contests/active', world.key), 'series')
    assertInvalidParam(await api.get('/v1/contests/active?series=', world.key), 'series')
    assertInvalidParam(await api.get(`/v1/contests/active?series=${'A'.repeat(129)}`, world.key), 'series')
    assertInvalidParam(await api.get('/v1/contests/active?series=A&series=B', world.key), 'series')
  })

  test('accepts a series of exactly 128 characters', async () => {
    const res = await api.get(`/v1/contests/active?series=${'A'.repeat(128)}`, world.key)
    assert.equal(res.status, 404)
  })

  test('returns 400 invalid-parameter for a 10 KB parameter', async () => {
    assertInvalidParam(await api.get(`/v1/contests/active?series=${'S'.repeat(10_240)}`, world.key), 'series')
  })

  test('shows a new signal as soon as the event log carries it, with a new ETag', async () => {
    const series = newSeries()
    const live = await seedLiveContest(world.store, series, 1)
    const first = await api.get(`/v1/contests/active?series=${series}`, world.key)
    assert.equal(first.json.signals.length, 1)
    await world.store.addSignal(makeSignal(live, { minute: 2 }))
    await world.sync()
    const second = await api.get(`/v1/contests/active?series=${series}`, world.key)
    assert.equal(second.json.signals.length, 2)
    assert.notEqual(second.headers.get('etag'), first.headers.get('etag'))
  })

  test('returns 404 once the live contest expires, and the next one once it opens', async () => {
    const series = newSeries()
    const live = await seedLiveContest(world.store, series, 0)
    assert.equal((await api.get(`/v1/contests/active?series=${series}`, world.key)).status, 200)
    await world.store.expireContest(live.ticker)
    await world.sync()
    assert.equal((await api.get(`/v1/contests/active?series=${series}`, world.key)).status, 404)
    const next = makeContest({ series, opensAt: live.expiresAt })
    await world.store.openContest(next)
    await world.sync()
    const res = await api.get(`/v1/contests/active?series=${series}`, world.key)
    assert.equal(res.status, 200)
    assert.equal(res.json.ticker, next.ticker)
  })

  test('ignores unknown parameters', async () => {
    const series = newSeries()
    await seedLiveContest(world.store, series, 0)
    const res = await api.get(`/v1/contests/active?series=${series}&foo=1&foo=2&limit=abc`, world.key)
    assert.equal(res.status, 200)
  })
})

describe('GET /v1/contests/{ticker}', () => {
  test('returns a settled contest with its graded signals', async () => {
    const series = newSeries()
    const [settled] = await seedHistory(world.store, series, 1)
    const res = await api.get(`/v1/contests/${settled!.ticker}`, world.key)
    assert.equal(res.status, 200)
    assert.deepEqual(res.json, toContestView(settled!))
    assert.equal(res.json.state, 'settled')
    assert.deepEqual(
      res.json.signals.map((s: { outcome: string }) => s.outcome),
      ['win', 'loss'],
    )
  })

  test('returns a live contest with pending signals', async () => {
    const live = await seedLiveContest(world.store, newSeries(), 2)
    const res = await api.get(`/v1/contests/${live.ticker}`, world.key)
    assert.equal(res.status, 200)
    assert.equal(res.json.state, 'live')
    assert.ok(res.json.signals.every((s: { outcome: string }) => s.outcome === 'pending'))
  })

  test('serves the settled snapshot once the contest settles', async () => {
    const live = await seedLiveContest(world.store, newSeries(), 2)
    assert.equal((await api.get(`/v1/contests/${live.ticker}`, world.key)).json.state, 'live')
    await world.store.settleContest(live.ticker, { kind: 'settled', side: 'up', priceDollars: 97_500 })
    await world.sync()
    const res = await api.get(`/v1/contests/${live.ticker}`, world.key)
    assert.equal(res.json.state, 'settled')
    assert.equal(res.json.settled_side, 'up')
    assert.deepEqual(
      res.json.signals.map((s: { outcome: string }) => s.outcome),
      ['win', 'loss'],
    )
  })

  test('returns 404 not-found for a truncated ticker', async () => {
    const [settled] = await seedHistory(world.store, newSeries(), 1)
    const res = await api.get(`/v1/contests/${settled!.ticker.slice(0, -3)}`, world.key)
    assert.equal(res.status, 404)
    assert.equal(res.json.type, `${TEST_BASE_URL}/problems/not-found`)
  })

  test('returns 404 not-found for empty, unicode, percent-encoded, slashed and very long tickers', async () => {
    const [settled] = await seedHistory(world.store, newSeries(), 1)
    const paths = [
      '/v1/contests/',
      `/v1/contests/${encodeURIComponent('KXBTC15M-ü-15')}`,
      `/v1/contests/${encodeURIComponent('🙂')}`,
      `/v1/contests/${encodeURIComponent(settled!.ticker).replace('-', '%2D')}x`,
      `/v1/contests/${settled!.ticker.replace('-', '%2F')}`,
      `/v1/contests/${settled!.ticker}%2F`,
      `/v1/contests/${'T'.repeat(10_240)}`,
    ]
    for (const path of paths) {
      const res = await api.get(path, world.key)
      assert.equal(res.status, 404, path.slice(0, 80))
      assert.equal(res.json.type, `${TEST_BASE_URL}/problems/not-found`)
    }
  })

  test('decodes a percent-encoded ticker before looking it up', async () => {
    const [settled] = await seedHistory(world.store, newSeries(), 1)
    const encoded = settled!.ticker.replace(/-/g, '%2D')
    const res = await api.get(`/v1/contests/${encoded}`, world.key)
    assert.equal(res.status, 200)
    assert.equal(res.json.ticker, settled!.ticker)
  })

  test('returns 400 bad-request for malformed percent-encoding', async () => {
    for (const path of ['/v1/contests/%', '/v1/contests/%E0%A4%A', '/v1/contests/abc%zz']) {
      const res = await api.get(path, world.key)
      assert.equal(res.status, 400, path)
      assert.equal(res.json.type, `${TEST_BASE_URL}/problems/bad-request`)
      assert.match(res.headers.get('content-type')!, /^application\/problem\+json/)
    }
  })
})

describe('GET /v1/contests', () => {
  test('returns settled contests newest first, excluding live and expired rounds', async () => {
    const series = newSeries()
    const history = await seedHistory(world.store, series, 3)
    const live = await seedLiveContest(world.store, series, 1)
    const expired = makeContest({ series, opensAt: live.opensAt - 2 * Q, state: 'expired' })
    await world.store.openContest({ ...expired, state: 'live' })
    await world.store.expireContest(expired.ticker)
    const res = await api.get(`/v1/contests?series=${series}`, world.key)
    assert.equal(res.status, 200)
    assert.deepEqual(res.json, { contests: history.map(toContestView) })
  })

  test('returns an empty list for a series with no settled contests', async () => {
    const res = await api.get(`/v1/contests?series=${newSeries()}`, world.key)
    assert.equal(res.status, 200)
    assert.deepEqual(res.json, { contests: [] })
  })

  test('returns 20 contests by default and at most limit', async () => {
    const series = newSeries()
    const history = await seedHistory(world.store, series, 25)
    const byDefault = await api.get(`/v1/contests?series=${series}`, world.key)
    assert.equal(byDefault.json.contests.length, 20)
    const three = await api.get(`/v1/contests?series=${series}&limit=3`, world.key)
    assert.deepEqual(
      three.json.contests.map((c: { ticker: string }) => c.ticker),
      history.slice(0, 3).map((c) => c.ticker),
    )
    assert.equal(
      (await api.get(`/v1/contests?series=${series}&limit=100`, world.key)).json.contests.length,
      25,
    )
    assert.equal((await api.get(`/v1/contests?series=${series}&limit=1`, world.key)).json.contests.length, 1)
    assert.equal(
      (await api.get(`/v1/contests?series=${series}&limit=007`, world.key)).json.contests.length,
      7,
    )
  })

  test('treats since and before as inclusive bounds on window.expires_at', async () => {
    const series = newSeries()
    const history = await seedHistory(world.store, series, 5)
    const since = iso(history[3]!.expiresAt)
    const beforeBound = iso(history[1]!.expiresAt)
    const res = await api.get(`/v1/contests?series=${series}&since=${since}&before=${beforeBound}`, world.key)
    assert.deepEqual(
      res.json.contests.map((c: { ticker: string }) => c.ticker),
      history.slice(1, 4).map((c) => c.ticker),
    )
    const single = await api.get(`/v1/contests?series=${series}&since=${since}&before=${since}`, world.key)
    assert.deepEqual(
      single.json.contests.map((c: { ticker: string }) => c.ticker),
      [history[3]!.ticker],
    )
  })

  test('accepts offsets other than Z and fractional seconds', async () => {
    const series = newSeries()
    const history = await seedHistory(world.store, series, 3)
    const exp = new Date(history[1]!.expiresAt)
    const plusOne = new Date(exp.getTime() + 3_600_000)
      .toISOString()
      .replace('Z', '')
      .replace(/\.\d+$/, '')
    const res = await api.get(`/v1/contests?series=${series}&before=${plusOne}%2B01:00`, world.key)
    assert.equal(res.status, 200)
    assert.equal(res.json.contests[0].ticker, history[1]!.ticker)
    const frac = await api.get(
      `/v1/contests?series=${series}&since=${iso(exp.getTime()).replace('Z', '.000Z')}`,
      world.key,
    )
    assert.equal(frac.json.contests.length, 2)
  })

  test('reads every fractional digit of since and before, not only the milliseconds', async () => {
    const series = newSeries()
    const history = await seedHistory(world.store, series, 3)
    const exp = iso(history[1]!.expiresAt)
    const tickers = async (query: string) =>
      (await api.get(`/v1/contests?series=${series}&${query}`, world.key)).json.contests.map(
        (c: { ticker: string }) => c.ticker,
      )
    // A hundred nanoseconds past an expiry is after it: since excludes that contest, before keeps it.
    const justAfter = exp.replace('Z', '.0000001Z')
    assert.deepEqual(await tickers(`since=${justAfter}`), [history[0]!.ticker])
    assert.deepEqual(await tickers(`before=${justAfter}`), [history[1]!.ticker, history[2]!.ticker])
    assert.deepEqual(await tickers(`since=${exp.replace('Z', '.000000000Z')}&before=${justAfter}`), [
      history[1]!.ticker,
    ])
    assertInvalidParam(
      await api.get(
        '/v1/contests?series=S&since=2026-11-22T14:15:00.0009Z&before=2026-11-22T14:15:00.0001Z',
        world.key,
      ),
      'since',
    )
    assert.equal(
      (
        await api.get(
          '/v1/contests?series=S&since=2026-11-22T14:15:00.0001Z&before=2026-11-22T14:15:00.0009Z',
          world.key,
        )
      ).status,
      200,
    )
  })

  test('pages exactly as spec 4.3 says, with no gap and no duplicate', async () => {
    const series = newSeries()
    const history = await seedHistory(world.store, series, 23)
    const seen: string[] = []
    let page = await api.get(`/v1/contests?series=${series}&limit=5`, world.key)
    seen.push(...page.json.contests.map((c: { ticker: string }) => c.ticker))
    for (let i = 0; i < 10 && page.json.contests.length > 1; i++) {
      const oldest = page.json.contests.at(-1).window.expires_at
      page = await api.get(`/v1/contests?series=${series}&limit=5&before=${oldest}`, world.key)
      assert.equal(page.json.contests[0].window.expires_at, oldest, 'before is inclusive: first row repeats')
      seen.push(...page.json.contests.slice(1).map((c: { ticker: string }) => c.ticker))
    }
    assert.deepEqual(
      seen,
      history.map((c) => c.ticker),
    )
  })

  test('orders contests expiring together by ticker descending', async () => {
    const series = newSeries()
    const at = quarterHourOf(Date.now()) - 10 * Q
    const a = makeSettledContest({ series, opensAt: at - Q })
    const b = { ...makeSettledContest({ series, opensAt: at - Q }), ticker: `${a.ticker}B` }
    await world.store.importHistory([
      a,
      { ...b, signals: b.signals.map((s) => ({ ...s, ticker: b.ticker })) },
    ])
    const res = await api.get(`/v1/contests?series=${series}`, world.key)
    assert.deepEqual(
      res.json.contests.map((c: { ticker: string }) => c.ticker),
      [b.ticker, a.ticker],
    )
  })

  test('shows newly imported history once the event log carries it', async () => {
    const series = newSeries()
    await seedHistory(world.store, series, 2)
    assert.equal((await api.get(`/v1/contests?series=${series}`, world.key)).json.contests.length, 2)
    await seedHistory(world.store, series, 1, quarterHourOf(Date.now()) - 20 * Q)
    await world.sync()
    assert.equal((await api.get(`/v1/contests?series=${series}`, world.key)).json.contests.length, 3)
  })

  test('returns 400 invalid-parameter naming limit for 0, 101, abc, 1.5, 1e1, +5, " 5", 0x10, -1 and empty', async () => {
    for (const limit of ['0', '101', 'abc', '1.5', '1e1', '%2B5', '%205', '0x10', '-1', '', '5%20']) {
      const res = await api.get(`/v1/contests?series=S&limit=${limit}`, world.key)
      assertInvalidParam(res, 'limit')
    }
  })

  test('returns 400 invalid-parameter for impossible dates and dates without an offset', async () => {
    const bad = [
      '2026-02-30T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-11-22T24:00:00Z',
      '2026-11-22T23:59:60Z',
      '2026-11-22T14:15:00',
      '2026-11-22',
      '2026-11-22 14:15:00Z',
      '2026-11-22T14:15:00+0100',
      '1763820900',
      'yesterday',
      '',
    ]
    for (const value of bad) {
      assertInvalidParam(
        await api.get(`/v1/contests?series=S&since=${encodeURIComponent(value)}`, world.key),
        'since',
      )
      assertInvalidParam(
        await api.get(`/v1/contests?series=S&before=${encodeURIComponent(value)}`, world.key),
        'before',
      )
    }
  })

  test('returns 400 invalid-parameter when since is after before', async () => {
    const res = await api.get(
      '/v1/contests?series=S&since=2026-11-22T14:15:01Z&before=2026-11-22T14:15:00Z',
      world.key,
    )
    assertInvalidParam(res, 'since')
  })

  test('compares since and before as instants, not as text', async () => {
    const res = await api.get(
      '/v1/contests?series=S&since=2026-11-22T15:00:00%2B01:00&before=2026-11-22T14:30:00Z',
      world.key,
    )
    assert.equal(res.status, 200)
  })

  test('returns 400 naming each repeated parameter', async () => {
    assertInvalidParam(await api.get('/v1/contests?series=A&series=B', world.key), 'series')
    assertInvalidParam(await api.get('/v1/contests?series=A&limit=5&limit=5', world.key), 'limit')
    assertInvalidParam(
      await api.get('/v1/contests?series=A&since=2026-01-01T00:00:00Z&since=2026-01-01T00:00:00Z', world.key),
      'since',
    )
    assertInvalidParam(
      await api.get(
        '/v1/contests?series=A&before=2026-01-01T00:00:00Z&before=2026-01-02T00:00:00Z',
        world.key,
      ),
      'before',
    )
  })

  test('returns 400 invalid-parameter when series is missing or over 128 characters', async () => {
    assertInvalidParam(await api.get('/v1/contests', world.key), 'series')
    assertInvalidParam(await api.get('/v1/contests?limit=5', world.key), 'series')
    assertInvalidParam(await api.get(`/v1/contests?series=${'x'.repeat(10_240)}`, world.key), 'series')
  })

  test('ignores unknown parameters', async () => {
    const res = await api.get(`/v1/contests?series=${newSeries()}&page=2&cursor=x&cursor=y`, world.key)
    assert.equal(res.status, 200)
  })

  test('checks the key before the parameters, so a caller without a key gets 401 whatever it sends', async () => {
    const res = await api.get('/v1/contests?series=S&limit=0')
    assert.equal(res.status, 401)
    assert.equal(res.headers.get('content-type'), 'application/problem+json; charset=utf-8')
    assertInvalidParam(await api.get('/v1/contests?series=S&limit=0', world.key), 'limit')
  })
})
