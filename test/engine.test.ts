// Engine behaviour over a real SQLite store and the simulator, driven tick by tick on a manual clock.
import assert from 'node:assert/strict'
import { describe, it, mock } from 'node:test'
import { pino } from 'pino'
import { type Contest, MINUTE_MS, sideForPrice } from '../src/domain/contest.ts'
import { FEED_STATUS_SETTING, feedChecks } from '../src/domain/feed-status.ts'
import { formatTicker, QUARTER_MS } from '../src/domain/ticker.ts'
import { readingLatencyMs } from '../src/engine/backfill.ts'
import type { Engine } from '../src/engine/engine.ts'
import { createSimOracle } from '../src/feeds/sim/oracle.ts'
import { createVenueSet } from '../src/feeds/venue-set/venue-set.ts'
import { createReadingModel, DEFAULT_MODEL } from '../src/model/models.ts'
import type { Logger } from '../src/ports/logger.ts'
import type { Store } from '../src/ports/store.ts'
import type { Venue } from '../src/ports/venue.ts'
import { createEngineWorld, withCallLog } from './support/engine-world.ts'

const SERIES = 'KXBTC15M'
/** A quarter hour in EST: the contest KXBTC15M-26NOV221415-15 opens here. */
const Q = Date.parse('2026-11-22T19:00:00Z')
const TICKER = formatTicker(SERIES, Q + QUARTER_MS)

// the pino logger the composition root passes must satisfy the engine's logger type
const _pinoFits: Logger = pino({ enabled: false })

async function runTicks(
  engines: readonly Engine[],
  time: { set(ms: number): void },
  from: number,
  to: number,
  stepMs: number,
): Promise<void> {
  for (let t = from; t <= to; t += stepMs) {
    time.set(t)
    for (const e of engines) await e.tick()
  }
}

async function eventTypes(store: Store, ticker: string): Promise<string[]> {
  return (await store.eventsAfter(0, 10_000, { ticker })).map((e) => e.type)
}

function assertPublishedNumbers(c: Contest): void {
  for (const s of c.signals) {
    assert.ok(Math.abs(s.edgeCents - (s.confidence - s.entryPriceCents)) < 1e-9, `${s.ticker} #${s.minute}`)
    for (const x of [s.confidence, s.entryPriceCents, s.edgeCents]) {
      assert.ok(Math.abs(Math.round(x * 100) / 100 - x) < 1e-9)
    }
    assert.equal(s.modelVersion, createReadingModel(DEFAULT_MODEL).version)
  }
}

function assertGraded(c: Contest): void {
  assert.equal(c.state, 'settled')
  for (const s of c.signals) {
    if (c.voided) assert.equal(s.outcome, 'void')
    else assert.equal(s.outcome, s.side === c.settledSide ? 'win' : 'loss')
  }
  if (c.voided) assert.equal(c.settledSide, null)
}

