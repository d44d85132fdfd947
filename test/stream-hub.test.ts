// The stream hub over a real socket: snapshot, resume, scope, keep-alive, backpressure, disconnect
// and shutdown, with the SQLite store and the log follower it runs on in production.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { MINUTE_MS } from '../src/domain/contest.ts'
import { formatEventId } from '../src/domain/event-id.ts'
import type { StoredEvent } from '../src/domain/events.ts'
import { StoreUnavailableError } from '../src/ports/store-errors.ts'
import { makeNextContest, newSeries } from './support/contest-fixtures.ts'
import { createManualClock } from './support/manual-clock.ts'
import { type Client, eventsUpTo, openClient, openStalledClient } from './support/sse-client.ts'
import { assertIncreasingIds, createStreamWorld, publicOnly } from './support/stream-world.ts'
import { waitUntil, within } from './support/wait.ts'

// ---------------------------------------------------------------- tests

describe('stream hub › fresh connect', () => {
  test('sends retry: 3000 first, then the live contest, its signals oldest first, then live events', async (t) => {
    const w = await createStreamWorld(t)
    const series = newSeries()
    const previous = makeNextContest(series)
    await w.open(previous)
    await w.signal(previous, 1)
    await w.expire(previous)
    await w.settle(previous, 'up')
    const live = makeNextContest(series)
    const opened = await w.open(live)
    const first = await w.signal(live, 1)
    const second = await w.signal(live, 2)
    await waitUntil(() => w.follower.cursor >= second.seq, 'the follower to catch up')

    const client = await w.connect(series)
    const snapshot = await eventsUpTo(client, w.expect(second).id)
    assert.deepEqual(client.frames[0], { kind: 'retry', ms: 3000 })
    assert.deepEqual(snapshot, [w.expect(opened), w.expect(first), w.expect(second)])

    const third = await w.signal(live, 3)
    await w.expire(live)
    const settled = await w.settle(live, 'up')
    const next = await w.open(makeNextContest(series))
    const all = await eventsUpTo(client, w.expect(next).id)
    assert.deepEqual(all.slice(3), [w.expect(third), w.expect(settled), w.expect(next)])
    assertIncreasingIds(all)

    const payload = JSON.parse(all[3]!.data)
    assert.equal(payload.signal.ticker, live.ticker)
    assert.equal(payload.signal.raised_at, new Date(live.opensAt + 3 * MINUTE_MS + 250).toISOString())
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
    assert.deepEqual(w.logs, { warn: [], error: [], storeOutage: [] })
  })

  test('a stream opened after the next contest opened still gets the previous one’s settlement', async (t) => {
    // Kalshi settles a contest minutes after its close, with the next one already live: a bot that
    // connects in between is shown the live contest, and the settlement is a live event of its series
    const w = await createStreamWorld(t)
    const series = newSeries()
    const previous = makeNextContest(series)
    await w.open(previous)
    await w.signal(previous, 1)
    await w.expire(previous)
    const live = makeNextContest(series)
    const opened = await w.open(live)
    await waitUntil(() => w.follower.cursor >= opened.seq, 'the follower to catch up')

    const client = await w.connect(series)
    assert.deepEqual(await eventsUpTo(client, w.expect(opened).id), [w.expect(opened)])
    const settled = await w.settle(previous, 'up')
    const all = await eventsUpTo(client, w.expect(settled).id)
    assert.deepEqual(all, [w.expect(opened), w.expect(settled)])
    assert.equal(JSON.parse(all[1]!.data).ticker, previous.ticker)
  })

  test('with no live contest sends only retry, then live events', async (t) => {
    const w = await createStreamWorld(t)
    const series = newSeries()
    const client = await w.connect(series)
    await waitUntil(() => w.hub.size() === 1 && client.frames.length === 1, 'the retry frame')
    const opened = await w.open(makeNextContest(series))
    assert.deepEqual(await eventsUpTo(client, w.expect(opened).id), [w.expect(opened)])
    assert.deepEqual(client.frames[0], { kind: 'retry', ms: 3000 })
  })

  test("never sends another series' events or internal events", async (t) => {
    const w = await createStreamWorld(t)
    const series = newSeries()
    const other = newSeries()
    const mine = makeNextContest(series)
    const opened = await w.open(mine)
    const client = await w.connect(series)
    await eventsUpTo(client, w.expect(opened).id)

    const theirs = makeNextContest(other)
    await w.open(theirs)
    await w.signal(theirs, 1)
    await w.expire(theirs)
    await w.settle(theirs, 'down')
    await w.expire(mine) // contest.expired is internal
    const imported = makeNextContest(series)
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
    const w = await createStreamWorld(t)
    const series = newSeries()
    const a = makeNextContest(series)
    await w.open(a)
    await w.signal(a, 1)
    const first = await w.connect(series)
    const s2 = await w.signal(a, 2)
    const s3 = await w.signal(a, 3)
    await eventsUpTo(first, w.expect(s3).id)
    first.close()
    await waitUntil(() => w.hub.size() === 0, 'the first client to be removed')

    // while away: more signals, internal events, another series, a settlement and a new contest
    const away: StoredEvent[] = []
    away.push(await w.signal(a, 4))
    await w.open(makeNextContest(newSeries()))
    away.push(await w.expire(a))
    away.push(await w.settle(a, 'down'))
    const b = makeNextContest(series)
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
    const w = await createStreamWorld(t)
    const series = newSeries()
    const c = makeNextContest(series)
    await w.open(c)
    const last = await w.signal(c, 1)
    const client = await w.connect(series, w.expect(last).id)
    await waitUntil(() => w.hub.size() === 1, 'the stream to attach')
    const live = await w.signal(c, 2)
    assert.deepEqual(await eventsUpTo(client, w.expect(live).id), [w.expect(live)])
  })

  test('garbage, foreign, unknown and pruned ids get the fresh snapshot instead', async (t) => {
    const wall = createManualClock(1_000_000)
    const w = await createStreamWorld(t, { wallClock: wall })
    const series = newSeries()
    const old = makeNextContest(series)
    const oldOpened = await w.open(old)
    await w.signal(old, 1)
    await w.expire(old)
    await w.settle(old, 'up')
    wall.advance(60_000)
    const live = makeNextContest(series)
    const opened = await w.open(live)
    const signal = await w.signal(live, 1)
    assert.ok((await w.store.pruneEvents(wall.now())) >= 4)
    assert.equal(await w.store.hasEvent(oldOpened.seq, 0), false)
    await waitUntil(() => w.follower.cursor >= signal.seq, 'the follower to catch up')

    const foreignEpoch = w.epoch === 'aaaaaaaa' ? 'bbbbbbbb' : 'aaaaaaaa'
    const ids = [
      'garbage',
      `${w.epoch}-`,
      formatEventId(foreignEpoch, opened.seq),
      formatEventId(w.epoch, signal.seq + 1000),
      formatEventId(w.epoch, oldOpened.seq),
    ]
    const clients = await Promise.all(ids.map((id) => w.connect(series, id)))
    await waitUntil(() => w.hub.size() === ids.length, 'every stream to attach')
    const fence = await w.signal(live, 2)
    for (const [i, client] of clients.entries()) {
      assert.deepEqual(
        await eventsUpTo(client, w.expect(fence).id),
        [w.expect(opened), w.expect(signal), w.expect(fence)],
        `Last-Event-ID ${ids[i]}`,
      )
    }
  })

  test('an id older than EVENT_RETENTION_HOURS gets the snapshot before any prune removes it', async (t) => {
    const wall = createManualClock(1_000_000)
    const w = await createStreamWorld(t, { wallClock: wall, retentionMs: 60_000 })
    const series = newSeries()
    const live = makeNextContest(series)
    const opened = await w.open(live)
    const first = await w.signal(live, 1)
    wall.advance(30_000)
    const second = await w.signal(live, 2)
    await waitUntil(() => w.follower.cursor >= second.seq, 'the follower to catch up')
    wall.advance(30_001) // `first` is now 60.001 s old, `second` 30.001 s: nothing was pruned
    assert.equal(await w.store.hasEvent(first.seq, 0), true)

    const expired = await w.connect(series, w.expect(first).id)
    const retained = await w.connect(series, w.expect(second).id)
    await waitUntil(() => w.hub.size() === 2, 'both streams to attach')
    const fence = await w.signal(live, 3)
    assert.deepEqual(await eventsUpTo(expired, w.expect(fence).id), [
      w.expect(opened),
      w.expect(first),
      w.expect(second),
      w.expect(fence),
    ])
    assert.deepEqual(await eventsUpTo(retained, w.expect(fence).id), [w.expect(fence)])
  })

  test('resumes racing a busy writer each get exactly the events after their id', async (t) => {
    // A lagging follower makes replays read past its cursor, the overlap the hub must not double.
    const w = await createStreamWorld(t, { wakeOnWrite: false })
    const series = newSeries()
    const stored: StoredEvent[] = []
    const clients: Array<{ client: Client; after: StoredEvent | null }> = []
    // 45 contests × 17 events: enough for a replay to span several store pages
    for (let n = 0; n < 45; n++) {
      const c = makeNextContest(series)
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
    const fence = await w.open(makeNextContest(series))
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
    assert.deepEqual(w.logs, { warn: [], error: [], storeOutage: [] })
  })
})

describe('stream hub › ticker scope', () => {
  test("a live contest's ticker gets only that contest's events", async (t) => {
    const w = await createStreamWorld(t)
    const series = newSeries()
    const a = makeNextContest(series)
    const opened = await w.open(a)
    const s1 = await w.signal(a, 1)
    const client = await w.connect(a.ticker)
    await eventsUpTo(client, w.expect(s1).id)

    const s2 = await w.signal(a, 2)
    await w.expire(a)
    const b = makeNextContest(series)
    await w.open(b)
    await w.signal(b, 1)
    await w.open(makeNextContest(newSeries()))
    const settled = await w.settle(a, 'down')
    assert.deepEqual(await eventsUpTo(client, w.expect(settled).id), [opened, s1, s2, settled].map(w.expect))
  })

  test('a resumed ticker stream still gets its contest.settled after the contest stopped being live', async (t) => {
    const w = await createStreamWorld(t)
    const series = newSeries()
    const a = makeNextContest(series)
    await w.open(a)
    const s1 = await w.signal(a, 1)
    const first = await w.connect(a.ticker)
    await eventsUpTo(first, w.expect(s1).id)
    first.close()

    const s2 = await w.signal(a, 2)
    await w.expire(a)
    const b = makeNextContest(series)
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
    // the hub's interval runs on the test's timers: five heartbeats are five keep-alives, no more
    t.mock.timers.enable({ apis: ['setInterval'] })
    const w = await createStreamWorld(t, { heartbeatMs: 1000 })
    const series = newSeries()
    const client = await w.connect(series)
    await waitUntil(() => client.frames.length >= 1, 'the retry frame')
    for (let beat = 1; beat <= 5; beat++) {
      t.mock.timers.tick(1000)
      await waitUntil(() => client.commentTimes.length >= beat, `keep-alive ${beat}`)
    }
    // an event written after the fifth heartbeat arrives after every keep-alive written before it
    const opened = await w.open(makeNextContest(series))
    await eventsUpTo(client, w.expect(opened).id)
    assert.deepEqual(client.frames[0], { kind: 'retry', ms: 3000 })
    assert.deepEqual(client.frames.slice(1, 6), Array(5).fill({ kind: 'comment', text: 'keep-alive' }))
    assert.equal(client.commentTimes.length, 5)
  })

  test('a disconnecting client is removed and nothing is written to it afterwards', async (t) => {
    const w = await createStreamWorld(t, { heartbeatMs: 20 })
    const series = newSeries()
    const c = makeNextContest(series)
    const opened = await w.open(c)
    const leaving = await w.connect(series)
    const staying = await w.connect(series)
    await eventsUpTo(leaving, w.expect(opened).id)
    await eventsUpTo(staying, w.expect(opened).id)
    assert.equal(w.hub.size(), 2)

    leaving.close()
    await waitUntil(() => w.hub.size() === 1, 'the subscriber to be removed')
    const s1 = await w.signal(c, 1)
    assert.deepEqual(await eventsUpTo(staying, w.expect(s1).id), [opened, s1].map(w.expect))
    // a few keep-alive rounds with the departed client gone
    const beats = staying.commentTimes.length
    await waitUntil(() => staying.commentTimes.length >= beats + 3, 'three more keep-alive rounds')
    assert.deepEqual(w.logs, { warn: [], error: [], storeOutage: [] })
  })

  test('a client that never reads is cut off after about maxQueuedBytes, and resumes without a gap', async (t) => {
    // Above the response's 64 KiB high-water mark, where a replay pauses for the client, so the
    // stalled replay below can only be caught by the time rule, not by the byte limit.
    // The heartbeat sets how long a stalled replay is given (one to two intervals): long enough for a
    // reading client on a busy machine (at 250 ms the replay to the reading client below once never
    // finished in a loaded CI run), short enough for the test.
    const w = await createStreamWorld(t, { maxQueuedBytes: 256 * 1024, heartbeatMs: 1_000 })
    const series = newSeries()
    const reader = await w.connect(series)
    const stalled = await openStalledClient(w.url(series))
    await waitUntil(() => w.hub.size() === 2, 'both streams to attach')

    // Real contests until the stalled stream is cut off: the kernel's socket buffers take a few MB
    // first, so the amount needed depends on the machine; 40 MB means it never happened.
    const stored: StoredEvent[] = []
    let bytes = 0
    const writeContest = async (): Promise<void> => {
      const c = makeNextContest(series)
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
    const fence = await w.open(makeNextContest(series))
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
    await waitUntil(() => w.logs.warn.length === 2, 'the stalled replay to be cut off', 15_000)
    assert.equal(w.hub.size(), before)
    const partial = await replaying.readToEnd()
    assert.ok(partial.events.length > 0)
    const afterFirst = publicOnly(stored.slice(1)).map(w.expect)
    assert.deepEqual(partial.events, afterFirst.slice(0, partial.events.length))

    // The same replay to a client that reads goes through whole, however far it exceeds the limit.
    const catchingUp = await w.connect(series, w.expect(stored[0]!).id)
    const last = await w.open(makeNextContest(series))
    // megabytes replayed to a client in this same process: seconds on a loaded machine
    assert.deepEqual(await eventsUpTo(catchingUp, w.expect(last).id, 30_000), [...afterFirst, w.expect(last)])
    assert.equal(w.logs.warn.length, 2)
    assert.deepEqual(w.logs.error, [])
  })

  test('a stream the store cannot serve is logged and dropped, never thrown', async (t) => {
    const w = await createStreamWorld(t, { failingHubRead: 'getContest' })
    const client = await w.connect(newSeries())
    await within(client.ended, 'the stream to be dropped')
    assert.equal(client.end, 'error')
    assert.deepEqual(client.frames, [{ kind: 'retry', ms: 3000 }])
    assert.equal(w.hub.size(), 0)
    assert.equal(w.logs.error.length, 1)
    assert.deepEqual(w.logs.storeOutage, [])
  })

  test('streams a store outage keeps from opening are counted in its outage, not an error and stack each', async (t) => {
    const w = await createStreamWorld(t, {
      failingHubRead: 'getContest',
      failingWith: () =>
        new StoreUnavailableError('PostgreSQL is unavailable (57P01): terminating connection'),
    })
    // clients reconnect every 3 s for as long as the outage lasts
    for (let i = 0; i < 5; i++) {
      const client = await w.connect(newSeries())
      await within(client.ended, 'the stream to be dropped')
      assert.equal(client.end, 'error')
    }
    assert.equal(w.hub.size(), 0)
    assert.deepEqual(w.logs.error, [], 'no line of its own per stream')
    assert.equal(w.logs.storeOutage.length, 5)
    assert.ok(w.logs.storeOutage.every((err) => err instanceof StoreUnavailableError))
  })

  test('close() ends every open stream cleanly, and later streams end at once', async (t) => {
    const w = await createStreamWorld(t)
    const series = newSeries()
    const c = makeNextContest(series)
    const opened = await w.open(c)
    const bySeries = await w.connect(series)
    const byTicker = await w.connect(c.ticker)
    await eventsUpTo(bySeries, w.expect(opened).id)
    await eventsUpTo(byTicker, w.expect(opened).id)

    await w.hub.close()
    await within(Promise.all([bySeries.ended, byTicker.ended]), 'both streams to end')
    assert.equal(bySeries.end, 'clean')
    assert.equal(byTicker.end, 'clean')
    // the last frame spreads the reconnects after a restart: a retry of 2–10 s drawn per stream
    for (const client of [bySeries, byTicker]) {
      const last = client.frames.at(-1)
      assert.equal(last?.kind, 'retry')
      assert.ok(last.kind === 'retry' && last.ms >= 2000 && last.ms < 10_000, JSON.stringify(last))
    }
    assert.equal(w.hub.size(), 0)

    const late = await w.connect(series)
    await within(late.ended, 'the late stream to end')
    assert.equal(late.end, 'clean')
    assert.deepEqual(late.frames, [])
    assert.equal(w.hub.size(), 0)
  })
})
