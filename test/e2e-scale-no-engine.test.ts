// Scaled out with no engine leading (every engine killed): the api replicas serve the store as it
// stands, read against the service clock (decisions §3, docs/scaling.md). The contest the store still
// holds live is over once its window closes, on every replica and on every route: expired by ticker,
// no series' active contest, and no stream's fresh-connect snapshot (decisions §6: the snapshot is of
// the live contest, and there is none).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { ContestView } from '../src/domain/contest-view.ts'
import { createPostgresStore } from '../src/store/postgres/postgres-store.ts'
import { dropSchema, uniqueSchemaUrl } from './support/postgres.ts'
import { deletePrefix, REDIS_TEST_URL, uniquePrefix } from './support/redis.ts'
import { runCli, type ServiceProcess, startProcess } from './support/service-process.ts'
import { openStream, type SseClient } from './support/sse-client.ts'
import { MONDAY_NOON_NEW_YORK, pinTimeline } from './support/timeline.ts'
import { eventually, waitFor } from './support/wait.ts'

// four virtual minutes a wall second: a contest's window closes within 4 s of any moment
const SPEED = 240
const SERIES = 'KXBTC15M'

/** the contest an event is about: a contest's own ticker, or a signal's */
const tickerOf = (data: string): string | undefined => {
  const parsed = JSON.parse(data) as { ticker?: string; signal?: { ticker: string } }
  return parsed.ticker ?? parsed.signal?.ticker
}

describe('scaled out, no engine leading: a live contest past its window on every replica', () => {
  const databaseUrl = uniqueSchemaUrl('noengine')
  const redisPrefix = uniquePrefix('noengine')
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: REDIS_TEST_URL,
    REDIS_PREFIX: redisPrefix,
    PORT: '0',
    SIM_SPEED: String(SPEED),
    SIM_SEED: '31',
    SIM_BACKFILL_DAYS: '0',
    LOG_LEVEL: 'info',
  }
  const processes: ServiceProcess[] = []
  const streams: SseClient[] = []
  const urls: string[] = []
  let key = ''
  /** the contest the store holds live when the engine dies */
  let stale: ContestView

  const get = async (base: string, path: string) => {
    const res = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${key}` } })
    return { status: res.status, body: (await res.json()) as Record<string, unknown> }
  }
  /** the replica's service clock, as its health says it */
  const serviceNow = async (base: string) =>
    Date.parse(((await (await fetch(`${base}/v1/health`)).json()) as { time: string }).time)

  before(async () => {
    assert.equal((await runCli(['migrate'], env)).code, 0)
    const pinned = createPostgresStore(databaseUrl)
    await pinTimeline(pinned, MONDAY_NOON_NEW_YORK, SPEED)
    await pinned.close()
    key = (await runCli(['keys', 'create', '--label', 'no-engine'], env)).stdout.trimEnd().split('\n').pop()!
    const engine = startProcess(['engine'], env)
    processes.push(engine)
    for (let i = 0; i < 2; i++) processes.push(startProcess(['api'], env))
    for (const p of processes.slice(1)) urls.push(await p.url)
    await waitFor(
      'a live contest',
      async () =>
        (await get(urls[0]!, `/v1/contests/active?series=${SERIES}`)).status === 200 ? true : undefined,
      20_000,
      50,
    )
    engine.child.kill('SIGKILL')
    await engine.exited
    // what the store holds live now stays so: nothing writes it any more
    const store = createPostgresStore(databaseUrl)
    const live = await store.getLiveContest(SERIES)
    await store.close()
    assert.ok(live, 'the engine left a live contest')
    stale = (await get(urls[0]!, `/v1/contests/${live.ticker}`)).body as unknown as ContestView
    const expiresAt = Date.parse(stale.window.expires_at)
    for (const url of urls)
      await eventually(
        () => serviceNow(url),
        (now) => now >= expiresAt,
        10_000,
      )
  })

  after(async () => {
    for (const s of streams) s.close()
    await Promise.all(processes.map((p) => p.kill('SIGTERM')))
    await dropSchema(databaseUrl)
    await deletePrefix(redisPrefix)
  })

  it('answers it expired by ticker and as no active contest, on each replica', async () => {
    for (const url of urls) {
      const byTicker = await get(url, `/v1/contests/${stale.ticker}`)
      assert.equal(byTicker.status, 200, url)
      assert.equal(byTicker.body.state, 'expired', url)
      assert.equal((await get(url, `/v1/contests/active?series=${SERIES}`)).status, 404, url)
    }
  })

  it('gives a new stream no snapshot of it on any replica: the next event is the next engine’s', async () => {
    for (const url of urls)
      streams.push(await openStream(`${url}/v1/stream/contests?series=${SERIES}`, { key }))
    for (const s of streams) assert.equal(s.status, 200)
    // Order instead of time: a new engine takes the lease, settles the stale contest and opens the
    // next; its opening reaches the streams after any snapshot they were sent.
    processes.push(startProcess(['engine'], env))
    for (const [i, s] of streams.entries()) {
      await waitFor(
        `the next contest's opening on replica ${i + 1}`,
        () =>
          s.events.find(
            (e) =>
              e.event === 'contest.opened' && (JSON.parse(e.data) as ContestView).ticker !== stale.ticker,
          ),
        20_000,
      )
      const replayed = s.events.filter(
        (e) => e.event !== 'contest.settled' && tickerOf(e.data) === stale.ticker,
      )
      assert.deepEqual(
        replayed.map((e) => e.event),
        [],
        `replica ${i + 1} sent the contest whose window had closed as the live one`,
      )
    }
  })
})