describe('engine', () => {
  it('runs a contest from opening through one signal per minute to a graded settlement', async () => {
    const w = await createEngineWorld({ seed: 42, start: Q + 200 })
    try {
      const engine = w.engine()
      // many ticks per minute: each minute must still get exactly one signal
      await runTicks([engine], w.time, Q + 200, Q + QUARTER_MS - 1, 5_000)
      const live = await w.store.getContest(TICKER)
      assert.ok(live)
      assert.equal(live.state, 'live')
      assert.deepEqual(
        live.signals.map((s) => s.minute),
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14],
      )
      for (const s of live.signals) {
        const minuteStart = Q + s.minute * MINUTE_MS
        assert.ok(s.raisedAt >= minuteStart && s.raisedAt < minuteStart + 5_000)
        assert.equal(s.outcome, 'pending')
      }
      assertPublishedNumbers(live)

      let settledAt = Number.NaN
      for (let t = Q + QUARTER_MS; t <= Q + QUARTER_MS + 120_000; t += 1_000) {
        w.time.set(t)
        await engine.tick()
        const c = await w.store.getContest(TICKER)
        if (t === Q + QUARTER_MS) assert.equal(c?.state, 'expired')
        if (c?.state === 'settled') {
          settledAt = t
          break
        }
      }
      const delay = settledAt - (Q + QUARTER_MS)
      assert.ok(delay >= 30_000 && delay <= 90_000, `settled ${delay} ms after close`)

      const settled = await w.store.getContest(TICKER)
      assert.ok(settled)
      assertGraded(settled)
      assert.deepEqual(
        settled.signals.map(({ outcome: _o, ...s }) => s),
        live.signals.map(({ outcome: _o, ...s }) => s),
      )
      if (!settled.voided) {
        // the venue's rule: the mean of the index over the minute before the close, against the strike
        const truth = createSimOracle({ seed: 42 })
        const value = truth.settlementDollars(Q + QUARTER_MS)
        assert.equal(settled.strikePriceDollars, truth.strikeDollars(Q + QUARTER_MS))
        assert.equal(settled.settledSide, sideForPrice(value, settled.strikePriceDollars as number))
        if (settled.settledPriceDollars !== null) assert.equal(settled.settledPriceDollars, value)
      }

      assert.deepEqual(await eventTypes(w.store, TICKER), [
        'contest.opened',
        ...Array<string>(14).fill('signal.emitted'),
        'contest.expired',
        'contest.settled',
      ])
      // at the quarter boundary the old contest expires before the next one opens
      const log = await w.store.eventsAfter(0, 10_000)
      const expiredAt = log.findIndex((e) => e.type === 'contest.expired' && e.ticker === TICKER)
      const nextOpenedAt = log.findIndex(
        (e) => e.type === 'contest.opened' && e.ticker === formatTicker(SERIES, Q + 2 * QUARTER_MS),
      )
      assert.ok(expiredAt >= 0 && nextOpenedAt > expiredAt)
      assert.equal(w.notified.at(-1), await w.store.latestSeq())
      assert.deepEqual(w.logger.errors, [])
    } finally {
      await w.close()
    }
  })

  it('adds nothing when ticked again and again within the same minute', async () => {
    const w = await createEngineWorld({ seed: 1, start: Q + 3 * MINUTE_MS + 10 })
    try {
      const engine = w.engine()
      await engine.tick()
      const seq = await w.store.latestSeq()
      for (let i = 0; i < 30; i++) {
        w.time.advance(1_000)
        await engine.tick()
      }
      assert.equal(await w.store.latestSeq(), seq)
      assert.deepEqual(
        (await w.store.getContest(TICKER))?.signals.map((s) => s.minute),
        [3],
      )
    } finally {
      await w.close()
    }
  })

  it('after a restart past READING_MAX_LATE_S into a minute, skips that minute as late and reads the next (decisions §11)', async () => {
    const w = await createEngineWorld({ seed: 1, start: Q + 5 * MINUTE_MS + 10_001 })
    try {
      const skipped: string[] = []
      const engine = w.engine({ onSkippedReading: (reason) => skipped.push(reason) })
      await engine.tick()
      const contest = await w.store.getContest(TICKER)
      assert.equal(contest?.state, 'live')
      assert.deepEqual(contest?.signals, [])
      w.time.set(Q + 6 * MINUTE_MS)
      await engine.tick()
      assert.deepEqual(
        (await w.store.getContest(TICKER))?.signals.map((s) => s.minute),
        [6],
      )
      // counted once, when the next minute gave it up; minutes 1–4 were never the engine's to read
      assert.deepEqual(skipped, ['late'])
    } finally {
      await w.close()
    }
  })

  it('never overlaps ticks: a tick requested while one runs joins it', async () => {
    const w = await createEngineWorld({ seed: 1, start: Q + 2 * MINUTE_MS })
    try {
      const engine = w.engine()
      const a = engine.tick()
      const b = engine.tick()
      assert.equal(a, b)
      await a
      assert.equal((await w.store.getContest(TICKER))?.signals.length, 1)
    } finally {
      await w.close()
    }
  })

  it('keeps ticking every tickMs after start() until stop()', async () => {
    mock.timers.enable({ apis: ['setTimeout'] })
    const w = await createEngineWorld({ seed: 4, start: Q + MINUTE_MS + 100 })
    try {
      const logged = withCallLog(w.store)
      const engine = w.engine({ store: logged.store, tickMs: 250 })
      await engine.start()
      assert.equal(engine.isLeader(), true)
      const minutes = async () => (await w.store.getContest(TICKER))?.signals.map((s) => s.minute)
      assert.deepEqual(await minutes(), [1])

      w.time.set(Q + 2 * MINUTE_MS + 100)
      const callsBefore = logged.calls.length
      mock.timers.tick(249)
      assert.equal(logged.calls.length, callsBefore)
      mock.timers.tick(1)
      // the timer's tick has begun (it renews the lease first); this call joins it
      assert.ok(logged.calls.length > callsBefore)
      await engine.tick()
      assert.deepEqual(await minutes(), [1, 2])

      await engine.stop()
      assert.equal(engine.isLeader(), false)
      w.time.set(Q + 3 * MINUTE_MS + 100)
      const callsAtStop = logged.calls.length
      mock.timers.tick(10_000)
      assert.equal(logged.calls.length, callsAtStop)
      assert.deepEqual(await minutes(), [1, 2])
    } finally {
      mock.timers.reset()
      await w.close()
    }
  })

  it('keeps a standby silent, and lets it take over without duplicates when the leader dies', async () => {
    const w = await createEngineWorld({ seed: 7, start: Q + 30_000 })
    try {
      const a = withCallLog(w.store)
      const b = withCallLog(w.store)
      const leader = w.engine({ store: a.store, holderId: 'engine-a' })
      const standby = w.engine({ store: b.store, holderId: 'engine-b' })

      await runTicks([leader, standby], w.time, Q + 30_000, Q + 5 * MINUTE_MS, 1_000)
      assert.equal(leader.isLeader(), true)
      assert.equal(standby.isLeader(), false)
      assert.deepEqual(b.writes, [])
      assert.ok(a.writes.includes('addSignal'))

      // the leader dies without releasing its lease; the standby takes over within ~8 s
      const died = Q + 5 * MINUTE_MS
      let tookOver = Number.NaN
      for (let t = died + 1_000; t <= died + 10_000; t += 250) {
        w.time.set(t)
        await standby.tick()
        if (standby.isLeader()) {
          tookOver = t - died
          break
        }
        assert.deepEqual(b.writes, [])
      }
      assert.ok(tookOver >= 6_000 && tookOver <= 8_000, `took over after ${tookOver} ms`)

      await runTicks([standby], w.time, died + tookOver, Q + QUARTER_MS + 100_000, 2_000)

      // the old leader comes back: it finds the lease taken and writes nothing
      const writesBefore = a.writes.length
      await runTicks([leader, standby], w.time, Q + QUARTER_MS + 100_000, Q + QUARTER_MS + 130_000, 1_000)
      assert.equal(leader.isLeader(), false)
      assert.equal(a.writes.length, writesBefore)

      const contest = await w.store.getContest(TICKER)
      assert.ok(contest)
      assertGraded(contest)
      // minute 5's reading may have been missed during the handover; none may be doubled
      const minutes = contest.signals.map((s) => s.minute)
      assert.deepEqual(
        minutes,
        [...new Set(minutes)].sort((x, y) => x - y),
      )
      assert.ok(minutes.length >= 13)
      const types = await eventTypes(w.store, TICKER)
      assert.equal(types.filter((t) => t === 'contest.opened').length, 1)
      assert.equal(types.filter((t) => t === 'signal.emitted').length, minutes.length)
      assert.equal(types.filter((t) => t === 'contest.settled').length, 1)
    } finally {
      await w.close()
    }
  })

  it('hands over at once when the leader stops and releases its lease', async () => {
    const w = await createEngineWorld({ seed: 7, start: Q + 30_000 })
    try {
      const a = w.engine({ holderId: 'engine-a' })
      const b = w.engine({ holderId: 'engine-b' })
      await a.tick()
      await b.tick()
      assert.equal(b.isLeader(), false)
      await a.stop()
      assert.equal(a.isLeader(), false)
      w.time.advance(2_000)
      await b.tick()
      assert.equal(b.isLeader(), true)
    } finally {
      await w.close()
    }
  })

  it('settles on the next start a contest that expired while the engine was stopped', async () => {
    const w = await createEngineWorld({ seed: 3, start: Q + 200 })
    try {
      const first = w.engine({ holderId: 'first' })
      await first.start()
      await runTicks([first], w.time, Q + 1_000, Q + 5 * MINUTE_MS + 1_000, 10_000)
      await first.stop()
      assert.equal((await w.store.getContest(TICKER))?.state, 'live')

      w.time.set(Q + QUARTER_MS + 10 * MINUTE_MS)
      const second = w.engine({ holderId: 'second' })
      await second.start()
      await second.stop()

      const contest = await w.store.getContest(TICKER)
      assert.ok(contest)
      assertGraded(contest)
      assert.deepEqual(
        contest.signals.map((s) => s.minute),
        [1, 2, 3, 4, 5],
      )
      // and the window now current is open
      const current = formatTicker(SERIES, Q + 2 * QUARTER_MS)
      assert.equal((await w.store.getContest(current))?.state, 'live')
    } finally {
      await w.close()
    }
  })

  it('backfills one day: 96 settled contests per series, 14 graded signals each, one import event', async () => {
    const series = ['KXBTC15M', 'KXETH15M']
    const now = Q + 5 * MINUTE_MS + 200
    const w = await createEngineWorld({ seed: 11, start: now, series, backfillDays: 1 })
    try {
      let backfillsEnded = 0
      const engine = w.engine({ afterBackfill: () => backfillsEnded++ })
      // (its speed is measured by npm run bench:growth, not asserted here)
      await engine.tick()
      assert.equal(backfillsEnded, 1, 'told once the backfill is over (the runtime releases its memory)')

      for (const s of series) {
        const history = await w.store.listSettled({ series: s, limit: 100 })
        assert.equal(history.length, 96)
        assert.equal(history[0]?.expiresAt, Q)
        assert.equal(history.at(-1)?.opensAt, Q - 86_400_000)
        for (const c of history) {
          assert.equal(c.series, s)
          assert.deepEqual(
            c.signals.map((x) => x.minute),
            [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14],
          )
          assertGraded(c)
          assertPublishedNumbers(c)
          for (const x of c.signals) {
            const minuteStart = c.opensAt + x.minute * MINUTE_MS
            assert.ok(x.raisedAt >= minuteStart && x.raisedAt < minuteStart + 1_000)
          }
        }
        const live = await w.store.getLiveContest(s)
        assert.deepEqual(
          live?.signals.map((x) => x.minute),
          [5],
        )
      }
      const imports = (await w.store.eventsAfter(0, 10_000)).filter((e) => e.type === 'history.imported')
      assert.deepEqual(
        imports.map((e) => JSON.parse(e.data)),
        series.map((s) => ({ series: s, contests: 96 })),
      )
      assert.equal(w.notified.at(-1), await w.store.latestSeq())

      // a later start finds contests and does not backfill again
      await engine.stop()
      w.time.advance(10_000)
      const later = w.engine({ holderId: 'later', afterBackfill: () => backfillsEnded++ })
      await later.tick()
      assert.equal(later.isLeader(), true)
      assert.equal(backfillsEnded, 1)
      assert.equal(await w.store.countContests(), 2 * 97)
      const importsAfter = (await w.store.eventsAfter(0, 10_000)).filter((e) => e.type === 'history.imported')
      assert.equal(importsAfter.length, 2)
    } finally {
      await w.close()
    }
  })

  it('goes on at the next start with a backfill a kill cut short, to the history one uninterrupted backfill writes', async () => {
    const series = ['KXBTC15M', 'KXETH15M']
    const now = Q + 5 * MINUTE_MS + 200
    const whole = await createEngineWorld({ seed: 11, start: now, series, backfillDays: 1 })
    const cut = await createEngineWorld({ seed: 11, start: now, series, backfillDays: 1 })
    try {
      await whole.engine().tick()
      // the first series' history is written, then the process dies: every later write fails
      let imports = 0
      const dying: Store = Object.create(cut.store)
      dying.importHistory = async (contests) => {
        if (++imports > 1) throw new Error('killed')
        return cut.store.importHistory(contests)
      }
      await cut.engine({ store: dying, holderId: 'killed' }).tick()
      assert.equal((await cut.store.listSettled({ series: 'KXETH15M', limit: 100 })).length, 0, 'cut short')
      // its lease lapses; the next start goes on with the backfill, not live over a hole
      cut.time.advance(10_000)
      await cut.engine({ holderId: 'next' }).tick()
      for (const s of series) {
        const settled = (c: Contest[]) => c.map(({ ticker, signals }) => ({ ticker, signals }))
        const expected = await whole.store.listSettled({ series: s, limit: 100 })
        assert.equal(expected.length, 96)
        assert.deepEqual(
          settled(await cut.store.listSettled({ series: s, limit: 100 })),
          settled(expected),
          s,
        )
      }
    } finally {
      await whole.close()
      await cut.close()
    }
  })

  it('stops a first start’s backfill at its next window when a stop is asked for; the next start goes on with it', async () => {
    const series = ['KXBTC15M', 'KXETH15M']
    const w = await createEngineWorld({ seed: 11, start: Q + 5 * MINUTE_MS + 200, series, backfillDays: 1 })
    try {
      // SIGTERM arrives once the first series' history is written
      const stop = new AbortController()
      const watched: Store = Object.create(w.store)
      watched.importHistory = async (contests) => {
        const n = await w.store.importHistory(contests)
        stop.abort('SIGTERM')
        return n
      }
      const first = w.engine({ store: watched, stopping: stop.signal, holderId: 'first' })
      await first.tick()
      assert.equal((await w.store.listSettled({ series: 'KXETH15M', limit: 100 })).length, 0, 'stopped')
      assert.equal(await w.store.getLiveContest('KXBTC15M'), null, 'nothing went live')
      assert.deepEqual(w.logger.errors, [], 'a stop is no failure')
      await first.stop()
      await w.engine({ holderId: 'next' }).tick()
      for (const s of series)
        assert.equal((await w.store.listSettled({ series: s, limit: 100 })).length, 96, s)
    } finally {
      await w.close()
    }
  })

  it('records the windows that passed while no engine led, settled with no signals: history has no hole', async () => {
    const w = await createEngineWorld({ seed: 12, start: Q + 5 * MINUTE_MS + 200 })
    try {
      const first = w.engine({ holderId: 'first' })
      await first.tick()
      const before = await w.store.getLiveContest(SERIES)
      assert.equal(before?.opensAt, Q)
      // every engine is down from here for three quarters and a bit (killed: the lease lapses)
      w.time.set(Q + 3 * QUARTER_MS + 5 * MINUTE_MS + 200)
      await w.engine({ holderId: 'back' }).tick()
      const history = await w.store.listSettled({ series: SERIES, limit: 10 })
      assert.deepEqual(
        history.map((c) => c.opensAt),
        [Q + 2 * QUARTER_MS, Q + QUARTER_MS, Q],
        'every quarter since the last one stored',
      )
      const [q2, q1, q0] = history
      assert.deepEqual([q2?.signals.length, q1?.signals.length], [0, 0], 'no signal made up afterwards')
      assert.ok((q0?.signals.length ?? 0) > 0, 'the window read live keeps its signals')
      assert.equal((await w.store.getLiveContest(SERIES))?.opensAt, Q + 3 * QUARTER_MS)
      assert.ok(
        w.logger.warnings.some((x) =>
          (x as { msg: string }).msg.startsWith('windows that passed while no engine led'),
        ),
      )
    } finally {
      await w.close()
    }
  })

  it('beats before and during a long backfill, so a first start reads as alive rather than stale', async () => {
    const now = Q + 5 * MINUTE_MS + 200
    const w = await createEngineWorld({
      seed: 11,
      start: now,
      series: ['KXBTC15M', 'KXETH15M'],
      backfillDays: 1,
    })
    try {
      const beats: number[] = []
      const importedAt: number[] = []
      // each chunk of history takes 5 wall seconds to import: as long as a heartbeat's period
      const slow: Store = Object.create(w.store)
      slow.importHistory = async (contests) => {
        importedAt.push(w.time.now())
        const n = await w.store.importHistory(contests)
        w.time.advance(5_000)
        return n
      }
      slow.recordEngineHeartbeat = async (at) => {
        beats.push(at)
        await w.store.recordEngineHeartbeat(at)
      }
      await w.engine({ store: slow }).tick()
      assert.ok(importedAt.length >= 2, 'the backfill imported in several chunks')
      assert.equal(beats[0], now, 'the first beat comes before any history is imported')
      for (const at of importedAt.slice(1))
        assert.ok(beats.includes(at), `a beat at ${at - now} ms, between two chunks of history`)
    } finally {
      await w.close()
    }
  })

  it('builds the same history from the same seed, and history equal to what live produced', async () => {
    const now = Q + QUARTER_MS + 5 * MINUTE_MS
    const histories: Contest[][] = []
    for (const seed of [5, 5, 6]) {
      const w = await createEngineWorld({ seed, start: now, backfillDays: 1 })
      try {
        await w.engine().tick()
        histories.push(await w.store.listSettled({ series: SERIES, limit: 100 }))
      } finally {
        await w.close()
      }
    }
    assert.equal(histories[0]?.length, 96)
    assert.deepEqual(histories[1], histories[0])
    assert.notDeepEqual(histories[2], histories[0])

    // the live engine with the same seed, ticking at each whole minute, raises the same readings for
    // contest Q (each priced from the instant it observed); only raised_at carries the backfill's
    // latency stand-in. It too has the day before behind it: the crowd's lag the model reads is
    // measured from a day of readings, which an engine started cold at Q has not made
    const w = await createEngineWorld({ seed: 5, start: Q + 100, backfillDays: 1 })
    try {
      const engine = w.engine()
      await engine.tick()
      for (let minute = 1; minute <= 14; minute++) {
        w.time.set(Q + minute * MINUTE_MS)
        await engine.tick()
      }
      await runTicks([engine], w.time, Q + QUARTER_MS, Q + QUARTER_MS + 95_000, 5_000)
      const live = await w.store.getContest(TICKER)
      const rebuilt = histories[0]?.find((c) => c.ticker === TICKER)
      assert.ok(live && rebuilt)
      const numbers = (c: Contest) => c.signals.map(({ raisedAt: _r, ...s }) => s)
      assert.deepEqual(numbers(live), numbers(rebuilt))
      assert.deepEqual(
        rebuilt.signals.map((s) => s.raisedAt),
        rebuilt.signals.map((s) => Q + s.minute * MINUTE_MS + readingLatencyMs(TICKER, s.minute)),
      )
      assert.deepEqual({ ...live, signals: [] }, { ...rebuilt, signals: [] })
    } finally {
      await w.close()
    }
  })

  it('raises the same signals from the same seed however late its ticks fall: the simulator is read at the boundary', async () => {
    const run = async (lateMs: number): Promise<Contest['signals']> => {
      const w = await createEngineWorld({ seed: 5, start: Q + 100 })
      try {
        const engine = w.engine()
        await engine.tick()
        for (let minute = 1; minute <= 14; minute++) {
          w.time.set(Q + minute * MINUTE_MS + lateMs)
          await engine.tick()
        }
        return (await w.store.getContest(TICKER))?.signals ?? []
      } finally {
        await w.close()
      }
    }
    const prompt = await run(40)
    const late = await run(2_345)
    assert.equal(prompt.length, 14)
    const numbers = (signals: Contest['signals']) => signals.map(({ raisedAt: _r, ...s }) => s)
    assert.deepEqual(numbers(late), numbers(prompt))
    // raised when each tick made it
    assert.deepEqual(
      late.map((s) => s.raisedAt),
      late.map((s) => Q + s.minute * MINUTE_MS + 2_345),
    )
  })

  it('logs a failing step once (its repeats within the minute are counted, not logged) and carries on with the next tick', async () => {
    const w = await createEngineWorld({ seed: 9, start: Q + MINUTE_MS + 100 })
    try {
      let failures = 3
      const flaky: Venue = {
        ...w.venue,
        quote: (t, at) => (failures-- > 0 ? Promise.reject(new Error('venue down')) : w.venue.quote(t, at)),
      }
      const engine = w.engine({ venue: flaky })
      for (let i = 0; i < 4; i++) {
        await engine.tick()
        w.time.advance(1_000)
      }
      // three failures, each step's failure logged once with its stack: no line repeats
      const lines = w.logger.errors.map((e) => (e as { msg: string }).msg)
      assert.ok(lines.length >= 1 && lines.length < 3, JSON.stringify(lines))
      assert.equal(new Set(lines).size, lines.length, JSON.stringify(lines))
      assert.deepEqual(
        (await w.store.getContest(TICKER))?.signals.map((s) => s.minute),
        [1],
      )
    } finally {
      await w.close()
    }
  })

  it('logs a lease it cannot reach once a minute, not at every attempt (a standby while the database is down)', async () => {
    const w = await createEngineWorld({ seed: 9, start: Q + MINUTE_MS + 100 })
    try {
      const down: Store = new Proxy(w.store, {
        get: (target, name) =>
          name === 'acquireLease'
            ? () => Promise.reject(new Error('PostgreSQL is unavailable (ECONNREFUSED)'))
            : Reflect.get(target, name),
      })
      const engine = w.engine({ store: down })
      // a standby asks for the lease every half second: 40 attempts in 20 s
      for (let i = 0; i < 40; i++) {
        await engine.tick()
        w.time.advance(500)
      }
      assert.deepEqual(
        w.logger.errors.map((e) => (e as { msg: string }).msg),
        ['engine lease renewal failed'],
      )
    } finally {
      await w.close()
    }
  })

  it('writes a heartbeat about every 5 s and prunes old events about hourly', async () => {
    const w = await createEngineWorld({ seed: 2, start: Q + 100 })
    try {
      const engine = w.engine({ retentionMs: 10 * MINUTE_MS })
      await engine.tick()
      assert.equal(await w.store.lastEngineHeartbeat(), Q + 100)
      w.time.advance(1_000)
      await engine.tick()
      assert.equal(await w.store.lastEngineHeartbeat(), Q + 100)
      w.time.advance(4_000)
      await engine.tick()
      assert.equal(await w.store.lastEngineHeartbeat(), Q + 5_100)

      const firstSeq = (await w.store.eventsAfter(0, 1))[0]?.seq
      assert.ok(firstSeq)
      await runTicks([engine], w.time, Q + 10_000, Q + 3_600_000, 60_000)
      assert.equal(await w.store.hasEvent(firstSeq, 0), true)
      w.time.set(Q + 3_600_000 + 200)
      await engine.tick()
      assert.equal(await w.store.hasEvent(firstSeq, 0), false)
      assert.ok((await w.store.latestSeq()) > firstSeq)
    } finally {
      await w.close()
    }
  })

  it('follows two venues through one set: each series opened on its venue, the report per venue (decisions §14)', async () => {
    const OTHER = 'KXBTC15MB'
    const w = await createEngineWorld({ seed: 2, start: Q + 2 * MINUTE_MS + 100, series: [SERIES, OTHER] })
    try {
      // the simulator twice under two names, as Kalshi and Polymarket would be: one down, one paused
      const asked: string[] = []
      const member = (name: string, status: object): Venue => ({
        ...w.venue,
        name,
        marketAt: (series, at) => {
          asked.push(`${name} ${series}`)
          return w.venue.marketAt(series, at)
        },
        status: () => ({ name, state: 'ok', lastOkAt: null, ...status }),
      })
      const venue = createVenueSet([
        { venue: member('kalshi', { check: 'paused', scheduledPause: true }), series: [SERIES] },
        { venue: member('polymarket', { state: 'down' }), series: [OTHER] },
      ])
      const engine = w.engine({ venue, series: [SERIES, OTHER] })
      await engine.tick()
      assert.deepEqual([...new Set(asked)].sort(), [`kalshi ${SERIES}`, `polymarket ${OTHER}`])
      assert.equal((await w.store.getContest(TICKER))?.series, SERIES)
      assert.equal((await w.store.getContest(formatTicker(OTHER, Q + QUARTER_MS)))?.series, OTHER)
      assert.deepEqual(feedChecks(await w.store.getSetting(FEED_STATUS_SETTING)), {
        venue: 'unreachable',
        venues: { kalshi: 'paused', polymarket: 'unreachable' },
        spot: 'ok',
        venueDegraded: true,
        index: null,
      })
    } finally {
      await w.close()
    }
  })
})
