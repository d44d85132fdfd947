// Tests of the simulator backfill: chunked imports, lease loss, and the window whose result is pending.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MINUTE_MS } from '../src/domain/contest.ts'
import { formatTicker, QUARTER_MS } from '../src/domain/ticker.ts'
import { backfillHistory, LeadershipLostError, readingLatencyMs } from '../src/engine/backfill.ts'
import type { StepContext } from '../src/engine/engine-context.ts'
import { DEFAULT_READING_MAX_LATE_MS } from '../src/engine/reading.ts'
import { createSkippedReadings } from '../src/engine/skipped-readings.ts'
import { createReadingModel, DEFAULT_MODEL } from '../src/model/models.ts'
import { createMemoryEventNotifier } from '../src/store/memory/memory-event-notifier.ts'
import { createEngineWorld, type EngineWorld } from './support/engine-world.ts'

const SERIES = 'KXBTC15M'
const Q = Date.parse('2026-11-22T19:00:00Z')

function contextOf(w: EngineWorld): StepContext {
  return {
    store: w.store,
    venue: w.venue,
    feed: w.feed,
    notifier: createMemoryEventNotifier(),
    logger: w.logger,
    skips: createSkippedReadings(w.logger),
    model: createReadingModel(DEFAULT_MODEL),
    maxLateMs: DEFAULT_READING_MAX_LATE_MS,
    basisCache: new Map(),
    crowdLags: { model: createReadingModel(DEFAULT_MODEL), bySeries: new Map() },
  }
}

describe('backfillHistory', () => {
  it('imports in chunks, one history.imported event per chunk', async () => {
    const w = await createEngineWorld({ seed: 12, start: Q + 5 * MINUTE_MS })
    try {
      const result = await backfillHistory(contextOf(w), {
        series: [SERIES],
        now: w.time.now(),
        days: 1,
        chunkSize: 10,
        keepLease: async () => true,
      })
      assert.deepEqual(result, { imported: 96, unsettled: 0 })
      const imports = (await w.store.eventsAfter(0, 1_000)).filter((e) => e.type === 'history.imported')
      assert.equal(imports.length, 10)
      assert.equal((await w.store.listSettled({ series: SERIES, limit: 100 })).length, 96)
    } finally {
      await w.close()
    }
  })

  it("raises no signal during the venue's weekly trading pause, and reads every other minute", async () => {
    // Thursday 2026-11-26 03:00–05:00 New York time is 08:00–10:00Z
    const pauseFrom = Date.parse('2026-11-26T08:00:00Z')
    const pauseTo = Date.parse('2026-11-26T10:00:00Z')
    const w = await createEngineWorld({ seed: 13, start: Date.parse('2026-11-26T12:00:00Z') + 5 * MINUTE_MS })
    try {
      await backfillHistory(contextOf(w), {
        series: [SERIES],
        now: w.time.now(),
        days: 0.5,
        keepLease: async () => true,
      })
      const contests = await w.store.listSettled({ series: SERIES, limit: 100 })
      assert.equal(contests.length, 48)
      let read = 0
      for (const c of contests) {
        const paused = c.opensAt >= pauseFrom && c.expiresAt <= pauseTo
        if (paused) assert.equal(c.signals.length, 0, c.ticker)
        for (const s of c.signals) {
          const minute = c.opensAt + s.minute * MINUTE_MS
          assert.ok(minute < pauseFrom || minute >= pauseTo, `${c.ticker} minute ${s.minute}`)
        }
        read += c.signals.length
      }
      assert.equal(contests.filter((c) => c.opensAt >= pauseFrom && c.expiresAt <= pauseTo).length, 8)
      // outside the pause a minute is skipped only when every exchange is stale or off at once
      assert.ok(read > 0.97 * 40 * 14, `${read} readings`)
    } finally {
      await w.close()
    }
  })

  it('stops with LeadershipLostError, writing nothing more, once the lease is lost', async () => {
    const w = await createEngineWorld({ seed: 12, start: Q + 5 * MINUTE_MS })
    try {
      await assert.rejects(
        backfillHistory(contextOf(w), {
          series: [SERIES],
          now: w.time.now(),
          days: 1,
          keepLease: async () => false,
        }),
        LeadershipLostError,
      )
      assert.equal(await w.store.countContests(), 0)
    } finally {
      await w.close()
    }
  })

  it('sends a window closed too recently to have a result through the live path; ticks settle it', async () => {
    const w = await createEngineWorld({ seed: 13, start: Q + 10_000, backfillDays: 1 })
    try {
      const engine = w.engine()
      await engine.tick()
      const recent = formatTicker(SERIES, Q)
      const pending = await w.store.getContest(recent)
      assert.equal(pending?.state, 'expired')
      assert.equal(pending?.signals.length, 14)
      assert.equal((await w.store.listSettled({ series: SERIES, limit: 100 })).length, 95)
      const types = (await w.store.eventsAfter(0, 1_000, { ticker: recent })).map((e) => e.type)
      assert.deepEqual(types, [
        'contest.opened',
        ...Array<string>(14).fill('signal.emitted'),
        'contest.expired',
      ])

      w.time.set(Q + 91_000)
      await engine.tick()
      assert.equal((await w.store.getContest(recent))?.state, 'settled')
      assert.equal((await w.store.listSettled({ series: SERIES, limit: 100 })).length, 96)
      assert.equal((await w.store.getLiveContest(SERIES))?.opensAt, Q)
    } finally {
      await w.close()
    }
  })
})

describe('readingLatencyMs', () => {
  it('is a deterministic 100–899 ms that varies by ticker and minute', () => {
    const seen = new Set<number>()
    for (let q = 0; q < 50; q++) {
      const ticker = formatTicker(SERIES, Q + q * QUARTER_MS)
      for (let m = 1; m <= 14; m++) {
        const ms = readingLatencyMs(ticker, m)
        assert.equal(ms, readingLatencyMs(ticker, m))
        assert.ok(Number.isInteger(ms) && ms >= 100 && ms < 900)
        seen.add(ms)
      }
    }
    assert.ok(seen.size > 300)
  })
})
