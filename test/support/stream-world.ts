// The stream hub's world: a SQLite store on a temp file, the log follower, the hub, and a plain
// node:http server that hands every request to the hub, as the stream route does. Each test builds
// its own world; it closes with the test.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import type { Contest, Side } from '../../src/domain/contest.ts'
import { formatEventId } from '../../src/domain/event-id.ts'
import { isPublicEventType, type StoredEvent } from '../../src/domain/events.ts'
import type { Clock } from '../../src/ports/clock.ts'
import type { Store } from '../../src/ports/store.ts'
import { createMemoryEventNotifier } from '../../src/store/memory/memory-event-notifier.ts'
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.ts'
import { createLogFollower, type LogFollower } from '../../src/stream/log-follower.ts'
import { createStreamHub, type StreamHub } from '../../src/stream/stream-hub.ts'
import { BASE, makeMinuteSignal } from './contest-fixtures.ts'
import { type Client, openClient, type Received } from './sse-client.ts'

/** what the hub logged, and the failures it counted in the store's outage (logged once by its owner) */
export type Logs = { warn: unknown[]; error: unknown[]; storeOutage: unknown[] }

export type StreamWorld = {
  store: Store
  epoch: string
  hub: StreamHub
  follower: LogFollower
  logs: Logs
  url(series: string, query?: Record<string, string>): string
  connect(series: string, lastEventId?: string): Promise<Client>
  /** what a client should receive for a stored event */
  expect(event: StoredEvent): Received
  open(contest: Contest): Promise<StoredEvent>
  signal(contest: Contest, minute: number): Promise<StoredEvent>
  expire(contest: Contest): Promise<StoredEvent>
  settle(contest: Contest, side: Side): Promise<StoredEvent>
}

export async function createStreamWorld(
  t: TestContext,
  opts: {
    heartbeatMs?: number
    maxQueuedBytes?: number
    /** the clock the store stamps events with and the hub measures the retention on */
    wallClock?: Clock
    /**
     * the service clock, on which a stored live contest stops being live at its expiry; by default
     * fixed at BASE, before every window makeNextContest hands out has closed
     */
    clock?: Clock
    /** EVENT_RETENTION_HOURS in ms (48 h by default) */
    retentionMs?: number
    /** false: the follower learns of writes only by polling, so it lags behind the store */
    wakeOnWrite?: boolean
    /** a Store method that fails when the hub calls it */
    failingHubRead?: keyof Store
    /** what it fails with (default: a plain Error, which says nothing of the store's reachability) */
    failingWith?: () => Error
  } = {},
): Promise<StreamWorld> {
  const dir = await mkdtemp(join(tmpdir(), 'stream-hub-'))
  const store = createSqliteStore(join(dir, 'store.db'), { wallClock: opts.wallClock })
  await store.migrate()
  const epoch = await store.epoch()
  const logs: Logs = { warn: [], error: [], storeOutage: [] }
  const logger = {
    warn: (obj: unknown) => void logs.warn.push(obj),
    error: (obj: unknown) => void logs.error.push(obj),
  }
  const follower = createLogFollower({
    store,
    notifier: createMemoryEventNotifier(),
    pollMs: 50,
    logger,
    wallClock: opts.wallClock ?? { now: () => Date.now() },
  })
  await follower.start()
  const failing = opts.failingHubRead
  const hubStore: Store = failing
    ? new Proxy(store, {
        get: (target, name) =>
          name === failing
            ? () => Promise.reject(opts.failingWith?.() ?? new Error('store unavailable'))
            : Reflect.get(target, name),
      })
    : store
  const hub = createStreamHub({
    store: hubStore,
    follower,
    epoch,
    retentionMs: opts.retentionMs ?? 48 * 3_600_000,
    wallClock: opts.wallClock ?? { now: Date.now },
    clock: opts.clock ?? { now: () => BASE },
    heartbeatMs: opts.heartbeatMs ?? 60_000,
    maxQueuedBytes: opts.maxQueuedBytes,
    logger,
    storeOutage: { failed: (err) => void logs.storeOutage.push(err) },
  })
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    const header = req.headers['last-event-id']
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' })
    void hub.attach(res, {
      series: url.searchParams.get('series') ?? '',
      lastEventId: typeof header === 'string' ? header : url.searchParams.get('last_event_id'),
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  t.after(async () => {
    await hub.close()
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    await follower.stop()
    await store.close()
    await rm(dir, { recursive: true, force: true })
  })

  async function written(result: Promise<StoredEvent | null>): Promise<StoredEvent> {
    const event = await result
    assert.ok(event, 'the store refused a write the test relies on')
    if (opts.wakeOnWrite !== false) follower.wake()
    return event
  }
  const url = (series: string, query: Record<string, string> = {}): string =>
    `http://127.0.0.1:${port}/?${new URLSearchParams({ series, ...query })}`
  return {
    store,
    epoch,
    hub,
    follower,
    logs,
    url,
    connect: (series, lastEventId) => openClient(url(series), lastEventId),
    expect: (e) => ({ event: e.type, id: formatEventId(epoch, e.seq), data: e.data }),
    open: (c) => written(store.openContest(c)),
    signal: (c, minute) => written(store.addSignal(makeMinuteSignal(c, minute))),
    expire: (c) => written(store.expireContest(c.ticker)),
    settle: (c, side) =>
      written(store.settleContest(c.ticker, { kind: 'settled', side, priceDollars: 97_500 })),
  }
}

export function assertIncreasingIds(events: readonly Received[]): void {
  for (let i = 1; i < events.length; i++) {
    assert.ok(events[i]!.id > events[i - 1]!.id, `id ${events[i]!.id} does not follow ${events[i - 1]!.id}`)
  }
}

export function publicOnly(events: readonly StoredEvent[]): StoredEvent[] {
  return events.filter((e) => isPublicEventType(e.type))
}
