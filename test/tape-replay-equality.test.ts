// The proof that replay is faithful (decisions §12): the simulator writes a seeded week as a tape in
// Kalshi's shapes, the replay runs the engine on it through the real Kalshi parsing and the live
// spot median, and the result is the simulator's own history — contest by contest, signal by signal.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Contest } from '../src/domain/contest.ts'
import { MODEL_VERSION as V1_VERSION } from '../src/domain/model.ts'
import { sharedSimWorld } from '../src/feeds/sim/sim-world.ts'
import { simTapeHeader, writeSimTape } from '../src/feeds/sim-tape/sim-tape.ts'
import { runReplay } from '../src/main/replay.ts'
import { systemClock } from '../src/main/system-clock.ts'
import { createReadingModel } from '../src/model/models.ts'
import type { Store } from '../src/ports/store.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { createTapeWriter } from '../src/tape/tape-writer.ts'
import { createEngineWorld, createRecordingLogger, type EngineWorld } from './support/engine-world.ts'

const SEED = 20_261_120
const DAYS = 7
const FROM = Date.UTC(2026, 10, 16)
const DAY_MS = 86_400_000
const SERIES = ['KXBTC15M']
// Both sides run model v1 (one hour of closes, no basis). The default, v2, also reads a day of closes
// and the strikes of the 16 contests before each one beside the proxy's mean over their last minute;
// a tape carries neither before its first contest (its warm-up is SIM_TAPE_WARMUP_MS of spot, and
// the venue shows only the markets on the tape), and a tape's mean comes from minute closes where the
// sandbox averages its one-second prints — so v2's readings on a tape differ by design, not by fault.
const MODEL = V1_VERSION

async function allContests(store: Store): Promise<Contest[]> {
  const contests = await store.listSettled({ series: SERIES[0] as string, limit: 100_000 })
  return contests.sort((a, b) => a.opensAt - b.opensAt)
}

describe(`a seeded week of the simulator, replayed from its own tape (seed ${SEED})`, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cs-tape-eq-'))
  let world: EngineWorld
  let replayed: Store
  let simulated: Contest[]
  let fromTape: Contest[]

  before(async () => {
    // the simulator's own history: the engine's backfill of the week, as `serve` makes it
    world = await createEngineWorld({
      seed: SEED,
      start: FROM + DAYS * DAY_MS + 10 * 60_000,
      backfillDays: DAYS,
    })
    await world.engine({ model: createReadingModel(MODEL) }).tick()
    simulated = await allContests(world.store)

    const tape = path.join(dir, 'week.ndjson.gz')
    const opts = {
      world: sharedSimWorld(SEED),
      series: SERIES,
      from: FROM,
      days: DAYS,
      origin: `sim seed ${SEED}`,
    }
    const writer = await createTapeWriter(tape, { header: simTapeHeader(opts) })
    await writeSimTape(opts, writer)
    await writer.close()

    replayed = createSqliteStore(path.join(dir, 'replayed.db'))
    await replayed.migrate()
    const summary = await runReplay({
      tapePath: tape,
      store: replayed,
      logger: createRecordingLogger(),
      spotMaxAgeMs: 10_000,
      model: createReadingModel(MODEL),
      readingMaxLateMs: 10_000,
      wallClock: systemClock,
    })
    assert.equal(summary.stopped, null)
    fromTape = await allContests(replayed)
  })
  after(async () => {
    await replayed?.close()
    await world?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('has the same contests: tickers, windows, strikes, results and settlement prices', () => {
    assert.equal(simulated.length, DAYS * 96)
    assert.equal(fromTape.length, simulated.length)
    const strip = ({ signals: _, ...contest }: Contest) => contest
    assert.deepEqual(fromTape.map(strip), simulated.map(strip))
    assert.ok(simulated.some((c) => c.voided) && simulated.some((c) => c.settledSide === 'up'))
  })

  it('has the same signals: minutes, sides, confidences, entry prices, edges, outcomes and versions; raised_at within a second', (t) => {
    const sandbox = sharedSimWorld(SEED)
    const sources = sandbox.sources.names.map((_, i) => i)
    const off = (i: number, second: number) => sandbox.sources.condition(i, second) === 'off'
    // The one thing a tape cannot carry (decisions §12): a sandbox exchange that goes off drops out
    // of the sandbox's median at once, while on a tape — as live — it is silence, its last price
    // fresh for SPOT_MAX_AGE_S more, and its last mid closes the minute. Readings whose spot instant
    // or hour of closes meets such a moment are identified from the sandbox's own record of its
    // exchanges and left out; every other reading must be identical.
    const touchedByOff = (at: number): boolean =>
      sources.some((i) => {
        const second = at / 1000
        for (let s = second - 10; s <= second; s++) if (off(i, s)) return true
        for (let m = 1; m <= 61; m++) if (off(i, second - 60 * (m - 1) - 1)) return true
        return false
      })
    const key = (ticker: string, minute: number) => `${ticker}#${minute}`
    const replayedSignals = new Map(
      fromTape.flatMap((c) => c.signals.map((s) => [key(s.ticker, s.minute), s] as const)),
    )
    let compared = 0
    let touched = 0
    let readings = 0
    for (const sim of simulated) {
      const minutes = new Set([
        ...sim.signals.map((s) => s.minute),
        ...(fromTape.find((c) => c.ticker === sim.ticker)?.signals.map((s) => s.minute) ?? []),
      ])
      for (const minute of minutes) {
        readings++
        if (touchedByOff(sim.opensAt + minute * 60_000)) {
          touched++
          continue
        }
        const a = sim.signals.find((s) => s.minute === minute)
        const b = replayedSignals.get(key(sim.ticker, minute))
        assert.ok(a && b, `${sim.ticker} minute ${minute}: raised on one side only`)
        const { raisedAt: ra, ...restA } = a
        const { raisedAt: rb, ...restB } = b
        assert.deepEqual(restB, restA, `${sim.ticker} minute ${minute}`)
        assert.ok(Math.abs(rb - ra) < 1000, `${sim.ticker} minute ${minute}: raised ${rb - ra} ms apart`)
        compared++
      }
    }
    t.diagnostic(
      `${compared} signals identical; ${touched} of ${readings} readings met an exchange going off`,
    )
    assert.ok(compared > DAYS * 96 * 10, `${compared} signals compared`)
    assert.ok(touched < readings * 0.2, `${touched} of ${readings} readings left out`)
  })
})
