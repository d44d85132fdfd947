// The OpenAPI document's examples are real responses, not hand-typed: this test runs the engine on the
// seeded simulator, serves what it produced through the real app, and records the answers. The
// committed src/http/openapi-examples.json must equal what it records (regenerate with
// UPDATE_OPENAPI_EXAMPLES=1 npx node --test test/openapi-examples.test.ts). Only what differs from
// run to run is normalized: the deployment epoch inside event ids, and the health check's clock.
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type Contest, MINUTE_MS } from '../src/domain/contest.ts'
import { formatEventId } from '../src/domain/event-id.ts'
import { EXAMPLE_BASE_URL, EXAMPLE_EPOCH, type OpenApiExamples } from '../src/http/openapi-examples.ts'
import { StoreUnavailableError } from '../src/ports/store-errors.ts'
import { encodeEventFrame } from '../src/stream/sse-frame.ts'
import { createEngineWorld } from './support/engine-world.ts'
import { rawRequest } from './support/raw-request.ts'
import { REPO_ROOT } from './support/service-process.ts'
import { createTestWorld, TEST_BASE_URL, type TestWorld } from './support/test-world.ts'

const FILE = path.join(REPO_ROOT, 'src/http/openapi-examples.json')
const SERIES = 'KXBTC15M'
const OPEN = Date.parse('2026-11-22T19:00:00Z')

/** What the simulator makes of a day of history and the first minutes of the live contest. */
async function simulatedContests(): Promise<{ settled: Contest[]; live: Contest; result: Contest }> {
  const engineWorld = await createEngineWorld({ seed: 42, start: OPEN + 30_000, backfillDays: 1 })
  try {
    const engine = engineWorld.engine()
    for (let minute = 0; minute <= 3; minute++) {
      engineWorld.time.set(OPEN + minute * MINUTE_MS + 412)
      await engine.tick()
    }
    const settled = await engineWorld.store.listSettled({ series: SERIES, limit: 3 })
    const live = (await engineWorld.store.getLiveContest(SERIES))!
    // the same contest as the venue settles it once closed, for the contest.settled frame
    engineWorld.time.set(live.expiresAt + 2 * MINUTE_MS)
    const settlement = (await engineWorld.venue.result(live.ticker, live.expiresAt + 2 * MINUTE_MS))!
    const { settleContest } = await import('../src/domain/contest.ts')
    return { settled, live, result: settleContest(live, settlement) }
  } finally {
    await engineWorld.close()
  }
}

async function record(): Promise<OpenApiExamples> {
  const { settled, live, result } = await simulatedContests()
  const world: TestWorld = await createTestWorld({ env: { RATE_LIMIT_BURST: '12' } })
  try {
    const { store } = world
    await store.importHistory(settled)
    await store.openContest({ ...live, signals: [] })
    for (const signal of live.signals) await store.addSignal(signal)
    await store.settleContest(live.ticker, {
      kind: 'settled',
      side: result.settledSide!,
      priceDollars: result.settledPriceDollars,
    })
    // the live contest as the API showed it before its result: the store keeps only the settled one now
    const liveWorld = await createTestWorld()
    await liveWorld.store.openContest({ ...live, signals: [] })
    for (const signal of live.signals) await liveWorld.store.addSignal(signal)
    const get = async (w: TestWorld, p: string, headers: Record<string, string> = {}) => {
      const res = await rawRequest(`${w.baseUrl}${p}`, {
        headers: { authorization: `Bearer ${w.key}`, ...headers },
      })
      return { status: res.status, headers: res.headers, json: JSON.parse(res.body.toString() || 'null') }
    }
    const active = await get(liveWorld, `/v1/contests/active?series=${SERIES}`)
    await liveWorld.close()

    const newest = settled[0]!
    const byTicker = await get(world, `/v1/contests/${newest.ticker}`)
    const history = await get(world, `/v1/contests?series=${SERIES}&limit=2`)
    const health = await get(world, '/v1/health')
    const invalid = await get(world, `/v1/contests?series=${SERIES}&limit=0&since=yesterday`)
    const seriesRequired = await get(world, '/v1/contests/active')
    const streamSeriesRequired = await get(world, '/v1/stream/contests')
    const badEscape = await get(world, '/v1/contests/KXBTC15M%ZZ')
    const notFound = await get(world, `/v1/contests/${newest.ticker.slice(0, -3)}`)
    const noLive = await get(world, `/v1/contests/active?series=${SERIES}`)
    const unauthorized = await rawRequest(`${world.baseUrl}/v1/contests/active?series=${SERIES}`)
    let tooMany = await get(world, `/v1/contests/active?series=${SERIES}`)
    while (tooMany.status !== 429) tooMany = await get(world, `/v1/contests/active?series=${SERIES}`)
    const tooLarge = await rawRequest(`${world.baseUrl}/v1/health`, {
      headers: { 'x-padding': 'x'.repeat(20_000) },
    })

    // the store unreachable: what a client sees during a database outage
    const downWorld = await createTestWorld({
      wrapStore: (real) => ({
        ...real,
        getContest: async () => {
          throw new StoreUnavailableError('connection lost')
        },
      }),
    })
    const unavailable = await get(downWorld, `/v1/contests/${newest.ticker}`)
    await downWorld.close()

    const events = await store.eventsAfter(0, 100)
    const frame = (type: string) => {
      const event = events.find((e) => e.type === type && e.ticker === live.ticker)!
      return encodeEventFrame(event.type, formatEventId(EXAMPLE_EPOCH, event.seq), event.data).toString()
    }
    const base = (value: unknown) =>
      JSON.parse(JSON.stringify(value).replaceAll(TEST_BASE_URL, EXAMPLE_BASE_URL))
    return {
      contests: {
        live: active.json,
        settled: byTicker.json,
        history: history.json,
        etag: String(byTicker.headers.etag),
      },
      health: {
        ...health.json,
        version: '1.0.0',
        time: new Date(live.opensAt + 3 * MINUTE_MS + 501).toISOString(),
      },
      problems: {
        'invalid-parameter': base(invalid.json),
        'series-required': base(seriesRequired.json),
        'stream-series-required': base(streamSeriesRequired.json),
        'bad-request': base(badEscape.json),
        'no-live-contest': base(noLive.json),
        unauthorized: base(JSON.parse(unauthorized.body.toString())),
        'not-found': base(notFound.json),
        'rate-limited': base(tooMany.json),
        'request-header-fields-too-large': base(JSON.parse(tooLarge.body.toString())),
        unavailable: base(unavailable.json),
      },
      stream: {
        'contest.opened': frame('contest.opened'),
        'signal.emitted': frame('signal.emitted'),
        'contest.settled': frame('contest.settled'),
        lastEventId: formatEventId(EXAMPLE_EPOCH, events.at(-1)!.seq),
      },
      parameters: {
        series: SERIES,
        ticker: newest.ticker,
        limit: 2,
        since: new Date(newest.expiresAt - 60 * MINUTE_MS).toISOString().replace('.000Z', 'Z'),
        before: new Date(newest.expiresAt).toISOString().replace('.000Z', 'Z'),
      },
    }
  } finally {
    await world.close()
  }
}

