import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createGate } from '../../test/support/gate.ts'
import { createManualClock } from '../../test/support/manual-clock.ts'
import { waitUntil } from '../../test/support/wait.ts'
import type { Contest } from '../domain/contest.ts'
import type { HistoryQuery, Store } from '../ports/store.ts'
import { activeKey, contestKey, createContestCache } from './contest-cache.ts'

function contest(ticker: string, series: string, state: Contest['state'] = 'live', signals = 0): Contest {
  return {
    ticker,
    series,
    state,
    opensAt: 0,
    expiresAt: 900_000,
    strikePriceDollars: 1,
    settledSide: null,
    settledPriceDollars: null,
    voided: false,
    venue: null,
    signals: Array.from({ length: signals }, (_, i) => ({
      ticker,
      minute: i + 1,
      raisedAt: 60_000 * (i + 1),
      side: 'up' as const,
      confidence: 60,
      entryPriceCents: 50,
      edgeCents: 10,
      outcome: 'pending' as const,
      modelVersion: 'm',
    })),
  }
}

function fakeStore(contests: Contest[]) {
  const reads = { contest: 0, live: 0, settled: 0 }
  const gate = createGate()
  const byTicker = () => new Map(contests.map((c) => [c.ticker, c]))
  const store = {
    async getContest(t: string) {
      reads.contest++
      await gate.pass()
      return byTicker().get(t) ?? null
    },
    async getLiveContest(s: string) {
      reads.live++
      await gate.pass()
      return contests.find((c) => c.series === s && c.state === 'live') ?? null
    },
    async listSettled(q: HistoryQuery) {
      reads.settled++
      await gate.pass()
      return contests.filter((c) => c.series === q.series && c.state === 'settled').slice(0, q.limit)
    },
  } as unknown as Store
  return {
    store,
    reads,
    contests,
    /** Holds store reads until the returned function runs. */
    hold: gate.hold,
  }
}

const body = (rep: { body: Buffer } | null) => (rep ? JSON.parse(rep.body.toString()) : null)

