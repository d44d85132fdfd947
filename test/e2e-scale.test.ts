// Scaled out as operators run it: PostgreSQL, Redis, two `api` replicas and two `engine` processes,
// all real processes on this machine. Clients must not be able to tell it from the embedded default.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { isDeepStrictEqual } from 'node:util'
import type { ContestView } from '../src/domain/contest-view.ts'
import { createPostgresStore } from '../src/store/postgres/postgres-store.ts'
import { clientAddresses } from './support/client-addresses.ts'
import { dropSchema, uniqueSchemaUrl, withTestClient } from './support/postgres.ts'
import { type PrivateRedis, startPrivateRedis } from './support/redis.ts'
import { runCli, type ServiceProcess, startProcess } from './support/service-process.ts'
import { openStream, type SseClient } from './support/sse-client.ts'
import { MONDAY_NOON_NEW_YORK, pinTimeline } from './support/timeline.ts'
import { eventually, waitFor } from './support/wait.ts'

const SPEED = 60 // one contest minute per wall second

function seqOf(id: string): number {
  return Number(id.slice(id.lastIndexOf('-') + 1))
}

describe('scaled out: 2 api replicas + 2 engines on PostgreSQL and Redis', () => {
  const databaseUrl = uniqueSchemaUrl('scale')
  const schema = new URL(databaseUrl).searchParams.get('schema')!
  let redis: PrivateRedis
  let env: Record<string, string>
  const engines: ServiceProcess[] = []
  const apis: ServiceProcess[] = []
  const urls: string[] = []
  const streams: SseClient[] = []
  let key: string
  /** each test, and each poll of the start, speaks from its own client address */
  const newClient = clientAddresses()
  /** The newest event id a fresh stream shows (its snapshot's last frame). */
  const latestEventId = async (base: string, client: string) => {
    const probe = await openStream(`${base}/v1/stream/contests?series=KXBTC15M`, {
      key,
      headers: { 'X-Forwarded-For': client },
    })
    const last = await waitFor('a snapshot', () => probe.events.at(-1)?.id, 15_000)
    probe.close()
    return last
  }
  const get = (base: string, path: string, client: string, withKey = true) =>
    fetch(`${base}${path}`, {
      headers: { 'X-Forwarded-For': client, ...(withKey ? { Authorization: `Bearer ${key}` } : {}) },
    })

  before(async () => {
    redis = await startPrivateRedis()
    env = {
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      PORT: '0',
      SIM_SPEED: String(SPEED),
      SIM_SEED: '21',
      SIM_BACKFILL_DAYS: '1',
      TRUST_PROXY: '127.0.0.1',
      LOG_LEVEL: 'info',
      // the default burst (20), refilled a token every 20 s: the shared-limit test's 21 requests in a
      // row met a refill on a loaded machine; every other test asks as a fresh client
      RATE_LIMIT_PER_SEC: '0.05',
    }
    assert.equal((await runCli(['migrate'], env)).code, 0)
    // the timeline starts on a Monday noon, away from the venue's weekly pause
    const pinned = createPostgresStore(databaseUrl)
    await pinTimeline(pinned, MONDAY_NOON_NEW_YORK, SPEED)
    await pinned.close()
    const created = await runCli(['keys', 'create', '--label', 'scale-test'], env)
    key = created.stdout.trimEnd().split('\n').pop()!
    for (let i = 0; i < 2; i++) engines.push(startProcess(['engine'], env))
    for (let i = 0; i < 2; i++) apis.push(startProcess(['api'], env))
    for (const a of apis) urls.push(await a.url)
    await waitFor(
      'a live contest',
      async () =>
        (await get(urls[0]!, '/v1/contests/active?series=KXBTC15M', newClient())).ok ? true : undefined,
      // the engines backfill a day first, measuring the crowd's lag as they read; on a machine loaded
      // with the rest of the suite that has taken over 20 s
      60_000,
      100,
    )
  })

  after(async () => {
    for (const s of streams) s.close()
    await Promise.all([...apis, ...engines].map((p) => p.kill('SIGTERM')))
    await redis.stop()
    await dropSchema(databaseUrl)
  })

  it('serves the same contest from both replicas', async () => {
    const client = newClient()
    const both = async () =>
      Promise.all(
        urls.map(async (u) => (await get(u, '/v1/contests?series=KXBTC15M&limit=5', client)).json()),
      )
    // the engine writes a reading every wall second, so two reads may straddle one: the replicas
    // must agree on a pair of reads, and a persistent disagreement fails
    const [ja, jb] = await eventually(both, ([x, y]) => isDeepStrictEqual(x, y), 5_000)
    assert.deepEqual(ja, jb)
    assert.equal((ja as { contests: ContestView[] }).contests.length, 5)
  })

  it('stops a revoked key on every replica', async () => {
    const created = await runCli(['keys', 'create', '--label', 'short-lived'], env)
    const victim = created.stdout.trimEnd().split('\n').pop()!
    const id = /created key (\S+)/.exec(created.stdout)![1]!
    const status = async (base: string) => {
      const res = await fetch(`${base}/v1/contests/active?series=KXBTC15M`, {
        headers: { Authorization: `Bearer ${victim}`, 'X-Forwarded-For': newClient() },
      })
      await res.arrayBuffer()
      return res.status
    }
    assert.deepEqual(await Promise.all(urls.map(status)), [200, 200])
    assert.equal((await runCli(['keys', 'revoke', id], env)).code, 0)
    // the 5 s bound is the key cache's rule, held on the test's clock by src/http/key-auth.test.ts
    await waitFor(
      'both replicas to refuse the key',
      async () => ((await Promise.all(urls.map(status))).every((s) => s === 401) ? true : undefined),
      15_000,
      100,
    )
  })

  it('shares the rate limit across replicas: 20 requests in all, then 429 on either', async () => {
    const client = newClient()
    const statuses: number[] = []
    for (let i = 0; i < 21; i++) {
      const res = await get(urls[i % 2]!, '/v1/contests/nope', client, i % 3 !== 0)
      statuses.push(res.status)
      await res.arrayBuffer()
    }
    assert.ok(
      statuses.slice(0, 20).every((s) => s === 404 || s === 401),
      statuses.join(','),
    )
    assert.equal(statuses[20], 429)
    const other = await get(urls[1]!, '/v1/contests/nope', client)
    assert.equal(other.status, 429)
    assert.equal(other.headers.get('x-ratelimit-limit'), '20')
  })

  // How fast a commit reaches the streams is a speed, measured by `npm run bench` (stream fan-out);
  // here every live signal must reach the streams on both replicas.
  it('delivers each live signal to streams on both replicas', async () => {
    const [s1, s2] = await Promise.all(
      urls.map((u) =>
        openStream(`${u}/v1/stream/contests?series=KXBTC15M`, {
          key,
          headers: { 'X-Forwarded-For': newClient() },
        }),
      ),
    )
    streams.push(s1!, s2!)
    // Live signals only: the snapshot replays signals appended before the streams opened.
    const openedAt = Date.now()
    const appendedAt = async (ids: string[]) =>
      withTestClient(async (c) => {
        const rows = await c.query<{ seq: string; appended_at: string }>(
          `SELECT seq, appended_at FROM "${schema}".events WHERE seq = ANY($1::bigint[])`,
          [ids.map(seqOf)],
        )
        return new Map(rows.rows.map((r) => [Number(r.seq), Number(r.appended_at)]))
      })
    const signalIds = (client: SseClient) =>
      client.events.filter((e) => e.event === 'signal.emitted').map((e) => e.id!)
    const live = await waitFor(
      'five live signals on both replicas',
      async () => {
        const onBoth = signalIds(s1!).filter((id) => signalIds(s2!).includes(id))
        const appended = await appendedAt(onBoth)
        const live = onBoth.filter((id) => appended.get(seqOf(id))! > openedAt)
        return live.length >= 5 ? live : undefined
      },
      20_000,
      250,
    )
    // `live` is in the first stream's order; the second delivers them in the same order (a reading
    // newer than these may have reached one stream only, so the tails are not compared)
    assert.deepEqual(
      signalIds(s2!).filter((id) => live.includes(id)),
      live,
    )
  })

  it('hands the engine over when the leader is killed, without duplicate or missed work', async () => {
    const leader = await waitFor('a leader', () =>
      engines.find((e) => e.stdout().includes('"engine is the leader"')),
    )
    const standby = engines.find((e) => e !== leader)!
    const watcher = await openStream(`${urls[0]}/v1/stream/contests?series=KXBTC15M`, {
      key,
      headers: { 'X-Forwarded-For': newClient() },
    })
    streams.push(watcher)
    leader.child.kill('SIGKILL')
    await leader.exited
    // how soon the lease passes (ttl + 0.5 s) is the lease's rule, held at explicit instants by
    // src/engine/leadership.test.ts; here the standby must take over at all
    await waitFor(
      'the standby to lead',
      () => (standby.stdout().includes('"engine is the leader"') ? true : undefined),
      30_000,
    )
    // A contest opened before the kill settles after it, graded, and signals keep coming.
    const settled = await waitFor(
      'a settlement after the take-over',
      () => watcher.events.find((e) => e.event === 'contest.settled'),
      30_000,
    )
    const contest = JSON.parse(settled.data) as ContestView
    const minutes = contest.signals.map((s) =>
      Math.floor((Date.parse(s.raised_at) - Date.parse(contest.window.opens_at)) / 60_000),
    )
    assert.equal(new Set(minutes).size, minutes.length, 'one signal per minute across the hand-over')
    const history = (await (
      await get(urls[1]!, '/v1/contests?series=KXBTC15M&limit=100', newClient())
    ).json()) as {
      contests: ContestView[]
    }
    // Nothing older than the settlement window is left unsettled.
    const active = (await (
      await get(urls[1]!, '/v1/contests/active?series=KXBTC15M', newClient())
    ).json()) as ContestView
    const settledTickers = new Set(history.contests.map((c) => c.ticker))
    for (const e of watcher.events.filter((ev) => ev.event === 'contest.opened')) {
      const t = (JSON.parse(e.data) as ContestView).ticker
      assert.ok(
        settledTickers.has(t) || t === active.ticker,
        `${t} was opened and is neither settled nor live`,
      )
    }
  })

  it('lets a stream cut off by a dead replica resume on the other with no gap and no duplicate', async () => {
    const client = newClient()
    // Start from a known id (a resume, not a snapshot) so a replay from it is the exact truth.
    const start = await latestEventId(urls[0]!, client)
    const first = await openStream(`${urls[0]}/v1/stream/contests?series=KXBTC15M`, {
      key,
      lastEventId: start,
      headers: { 'X-Forwarded-For': client },
    })
    streams.push(first)
    await waitFor('two live events', () => (first.events.length >= 4 ? true : undefined), 15_000)
    apis[0]!.child.kill('SIGKILL')
    await first.ended
    const last = first.events[first.events.length - 1]!.id!
    const resumed = await openStream(`${urls[1]}/v1/stream/contests?series=KXBTC15M`, {
      key,
      lastEventId: last,
      headers: { 'X-Forwarded-For': client },
    })
    streams.push(resumed)
    await waitFor('three more events', () => (resumed.events.length >= 3 ? true : undefined), 15_000)
    const seen = [...first.events, ...resumed.events].map((e) => e.id!)
    assert.equal(new Set(seen).size, seen.length)
    const truth = await openStream(`${urls[1]}/v1/stream/contests?series=KXBTC15M`, {
      key,
      lastEventId: start,
      headers: { 'X-Forwarded-For': client },
    })
    streams.push(truth)
    const lastSeen = seen[seen.length - 1]!
    await waitFor('the replay to catch up', () =>
      truth.events.some((e) => e.id === lastSeen) ? true : undefined,
    )
    const truthIds = truth.events.map((e) => e.id!)
    assert.deepEqual(seen, truthIds.slice(0, truthIds.indexOf(lastSeen) + 1))
  })

  it('keeps answering without a 5xx while Redis is stopped and restarted', async () => {
    const base = urls[1]!
    const statuses: number[] = []
    const hit = async () => {
      const res = await get(base, '/v1/contests/active?series=KXBTC15M', newClient())
      statuses.push(res.status)
      await res.arrayBuffer()
    }
    for (let i = 0; i < 5; i++) await hit()
    await redis.stop()
    for (let i = 0; i < 10; i++) await hit()
    const degraded = await waitFor(
      'health to report degraded',
      async () => {
        await hit()
        const h = (await (await fetch(`${base}/v1/health`)).json()) as {
          status: string
          checks: Record<string, string>
        }
        return h.checks.rate_limit === 'degraded' ? h : undefined
      },
      5000,
      100,
    )
    assert.equal(degraded.status, 'degraded')
    await redis.start()
    await waitFor(
      'health to recover',
      async () => {
        await hit()
        const h = (await (await fetch(`${base}/v1/health`)).json()) as { status: string }
        return h.status === 'ok' ? true : undefined
      },
      10_000,
      100,
    )
    for (let i = 0; i < 5; i++) await hit()
    assert.ok(
      statuses.every((s) => s < 500),
      statuses.join(','),
    )
    assert.ok(statuses.filter((s) => s === 200).length >= 20)
  })
})
