// The OpenAPI document's examples are real responses, not hand-typed: this test runs the engine on the
// seeded simulator (Kalshi's shapes directly; Polymarket's as `sim tape --venue polymarket` writes
// them, replayed as `replay` does), serves what it produced through the real app, and records the
// answers. The
// committed src/http/openapi-examples.json must equal what it records (regenerate with
// UPDATE_OPENAPI_EXAMPLES=1 npx node --test test/openapi-examples.test.ts). Only what differs from
// run to run is normalized: the deployment epoch inside event ids, and the health check's clock.
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type Contest, MINUTE_MS } from '../src/domain/contest.ts'
import { formatEventId } from '../src/domain/event-id.ts'
import { sharedSimWorld } from '../src/feeds/sim/sim-world.ts'
import { polymarketSimTapeHeader, writePolymarketSimTape } from '../src/feeds/sim-tape/polymarket-sim-tape.ts'
import { EXAMPLE_BASE_URL, EXAMPLE_EPOCH, type OpenApiExamples } from '../src/http/openapi-examples.ts'
import { isProblemName, PROBLEMS } from '../src/http/problems.ts'
import { runReplay } from '../src/main/replay.ts'
import { simTapeWarmupMs } from '../src/main/sim-tape-warmup.ts'
import { StoreUnavailableError } from '../src/ports/store-errors.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { encodeEventFrame } from '../src/stream/sse-frame.ts'
import { createTapeWriter } from '../src/tape/tape-writer.ts'
import { createEngineWorld, ENGINE_WORLD_PARAMS } from './support/engine-world.ts'
import { createManualClock } from './support/manual-clock.ts'
import { rawRequest } from './support/raw-request.ts'
import { replayOptions } from './support/replay-options.ts'
import { REPO_ROOT, tempDir } from './support/service-process.ts'
import { createTestWorld, TEST_BASE_URL, type TestWorld } from './support/test-world.ts'

// biome-ignore lint/suspicious/noExplicitAny: the document is plain JSON walked by key
type Json = any

const FILE = path.join(REPO_ROOT, 'src/http/openapi-examples.json')
const SERIES = 'KXBTC15M'
const PM_SERIES = 'btc-updown-15m'
const SEED = 42
const OPEN = Date.parse('2026-11-22T19:00:00Z')
/** the instant the live examples are shown at: half a minute after the live contest's third reading */
const LIVE_AT = OPEN + 3 * MINUTE_MS + 30_000

