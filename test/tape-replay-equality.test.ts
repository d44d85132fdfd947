// The proof that replay is faithful (decisions §12): the simulator writes a seeded week as a tape in
// Kalshi's shapes, the replay runs the engine on it through the real Kalshi parsing and the live
// spot median, and the result is the simulator's own history — contest by contest, signal by signal.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Contest } from '../src/domain/contest.ts'
import { sharedSimWorld } from '../src/feeds/sim/sim-world.ts'
import { simTapeHeader, writeSimTape } from '../src/feeds/sim-tape/sim-tape.ts'
import { runReplay } from '../src/main/replay.ts'
import { systemClock } from '../src/main/system-clock.ts'
import type { Store } from '../src/ports/store.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { createTapeWriter } from '../src/tape/tape-writer.ts'
import { createEngineWorld, createRecordingLogger, type EngineWorld } from './support/engine-world.ts'

const SEED = 20_261_120
const DAYS = 7
const FROM = Date.UTC(2026, 10, 16)
const DAY_MS = 86_400_000
const SERIES = ['KXBTC15M']

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
    await world.engine().tick()
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

  it('has the same signals: minutes, sides, confidences, entry prices, edges, outcomes and versions; raised_at within a second', () => {
    let compared = 0
    for (const [i, sim] of simulated.entries()) {
      const tape = fromTape[i] as Contest
      assert.equal(tape.signals.length, sim.signals.length, `signal count of ${sim.ticker}`)
      for (const [j, a] of sim.signals.entries()) {
        const b = tape.signals[j]!
        const { raisedAt: ra, ...restA } = a
        const { raisedAt: rb, ...restB } = b
        assert.deepEqual(restB, restA, `${sim.ticker} minute ${a.minute}`)
        assert.ok(Math.abs(rb - ra) < 1000, `${sim.ticker} minute ${a.minute}: raised ${rb - ra} ms apart`)
        compared++
      }
    }
    // every minute 1–14 of every contest reads on the simulator
    assert.equal(compared, DAYS * 96 * 14)
  })
})