describe('OpenAPI examples', () => {
  let recorded: OpenApiExamples
  before(async () => {
    recorded = await record()
    if (process.env.UPDATE_OPENAPI_EXAMPLES) writeFileSync(FILE, `${JSON.stringify(recorded, null, 2)}\n`)
  })
  after(() => undefined)

  it('are the responses the real app gives, as committed in src/http/openapi-examples.json', () => {
    const committed = JSON.parse(readFileSync(FILE, 'utf8'))
    assert.deepEqual(
      committed,
      recorded,
      'stale examples: run UPDATE_OPENAPI_EXAMPLES=1 npx node --test test/openapi-examples.test.ts',
    )
  })

  it('show each state a client meets: a live contest with signals, a settled one, a void-free page', () => {
    assert.equal(recorded.contests.live.state, 'live')
    assert.ok(recorded.contests.live.signals.length >= 3)
    assert.equal(recorded.contests.settled.state, 'settled')
    assert.equal(recorded.contests.history.contests.length, 2)
    assert.equal(recorded.problems['rate-limited'].status, 429)
    assert.equal(recorded.problems['invalid-parameter'].status, 400)
    assert.equal(recorded.problems.unavailable.status, 503)
    assert.match(recorded.stream['signal.emitted'], /^event: signal\.emitted\nid: \S+\ndata: \{.*\}\n\n$/s)
  })

  it('shows under each operation the problem it really answers, not another operation’s', () => {
    const doc = JSON.parse(readFileSync(path.join(REPO_ROOT, 'docs/openapi.json'), 'utf8'))
    const shown = (p: string, status: string) =>
      Object.values(
        doc.paths[p].get.responses[status]?.content?.['application/problem+json']?.examples ?? {},
      ).map((e) => {
        const value = (e as { value: { detail: string; invalid_params?: { name: string }[] } }).value
        return value.invalid_params ? value.invalid_params.map((i) => i.name).join(',') : value.detail
      })
    assert.deepEqual(shown('/v1/contests', '400'), ['limit,since'])
    assert.deepEqual(shown('/v1/contests/active', '400'), ['series'])
    assert.deepEqual(shown('/v1/stream/contests', '400'), ['series'])
    assert.deepEqual(shown('/v1/contests/{ticker}', '400'), ['The URL has invalid percent-encoding.'])
    assert.deepEqual(shown('/v1/contests/active', '404'), ['No live contest matches this series.'])
    assert.deepEqual(shown('/v1/contests/{ticker}', '404'), ['No contest has this ticker.'])
    assert.equal(shown('/v1/contests', '401').length, 1, 'statuses alike everywhere keep their one example')
  })
})