/** What the simulator makes of a day of history and the first minutes of the live contest. */
async function simulatedContests(): Promise<{ settled: Contest[]; live: Contest; result: Contest }> {
  const engineWorld = await createEngineWorld({ seed: SEED, start: OPEN + 30_000, backfillDays: 1 })
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

/**
 * The same sandbox and quarter hours on Polymarket: its two windows written as a Polymarket sim tape
 * and replayed, to the end (the earlier one settled) and to the same minute as the Kalshi live contest.
 */
async function simulatedPolymarketContests(): Promise<{ settled: Contest; live: Contest }> {
  const tmp = tempDir('cs-openapi-examples-')
  try {
    const opts = {
      world: sharedSimWorld(SEED, ENGINE_WORLD_PARAMS),
      from: OPEN - 15 * MINUTE_MS,
      days: 2 / 96,
      warmupMs: simTapeWarmupMs(),
      origin: `sim seed ${SEED}`,
    }
    const tapePath = path.join(tmp.dir, 'polymarket.ndjson')
    const writer = await createTapeWriter(tapePath, { header: polymarketSimTapeHeader(opts) })
    await writePolymarketSimTape(opts, writer)
    await writer.close()
    const replayed = async (to?: number) => {
      const store = createSqliteStore(path.join(tmp.dir, `replayed-${to ?? 'end'}.db`))
      await store.migrate()
      await runReplay(replayOptions(tapePath, store, { ...(to === undefined ? {} : { to }) }))
      return store
    }
    const done = await replayed()
    const settled = (await done.listSettled({ series: PM_SERIES, limit: 2 })).find(
      (c) => c.opensAt === OPEN - 15 * MINUTE_MS,
    )!
    await done.close()
    const early = await replayed(LIVE_AT)
    const live = (await early.getLiveContest(PM_SERIES))!
    await early.close()
    return { settled, live }
  } finally {
    tmp.remove()
  }
}

async function record(): Promise<OpenApiExamples> {
  const { settled, live, result } = await simulatedContests()
  const pm = await simulatedPolymarketContests()
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
    // at the instant it was live (the api shows a contest as the service clock says it stands)
    const liveWorld = await createTestWorld({ wallClock: createManualClock(LIVE_AT) })
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
    // the Polymarket contests as the API shows them: the settled one by its ticker, the live one
    const pmWorld = await createTestWorld({ wallClock: createManualClock(LIVE_AT) })
    await pmWorld.store.importHistory([pm.settled])
    await pmWorld.store.openContest({ ...pm.live, signals: [] })
    for (const signal of pm.live.signals) await pmWorld.store.addSignal(signal)
    const pmSettled = await get(pmWorld, `/v1/contests/${pm.settled.ticker}`)
    const pmActive = await get(pmWorld, `/v1/contests/active?series=${PM_SERIES}`)
    await pmWorld.close()

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
    // a fault the service did not expect, its store reachable: the 500 the error handler sends
    const faultWorld = await createTestWorld({
      wrapStore: (real) => ({
        ...real,
        getContest: async () => {
          throw new Error('a fault no rule foresaw')
        },
      }),
    })
    const internal = await get(faultWorld, `/v1/contests/${newest.ticker}`)
    await faultWorld.close()

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
        polymarket: { live: pmActive.json, settled: pmSettled.json },
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
        'internal-error': base(internal.json),
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
    // a contest of each venue, with what that venue's own client needs (decisions §16)
    assert.equal(recorded.contests.settled.venue, 'kalshi')
    const { live: pmLive, settled: pmSettled } = recorded.contests.polymarket
    assert.equal(pmLive.state, 'live')
    assert.ok(pmLive.signals.length >= 3)
    assert.equal(pmSettled.state, 'settled')
    for (const c of [pmLive, pmSettled]) {
      assert.equal(c.venue, 'polymarket')
      assert.deepEqual(Object.keys(c.venue_refs), ['slug', 'condition_id', 'up_token_id', 'down_token_id'])
      assert.equal(c.venue_refs.slug, c.ticker)
      assert.match(c.venue_refs.condition_id, /^0x[0-9a-f]{64}$/)
      assert.match(c.venue_refs.up_token_id, /^[0-9]+$/)
    }
    assert.equal(recorded.problems['rate-limited'].status, 429)
    assert.equal(recorded.problems['invalid-parameter'].status, 400)
    assert.equal(recorded.problems.unavailable.status, 503)
    assert.equal(recorded.problems['internal-error'].status, 500)
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

  it('show under every error status a problem of that status, never another status’s body', () => {
    const doc = JSON.parse(readFileSync(path.join(REPO_ROOT, 'docs/openapi.json'), 'utf8'))
    const shown: string[] = []
    for (const [p, operations] of Object.entries(doc.paths) as [string, Record<string, Json>][]) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [status, response] of Object.entries(operation.responses ?? {}) as [string, Json][]) {
          const problem = response.content?.['application/problem+json']
          if (!problem) continue
          const where = `${method.toUpperCase()} ${p} ${status}`
          const examples = Object.values(problem.examples ?? {}) as { value: Json }[]
          // without one, Swagger UI shows the Problem schema's own example: a 404 under a 500
          assert.ok(examples.length > 0, `${where} shows no example of its own`)
          for (const { value } of examples) {
            assert.equal(value.status, Number(status), where)
            const name = /\/problems\/([a-z-]+)$/.exec(value.type)?.[1] ?? ''
            assert.ok(isProblemName(name), `${where}: ${value.type}`)
            assert.equal(PROBLEMS[name].status, Number(status), `${where}: ${value.type}`)
            assert.equal(value.title, PROBLEMS[name].title, where)
          }
          shown.push(`${status} ${examples.map(({ value }) => value.type.split('/').at(-1)).join(',')}`)
        }
      }
    }
    // the 500 is the body the error handler sends for a fault it did not expect
    assert.ok(shown.includes('500 internal-error'), shown.join('; '))
    assert.deepEqual(recorded.problems['internal-error'], {
      type: `${EXAMPLE_BASE_URL}/problems/internal-error`,
      title: PROBLEMS['internal-error'].title,
      status: 500,
      detail: PROBLEMS['internal-error'].detail,
    })
  })

  it('show a contest of each venue where an integrator looks: the contest operations and the schemas', () => {
    const doc = JSON.parse(readFileSync(path.join(REPO_ROOT, 'docs/openapi.json'), 'utf8'))
    const venues = (examples: { value: { venue: string } }[]) => examples.map((e) => e.value.venue)
    const answered = (p: string) =>
      Object.values(doc.paths[p].get.responses['200'].content['application/json'].examples)
    assert.deepEqual(venues(answered('/v1/contests/active') as never), ['kalshi', 'polymarket'])
    assert.deepEqual(venues(answered('/v1/contests/{ticker}') as never), ['kalshi', 'kalshi', 'polymarket'])
    const { schemas } = doc.components
    assert.deepEqual(
      schemas.Contest.examples.map((c: { venue: string }) => c.venue),
      ['kalshi', 'kalshi', 'polymarket', 'polymarket'],
    )
    assert.deepEqual(schemas.PolymarketRefs.examples, [recorded.contests.polymarket.settled.venue_refs])
    assert.deepEqual(schemas.KalshiRefs.examples, [recorded.contests.settled.venue_refs])
  })
})
