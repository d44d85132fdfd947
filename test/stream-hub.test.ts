// The stream hub over a real socket: snapshot, resume, scope, keep-alive, backpressure, disconnect
// and shutdown, with the SQLite store and the log follower it runs on in production.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, get, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, type TestContext, test } from 'node:test'
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises'
import { createParser } from 'eventsource-parser'
import type { Contest, Side, Signal } from '../src/domain/contest.ts'
import { formatEventId } from '../src/domain/event-id.ts'
import { isPublicEventType, type StoredEvent } from '../src/domain/events.ts'
import type { Clock } from '../src/ports/clock.ts'
import type { Store } from '../src/ports/store.ts'
import { createMemoryEventNotifier } from '../src/store/memory/memory-event-notifier.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { createLogFollower, type LogFollower } from '../src/stream/log-follower.ts'
import { createStreamHub, type StreamHub } from '../src/stream/stream-hub.ts'

// ---------------------------------------------------------------- contests

const MINUTE = 60_000
const BASE = Date.UTC(2026, 10, 22, 14, 0)
let contestCount = 0

function newContest(series: string): Contest {
  const n = contestCount++
  const opensAt = BASE + n * 15 * MINUTE
  return {
    ticker: `${series}-${opensAt}-${n}`,
    series,
    state: 'live',
    opensAt,
    expiresAt: opensAt + 15 * MINUTE,
    strikePriceDollars: 97_123.45,
    settledSide: null,
    settledPriceDollars: null,
    voided: false,
    signals: [],
  }
}

function newSignal(contest: Contest, minute: number): Signal {
  const side: Side = minute % 2 === 1 ? 'up' : 'down'
  return {
    ticker: contest.ticker,
    minute,
    raisedAt: contest.opensAt + minute * MINUTE + 250,
    side,
    confidence: 61.5,
    entryPriceCents: 55,
    edgeCents: 6.5,
    outcome: 'pending',
    modelVersion: 'gbm-ewma-1',
  }
}

function uniqueSeries(): string {
  return `S${Math.random().toString(36).slice(2, 10).toUpperCase()}`
}

// ---------------------------------------------------------------- client

type Received = { event: string; id: string; data: string }
type Frame =
  | { kind: 'retry'; ms: number }
  | { kind: 'comment'; text: string }
  | ({ kind: 'event' } & Received)

type Client = {
  frames: Frame[]
  events: Received[]
  commentTimes: number[]
  /** 'clean' when the server ended the body, 'error' when the connection broke, null while open */
  end: 'clean' | 'error' | null
  ended: Promise<void>
  close(): void
}

function trackFrames(): Pick<Client, 'frames' | 'events' | 'commentTimes'> & { feed(text: string): void } {
  const frames: Frame[] = []
  const events: Received[] = []
  const commentTimes: number[] = []
  const parser = createParser({
    onRetry: (ms) => frames.push({ kind: 'retry', ms }),
    onComment: (text) => {
      frames.push({ kind: 'comment', text })
      commentTimes.push(performance.now())
    },
    onEvent: (e) => {
      const received = { event: e.event ?? 'message', id: e.id ?? '', data: e.data }
      frames.push({ kind: 'event', ...received })
      events.push(received)
    },
  })
  return { frames, events, commentTimes, feed: (text) => parser.feed(text) }
}

/** A reading client: fetch + eventsource-parser, keeping every frame in arrival order. */
async function openClient(url: string, lastEventId?: string): Promise<Client> {
  const controller = new AbortController()
  const headers: Record<string, string> = { accept: 'text/event-stream' }
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId
  // Only the wait for the response head is bounded; the stream itself stays open until closed.
  const headTimer = setTimeout(() => controller.abort(new Error('no response head within 5 s')), 5000)
  const res = await fetch(url, { headers, signal: controller.signal }).finally(() => clearTimeout(headTimer))
  assert.equal(res.status, 200)
  const tracked = trackFrames()
  const client: Client = {
    frames: tracked.frames,
    events: tracked.events,
    commentTimes: tracked.commentTimes,
    end: null,
    ended: Promise.resolve(),
    close: () => controller.abort(),
  }
  const body = res.body!
  client.ended = (async () => {
    const decoder = new TextDecoder()
    try {
      for await (const chunk of body) tracked.feed(decoder.decode(chunk, { stream: true }))
      client.end = 'clean'
    } catch {
      client.end = 'error'
    }
  })()
  return client
}