describe('createContestCache', () => {
  test('serves repeated reads from memory with the same bytes and ETag', async () => {
    const f = fakeStore([contest('S-1', 'S')])
    const cache = createContestCache({ store: f.store })
    const a = await cache.contest('S-1')
    const b = await cache.contest('S-1')
    assert.equal(a, b)
    assert.equal(f.reads.contest, 1)
    assert.match(a!.etag, /^"[0-9a-f]+"$/)
    assert.equal(body(a).ticker, 'S-1')
  })

  test('shares one store read between concurrent misses', async () => {
    const f = fakeStore([contest('S-1', 'S')])
    const cache = createContestCache({ store: f.store })
    await Promise.all(Array.from({ length: 10 }, () => cache.history({ series: 'S', limit: 20 })))
    assert.equal(f.reads.settled, 1)
  })

  test('drops entries by the ticker and the series of an event', async () => {
    const f = fakeStore([contest('S-1', 'S', 'live', 1)])
    const cache = createContestCache({ store: f.store })
    await cache.contest('S-1')
    await cache.active('S')
    await cache.history({ series: 'S', limit: 20 })
    f.contests[0] = contest('S-1', 'S', 'live', 2)
    cache.invalidate([{ type: 'signal.emitted', series: 'S', ticker: 'S-1' }])
    assert.equal(body(await cache.contest('S-1')).signals.length, 2)
    assert.equal(body(await cache.active('S')).signals.length, 2)
    await cache.history({ series: 'S', limit: 20 })
    assert.equal(f.reads.settled, 2)
  })

  test('leaves other series alone', async () => {
    const f = fakeStore([contest('A-1', 'A'), contest('B-1', 'B')])
    const cache = createContestCache({ store: f.store })
    await cache.contest('A-1')
    await cache.contest('B-1')
    cache.invalidate([{ type: 'contest.expired', series: 'A', ticker: 'A-1' }])
    await cache.contest('B-1')
    assert.equal(f.reads.contest, 2)
  })

  test('drops an active entry selected by ticker when that contest changes', async () => {
    const f = fakeStore([contest('S-1', 'S')])
    const cache = createContestCache({ store: f.store })
    assert.equal(body(await cache.active('S-1')).ticker, 'S-1')
    f.contests[0] = contest('S-1', 'S', 'expired')
    cache.invalidate([{ type: 'contest.expired', series: 'S', ticker: 'S-1' }])
    assert.equal(await cache.active('S-1'), null)
  })

  test('caches misses until a contest with that ticker or series appears', async () => {
    const f = fakeStore([])
    const cache = createContestCache({ store: f.store })
    assert.equal(await cache.contest('S-9'), null)
    assert.equal(await cache.contest('S-9'), null)
    assert.equal(f.reads.contest, 1)
    f.contests.push(contest('S-9', 'S', 'settled'))
    cache.invalidate([{ type: 'history.imported', series: 'S', ticker: '' }])
    assert.equal(body(await cache.contest('S-9')).ticker, 'S-9')
  })

  test('does not keep a read that an invalidation overtook, but still serves it', async () => {
    const f = fakeStore([contest('S-1', 'S', 'live', 1)])
    const cache = createContestCache({ store: f.store })
    const open = f.hold()
    const pending = cache.contest('S-1')
    cache.invalidate([{ type: 'signal.emitted', series: 'S', ticker: 'S-1' }])
    // A request arriving after the invalidation must not join the stale read.
    const later = cache.contest('S-1')
    f.contests[0] = contest('S-1', 'S', 'live', 2)
    open()
    assert.ok(await pending)
    assert.equal(body(await later).signals.length, 2)
    assert.equal(body(await cache.contest('S-1')).signals.length, 2)
  })

  test('ignores events outside any series, such as key changes', async () => {
    const f = fakeStore([contest('S-1', 'S')])
    const cache = createContestCache({ store: f.store })
    await cache.contest('S-1')
    cache.invalidate([{ type: 'key.changed', series: '', ticker: '' }])
    await cache.contest('S-1')
    assert.equal(f.reads.contest, 1)
  })

  test('stays within its byte budget by dropping the least recently used entries', async () => {
    const contests = Array.from({ length: 50 }, (_, i) => contest(`S-${i}`, 'S', 'live', 10))
    const f = fakeStore(contests)
    const cache = createContestCache({ store: f.store, maxBytes: 40_000 })
    for (const c of contests) await cache.contest(c.ticker)
    assert.ok(cache.stats().bytes <= 40_000)
    assert.ok(cache.stats().entries < 50)
    const reads = f.reads.contest
    await cache.contest('S-49')
    assert.equal(f.reads.contest, reads, 'the most recent entry is still held')
    await cache.contest('S-0')
    assert.equal(f.reads.contest, reads + 1, 'the oldest was dropped')
  })

  test('keys history by every query parameter', async () => {
    const f = fakeStore([contest('S-1', 'S', 'settled'), contest('S-2', 'S', 'settled')])
    const cache = createContestCache({ store: f.store })
    assert.equal(body(await cache.history({ series: 'S', limit: 1 })).contests.length, 1)
    assert.equal(body(await cache.history({ series: 'S', limit: 2 })).contests.length, 2)
    await cache.history({ series: 'S', limit: 2, since: 5 })
    await cache.history({ series: 'S', limit: 2, before: 5 })
    assert.equal(f.reads.settled, 4)
  })
  test('shows a contest the store still holds live as expired from its expiry on, by the service clock (decisions §3)', async () => {
    const clock = createManualClock(899_000) // the window is [0, 900 000)
    const f = fakeStore([contest('S-1', 'S')])
    const cache = createContestCache({ store: f.store, clock, sweepMs: 3_600_000 })
    assert.equal(body(await cache.contest('S-1')).state, 'live')
    assert.equal(body(await cache.active('S')).ticker, 'S-1')
    const held = cache.peek(contestKey('S-1'))!
    clock.set(900_000)
    // the store has not been told (no engine step yet): the answer is still what the clock says
    assert.equal(body(await cache.contest('S-1')).state, 'expired')
    assert.equal(await cache.active('S'), null, 'no live contest until the next opens')
    assert.equal(held.live, false, 'a caller holding the live entry sees it dropped')
    assert.equal(cache.peek(activeKey('S'))?.rep, null)
    cache.close()
  })

  test('drops a held live entry at its expiry on its own, so a caller that keeps the handle sees it go', async () => {
    const clock = createManualClock(899_000)
    const f = fakeStore([contest('S-1', 'S')])
    const cache = createContestCache({ store: f.store, clock, sweepMs: 5 })
    await cache.active('S')
    const held = cache.peek(activeKey('S'))!
    assert.equal(held.live, true)
    clock.set(900_000)
    await waitUntil(() => !held.live, 'the entry dropped by the sweep')
    cache.close()
  })

  test('without a clock, shows contests as stored', async () => {
    const f = fakeStore([contest('S-1', 'S')])
    const cache = createContestCache({ store: f.store })
    assert.equal(body(await cache.contest('S-1')).state, 'live')
    assert.equal(body(await cache.active('S')).ticker, 'S-1')
  })
})