/**
 * A client that reads nothing: node:http stops reading the socket once its small buffer is full.
 * `readToEnd` then takes whatever the kernel still holds, until the connection closes.
 */
async function openStalledClient(
  url: string,
  lastEventId?: string,
): Promise<{ readToEnd(): Promise<Pick<Client, 'frames' | 'events'>> }> {
  const headers: Record<string, string> = lastEventId === undefined ? {} : { 'last-event-id': lastEventId }
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    get(url, { agent: false, headers }, resolve).on('error', reject)
  })
  res.on('error', () => {}) // the cut-off surfaces as an aborted response
  const closed = new Promise((resolve) => res.once('close', resolve))
  return {
    async readToEnd() {
      const tracked = trackFrames()
      res.setEncoding('utf8')
      res.on('data', (text: string) => tracked.feed(text))
      await within(closed, 'the stalled connection to close')
      return tracked
    },
  }
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`)
    await sleep(5)
  }
}

async function within<T>(promise: Promise<T>, what: string, timeoutMs = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** Waits until the client has the event with this id (the "fence"), then returns everything it got. */
async function eventsUpTo(client: Client, fenceId: string): Promise<Received[]> {
  await waitFor(() => client.events.some((e) => e.id === fenceId), `event ${fenceId}`)
  return client.events
}

// ---------------------------------------------------------------- world

type Logs = { warn: unknown[]; error: unknown[] }

type World = {
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

async function createWorld(
  t: TestContext,
  opts: {
    heartbeatMs?: number
    maxQueuedBytes?: number
    wallClock?: Clock
    /** false: the follower learns of writes only by polling, so it lags behind the store */
    wakeOnWrite?: boolean
    /** a Store method that fails when the hub calls it */
    failingHubRead?: keyof Store
  } = {},
): Promise<World> {
  const dir = await mkdtemp(join(tmpdir(), 'stream-hub-'))
  const store = createSqliteStore(join(dir, 'store.db'), { wallClock: opts.wallClock })
  await store.migrate()
  const epoch = await store.epoch()
  const logs: Logs = { warn: [], error: [] }
  const logger = {
    warn: (obj: unknown) => void logs.warn.push(obj),
    error: (obj: unknown) => void logs.error.push(obj),
  }
  const follower = createLogFollower({ store, notifier: createMemoryEventNotifier(), pollMs: 50, logger })
  await follower.start()
  const failing = opts.failingHubRead
  const hubStore: Store = failing
    ? new Proxy(store, {
        get: (target, name) =>
          name === failing ? () => Promise.reject(new Error('store unavailable')) : Reflect.get(target, name),
      })
    : store
  const hub = createStreamHub({
    store: hubStore,
    follower,
    epoch,
    heartbeatMs: opts.heartbeatMs ?? 60_000,
    maxQueuedBytes: opts.maxQueuedBytes,
    logger,
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
    signal: (c, minute) => written(store.addSignal(newSignal(c, minute))),
    expire: (c) => written(store.expireContest(c.ticker)),
    settle: (c, side) =>
      written(store.settleContest(c.ticker, { kind: 'settled', side, priceDollars: 97_500 })),
  }
}

function assertIncreasingIds(events: readonly Received[]): void {
  for (let i = 1; i < events.length; i++) {
    assert.ok(events[i]!.id > events[i - 1]!.id, `id ${events[i]!.id} does not follow ${events[i - 1]!.id}`)
  }
}

function publicOnly(events: readonly StoredEvent[]): StoredEvent[] {
  return events.filter((e) => isPublicEventType(e.type))
}

// ---------------------------------------------------------------- tests

describe('stream hub › fresh connect', () => {
  test('sends retry: 3000 first, then the live contest, its signals oldest first, then live events', async (t) => {
    const w = await createWorld(t)
    const series = uniqueSeries()
    const previous = newContest(series)
    await w.open(previous)
    await w.signal(previous, 1)
    await w.expire(previous)
    await w.settle(previous, 'up')
    const live = newContest(series)
    const opened = await w.open(live)
    const first = await w.signal(live, 1)
    const second = await w.signal(live, 2)
    await waitFor(() => w.follower.cursor >= second.seq, 'the follower to catch up')

    const client = await w.connect(series)
    const snapshot = await eventsUpTo(client, w.expect(second).id)
    assert.deepEqual(client.frames[0], { kind: 'retry', ms: 3000 })
    assert.deepEqual(snapshot, [w.expect(opened), w.expect(first), w.expect(second)])

    const third = await w.signal(live, 3)
    await w.expire(live)
    const settled = await w.settle(live, 'up')
    const next = await w.open(newContest(series))
    const all = await eventsUpTo(client, w.expect(next).id)
    assert.deepEqual(all.slice(3), [w.expect(third), w.expect(settled), w.expect(next)])
    assertIncreasingIds(all)

    const payload = JSON.parse(all[3]!.data)
    assert.equal(payload.signal.ticker, live.ticker)
    assert.equal(payload.signal.raised_at, new Date(live.opensAt + 3 * MINUTE + 250).toISOString())
    assert.equal(payload.contest.ticker, live.ticker)
    assert.deepEqual(
      payload.contest.signals.at(-1),
      payload.signal,
      'the contest snapshot includes the signal',
    )
    assert.equal(payload.contest.signals.length, 3)

    const settledContest = JSON.parse(all[4]!.data)
    assert.equal(settledContest.state, 'settled')
    assert.equal(settledContest.settled_side, 'up')
    assert.deepEqual(
      settledContest.signals.map((s: { outcome: string }) => s.outcome),
      ['win', 'loss', 'win'],
    )
    assert.deepEqual(w.logs, { warn: [], error: [] })
  })

  test('with no live contest sends only retry, then live events', async (t) => {
    const w = await createWorld(t)
    const series = uniqueSeries()
    const client = await w.connect(series)
    await waitFor(() => w.hub.size() === 1 && client.frames.length === 1, 'the retry frame')
    const opened = await w.open(newContest(series))
    assert.deepEqual(await eventsUpTo(client, w.expect(opened).id), [w.expect(opened)])
    assert.deepEqual(client.frames[0], { kind: 'retry', ms: 3000 })
  })

  test("never sends another series' events or internal events", async (t) => {
    const w = await createWorld(t)
    const series = uniqueSeries()
    const other = uniqueSeries()
    const mine = newContest(series)
    const opened = await w.open(mine)
    const client = await w.connect(series)
    await eventsUpTo(client, w.expect(opened).id)

    const theirs = newContest(other)
    await w.open(theirs)
    await w.signal(theirs, 1)
    await w.expire(theirs)
    await w.settle(theirs, 'down')
    await w.expire(mine) // contest.expired is internal
    const imported = newContest(series)
    imported.state = 'settled'
    assert.equal(await w.store.importHistory([imported]), 1) // history.imported is internal
    await w.store.createKey({
      id: 'k1',
      label: 'test',
      digest: 'd'.repeat(64),
      prefix: 'cs_abcdefg',
      createdAt: Date.now(),
      lastUsedAt: null,
      revokedAt: null,
    }) // key.changed is internal
    const settled = await w.settle(mine, 'down')

    assert.deepEqual(await eventsUpTo(client, w.expect(settled).id), [w.expect(opened), w.expect(settled)])
  })
})

describe('stream hub › resume', () => {
  test('Last-Event-ID replays exactly the events after it, including those appended while away, then live', async (t) => {
    const w = await createWorld(t)
    const series = uniqueSeries()
    const a = newContest(series)
    await w.open(a)
    await w.signal(a, 1)
    const first = await w.connect(series)
    const s2 = await w.signal(a, 2)
    const s3 = await w.signal(a, 3)
    await eventsUpTo(first, w.expect(s3).id)
    first.close()
    await waitFor(() => w.hub.size() === 0, 'the first client to be removed')

    // while away: more signals, internal events, another series, a settlement and a new contest
    const away: StoredEvent[] = []
    away.push(await w.signal(a, 4))
    await w.open(newContest(uniqueSeries()))
    away.push(await w.expire(a))
    away.push(await w.settle(a, 'down'))
    const b = newContest(series)
    away.push(await w.open(b))
    away.push(await w.signal(b, 1))

    // resume from s2, as if s3 had been lost in flight
    const resumed = await w.connect(series, w.expect(s2).id)
    const live = await w.signal(b, 2)
    const got = await eventsUpTo(resumed, w.expect(live).id)
    const expected = [s3, ...publicOnly(away), live].map(w.expect)
    assert.deepEqual(got, expected)
    assert.deepEqual(resumed.frames[0], { kind: 'retry', ms: 3000 })
    assertIncreasingIds(got)

    // the last_event_id query parameter works the same way
    const viaQuery = await openClient(w.url(series, { last_event_id: w.expect(s2).id }))
    const fence = await w.signal(b, 3)
    assert.deepEqual(await eventsUpTo(viaQuery, w.expect(fence).id), [...expected, w.expect(fence)])
  })

  test('resuming from the newest event replays nothing and continues live', async (t) => {
    const w = await createWorld(t)
    const series = uniqueSeries()
    const c = newContest(series)
    await w.open(c)
    const last = await w.signal(c, 1)
    const client = await w.connect(series, w.expect(last).id)
    await waitFor(() => w.hub.size() === 1, 'the stream to attach')
    const live = await w.signal(c, 2)
    assert.deepEqual(await eventsUpTo(client, w.expect(live).id), [w.expect(live)])
  })

  test('garbage, foreign, unknown and pruned ids get the fresh snapshot instead', async (t) => {
    let wallNow = 1_000_000
    const w = await createWorld(t, { wallClock: { now: () => wallNow } })
    const series = uniqueSeries()
    const old = newContest(series)
    const oldOpened = await w.open(old)
    await w.signal(old, 1)
    await w.expire(old)
    await w.settle(old, 'up')
    wallNow += 60_000
    const live = newContest(series)
    const opened = await w.open(live)
    const signal = await w.signal(live, 1)
    assert.ok((await w.store.pruneEvents(wallNow)) >= 4)
    assert.equal(await w.store.hasEvent(oldOpened.seq), false)
    await waitFor(() => w.follower.cursor >= signal.seq, 'the follower to catch up')

    const foreignEpoch = w.epoch === 'aaaaaaaa' ? 'bbbbbbbb' : 'aaaaaaaa'
    const ids = [
      'garbage',
      `${w.epoch}-`,
      formatEventId(foreignEpoch, opened.seq),
      formatEventId(w.epoch, signal.seq + 1000),
      formatEventId(w.epoch, oldOpened.seq),
    ]
    const clients = await Promise.all(ids.map((id) => w.connect(series, id)))
    await waitFor(() => w.hub.size() === ids.length, 'every stream to attach')
    const fence = await w.signal(live, 2)
    for (const [i, client] of clients.entries()) {
      assert.deepEqual(
        await eventsUpTo(client, w.expect(fence).id),
        [w.expect(opened), w.expect(signal), w.expect(fence)],
        `Last-Event-ID ${ids[i]}`,
      )
    }
  })

  test('resumes racing a busy writer each get exactly the events after their id', async (t) => {
    // A lagging follower makes replays read past its cursor, the overlap the hub must not double.
    const w = await createWorld(t, { wakeOnWrite: false })
    const series = uniqueSeries()
    const stored: StoredEvent[] = []
    const clients: Array<{ client: Client; after: StoredEvent | null }> = []
    // 45 contests × 17 events: enough for a replay to span several store pages
    for (let n = 0; n < 45; n++) {
      const c = newContest(series)
      stored.push(await w.open(c))
      for (let m = 1; m <= 14; m++) {
        stored.push(await w.signal(c, m))
        if (m % 3 === 0) await nextTurn()
        if (n % 9 === 4 && m === 7) {
          const from = stored[(n * 31) % stored.length]!
          clients.push({ client: await w.connect(series, w.expect(from).id), after: from })
          clients.push({ client: await w.connect(series), after: null })
        }
      }
      stored.push(await w.expire(c))
      stored.push(await w.settle(c, n % 2 === 0 ? 'up' : 'down'))
    }
    clients.push({ client: await w.connect(series, w.expect(stored[0]!).id), after: stored[0]! })
    const fence = await w.open(newContest(series))
    const all = publicOnly([...stored, fence]).map(w.expect)
    assert.ok(all.length > 600)

    for (const { client, after } of clients) {
      const got = await eventsUpTo(client, w.expect(fence).id)
      assertIncreasingIds(got)
      if (after !== null) {
        assert.deepEqual(got, all.slice(all.findIndex((e) => e.id > w.expect(after).id)))
      } else {
        // a fresh client's snapshot plus live events form one unbroken run of the series' events
        const start = all.findIndex((e) => e.id === got[0]!.id)
        assert.deepEqual(got, all.slice(start))
      }
    }
    assert.deepEqual(w.logs, { warn: [], error: [] })
  })
})

describe('stream hub › ticker scope', () => {
  test("a live contest's ticker gets only that contest's events", async (t) => {
    const w = await createWorld(t)
    const series = uniqueSeries()
    const a = newContest(series)
    const opened = await w.open(a)
    const s1 = await w.signal(a, 1)
    const client = await w.connect(a.ticker)
    await eventsUpTo(client, w.expect(s1).id)

    const s2 = await w.signal(a, 2)
    await w.expire(a)
    const b = newContest(series)
    await w.open(b)
    await w.signal(b, 1)
    await w.open(newContest(uniqueSeries()))
    const settled = await w.settle(a, 'down')
    assert.deepEqual(await eventsUpTo(client, w.expect(settled).id), [opened, s1, s2, settled].map(w.expect))
  })

  test('a resumed ticker stream still gets its contest.settled after the contest stopped being live', async (t) => {
    const w = await createWorld(t)
    const series = uniqueSeries()
    const a = newContest(series)
    await w.open(a)
    const s1 = await w.signal(a, 1)
    const first = await w.connect(a.ticker)
    await eventsUpTo(first, w.expect(s1).id)
    first.close()

    const s2 = await w.signal(a, 2)
    await w.expire(a)
    const b = newContest(series)
    await w.open(b)
    await w.signal(b, 1)

    const resumed = await w.connect(a.ticker, w.expect(s1).id)
    await eventsUpTo(resumed, w.expect(s2).id)
    await w.signal(b, 2)
    const settled = await w.settle(a, 'up')
    assert.deepEqual(await eventsUpTo(resumed, w.expect(settled).id), [s2, settled].map(w.expect))

    // settled while away: the replay carries it
    const again = await w.connect(a.ticker, w.expect(s2).id)
    assert.deepEqual(await eventsUpTo(again, w.expect(settled).id), [w.expect(settled)])
  })
})

describe('stream hub › connection lifecycle', () => {
  test('keep-alive comments arrive every heartbeatMs', async (t) => {
    const w = await createWorld(t, { heartbeatMs: 50 })
    const client = await w.connect(uniqueSeries())
    await waitFor(() => client.commentTimes.length >= 5, 'five keep-alives')
    assert.deepEqual(client.frames[0], { kind: 'retry', ms: 3000 })
    assert.ok(client.frames.slice(1).every((f) => f.kind === 'comment' && f.text === 'keep-alive'))
    const gaps = client.commentTimes.slice(1).map((at, i) => at - client.commentTimes[i]!)
    for (const gap of gaps) assert.ok(gap > 25 && gap < 500, `keep-alive gap of ${gap.toFixed(0)} ms`)
  })

  test('a disconnecting client is removed and nothing is written to it afterwards', async (t) => {
    const w = await createWorld(t, { heartbeatMs: 20 })
    const series = uniqueSeries()
    const c = newContest(series)
    const opened = await w.open(c)
    const leaving = await w.connect(series)
    const staying = await w.connect(series)
    await eventsUpTo(leaving, w.expect(opened).id)
    await eventsUpTo(staying, w.expect(opened).id)
    assert.equal(w.hub.size(), 2)

    leaving.close()
    await waitFor(() => w.hub.size() === 1, 'the subscriber to be removed')
    const s1 = await w.signal(c, 1)
    assert.deepEqual(await eventsUpTo(staying, w.expect(s1).id), [opened, s1].map(w.expect))
    await sleep(60) // a few keep-alive rounds with the departed client gone
    assert.deepEqual(w.logs, { warn: [], error: [] })
  })

  test('a client that never reads is cut off after about maxQueuedBytes, and resumes without a gap', async (t) => {
    // Above the response's 64 KiB high-water mark, where a replay pauses for the client, so the
    // stalled replay below can only be caught by the time rule, not by the byte limit.
    // The heartbeat sets how long a stalled replay is given (one to two intervals): long enough for a
    // reading client on a busy machine, short enough for the test.
    const w = await createWorld(t, { maxQueuedBytes: 256 * 1024, heartbeatMs: 250 })
    const series = uniqueSeries()
    const reader = await w.connect(series)
    const stalled = await openStalledClient(w.url(series))
    await waitFor(() => w.hub.size() === 2, 'both streams to attach')

    // Real contests until the stalled stream is cut off: the kernel's socket buffers take a few MB
    // first, so the amount needed depends on the machine; 40 MB means it never happened.
    const stored: StoredEvent[] = []
    let bytes = 0
    const writeContest = async (): Promise<void> => {
      const c = newContest(series)
      const events = [await w.open(c)]
      for (let m = 1; m <= 14; m++) events.push(await w.signal(c, m))
      events.push(await w.expire(c), await w.settle(c, 'up'))
      stored.push(...events)
      bytes += events.reduce((sum, e) => sum + e.data.length, 0)
      await nextTurn()
    }
    while (w.hub.size() === 2) {
      assert.ok(bytes < 40 * 1024 * 1024, 'the stalled client was never cut off')
      await writeContest()
    }
    assert.equal(w.hub.size(), 1, 'only the stalled client was cut off')
    assert.equal(w.logs.warn.length, 1)

    // What the stalled client can still read is what the kernel took before the cut.
    const cutAt = await stalled.readToEnd()
    assert.deepEqual(cutAt.frames[0], { kind: 'retry', ms: 3000 })
    const all = publicOnly(stored).map(w.expect)
    assert.ok(cutAt.events.length > 0)
    assert.ok(cutAt.events.length < all.length, 'it was cut off before everything was sent')
    assert.deepEqual(cutAt.events, all.slice(0, cutAt.events.length))

    const resumed = await w.connect(series, cutAt.events.at(-1)!.id)
    const fence = await w.open(newContest(series))
    const rest = await eventsUpTo(resumed, w.expect(fence).id)
    stored.push(fence)
    assert.deepEqual([...cutAt.events, ...rest], [...all, w.expect(fence)])
    assert.deepEqual(await eventsUpTo(reader, w.expect(fence).id), [...all, w.expect(fence)])

    // A replay waits for its client rather than queueing, so one that stops reading mid-replay is
    // judged by time instead: cut off after a keep-alive interval without progress. The replay
    // (everything so far, with a margin) is more than the kernel buffers took above.
    const target = bytes * 1.25
    while (bytes < target) await writeContest()
    const before = w.hub.size()
    const replaying = await openStalledClient(w.url(series), w.expect(stored[0]!).id)
    await waitFor(() => w.logs.warn.length === 2, 'the stalled replay to be cut off')
    assert.equal(w.hub.size(), before)
    const partial = await replaying.readToEnd()
    assert.ok(partial.events.length > 0)
    const afterFirst = publicOnly(stored.slice(1)).map(w.expect)
    assert.deepEqual(partial.events, afterFirst.slice(0, partial.events.length))

    // The same replay to a client that reads goes through whole, however far it exceeds the limit.
    const catchingUp = await w.connect(series, w.expect(stored[0]!).id)
    const last = await w.open(newContest(series))
    assert.deepEqual(await eventsUpTo(catchingUp, w.expect(last).id), [...afterFirst, w.expect(last)])
    assert.equal(w.logs.warn.length, 2)
    assert.deepEqual(w.logs.error, [])
  })

  test('a stream the store cannot serve is logged and dropped, never thrown', async (t) => {
    const w = await createWorld(t, { failingHubRead: 'getContest' })
    const client = await w.connect(uniqueSeries())
    await within(client.ended, 'the stream to be dropped')
    assert.equal(client.end, 'error')
    assert.deepEqual(client.frames, [{ kind: 'retry', ms: 3000 }])
    assert.equal(w.hub.size(), 0)
    assert.equal(w.logs.error.length, 1)
  })

  test('close() ends every open stream cleanly, and later streams end at once', async (t) => {
    const w = await createWorld(t)
    const series = uniqueSeries()
    const c = newContest(series)
    const opened = await w.open(c)
    const bySeries = await w.connect(series)
    const byTicker = await w.connect(c.ticker)
    await eventsUpTo(bySeries, w.expect(opened).id)
    await eventsUpTo(byTicker, w.expect(opened).id)

    await w.hub.close()
    await within(Promise.all([bySeries.ended, byTicker.ended]), 'both streams to end')
    assert.equal(bySeries.end, 'clean')
    assert.equal(byTicker.end, 'clean')
    assert.equal(w.hub.size(), 0)

    const late = await w.connect(series)
    await within(late.ended, 'the late stream to end')
    assert.equal(late.end, 'clean')
    assert.deepEqual(late.frames, [])
    assert.equal(w.hub.size(), 0)
  })
})
