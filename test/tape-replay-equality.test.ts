// The proof that replay is faithful (decisions §12): the simulator writes a seeded week as a tape in
// Kalshi's shapes, the replay runs the engine on it through the real Kalshi parsing and the live
// spot median, and the result is the simulator's own history — contest by contest, signal by signal.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Contest } from '../src/domain/contest.ts'
import { createCrowdLag } from '../src/domain/crowd-lag.ts'
import { crowdLagSetting, decodeCrowdLag } from '../src/domain/crowd-lag-record.ts'
import { MODEL_VERSION as V1_VERSION } from '../src/domain/model.ts'
import { sharedSimWorld } from '../src/feeds/sim/sim-world.ts'
import { simTapeHeader, writeSimTape } from '../src/feeds/sim-tape/sim-tape.ts'
import { runReplay } from '../src/main/replay.ts'
import { simTapeWarmupMs } from '../src/main/sim-tape-warmup.ts'
import { createReadingModel, DEFAULT_MODEL } from '../src/model/models.ts'
import type { Store } from '../src/ports/store.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { createTapeWriter } from '../src/tape/tape-writer.ts'
import { createEngineWorld, ENGINE_WORLD_PARAMS, type EngineWorld } from './support/engine-world.ts'
import { replayOptions } from './support/replay-options.ts'

const SEED = 20_261_120
const DAYS = 7
const FROM = Date.UTC(2026, 10, 16)
const DAY_MS = 86_400_000
const SERIES = ['KXBTC15M']
// The week runs model v1 (an hour of closes, no basis), so its hour-long window of exchanges going
// off (below) leaves most readings to compare. Model v2 (a day of closes, the strikes of the 16
// contests before each one) is compared on a shorter tape below.
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
      world: sharedSimWorld(SEED, ENGINE_WORLD_PARAMS),
      series: SERIES,
      from: FROM,
      days: DAYS,
      warmupMs: simTapeWarmupMs(),
      origin: `sim seed ${SEED}`,
    }
    const writer = await createTapeWriter(tape, { header: simTapeHeader(opts) })
    await writeSimTape(opts, writer)
    await writer.close()

    replayed = createSqliteStore(path.join(dir, 'replayed.db'))
    await replayed.migrate()
    const summary = await runReplay(replayOptions(tape, replayed, { model: createReadingModel(MODEL) }))
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
    const sandbox = sharedSimWorld(SEED, ENGINE_WORLD_PARAMS)
    const sources = sandbox.sources.names.map((_, i) => i)
    const off = (i: number, second: number) => sandbox.sources.condition(i, second) === 'off'
    // The one thing a tape cannot carry (decisions §12): a sandbox exchange that goes off drops out
    // of the sandbox's median at once, while on a tape — as live — it is silence, its last price
    // fresh for SPOT_MAX_AGE_S more. (Its last mid closes the minute on both: the closes are equal.)
    // Readings whose spot instant meets such a moment are identified from the sandbox's own record of
    // its exchanges and left out; every other reading must be identical.
    const touchedByOff = (at: number): boolean =>
      sources.some((i) => {
        const second = at / 1000
        for (let s = second - 10; s <= second; s++) if (off(i, s)) return true
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
    assert.ok(touched < readings * 0.02, `${touched} of ${readings} readings left out`)
  })
})

// Model v2, the default, on a quarter of a day: the tape's warm-up is the models' lookback (a day of
// spot, and the markets of the contests before the first, so their strikes are the basis samples);
// the replayed spot feed keeps that day of closes; and the proxy's mean over a strike's minute comes
// from the same closes on every feed. So v2's readings on the tape are the sandbox's own.
describe(`model v2 on six hours of the simulator, replayed from its own tape (seed ${SEED})`, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cs-tape-eq-v2-'))
  const HOURS = 6
  const model = createReadingModel(DEFAULT_MODEL)
  let world: EngineWorld
  let replayed: Store
  let simulated: Contest[]
  let fromTape: Contest[]

  before(async () => {
    world = await createEngineWorld({
      seed: SEED,
      start: FROM + HOURS * 3_600_000 + 10 * 60_000,
      backfillDays: HOURS / 24,
    })
    await world.engine({ model }).tick()
    simulated = await allContests(world.store)

    const tape = path.join(dir, 'quarter-day.ndjson.gz')
    const opts = {
      world: sharedSimWorld(SEED, ENGINE_WORLD_PARAMS),
      series: SERIES,
      from: FROM,
      days: HOURS / 24,
      warmupMs: simTapeWarmupMs(),
      origin: `sim seed ${SEED}`,
    }
    const writer = await createTapeWriter(tape, { header: simTapeHeader(opts) })
    await writeSimTape(opts, writer)
    await writer.close()

    replayed = createSqliteStore(path.join(dir, 'replayed.db'))
    await replayed.migrate()
    const summary = await runReplay(replayOptions(tape, replayed, { model }))
    assert.equal(summary.stopped, null)
    fromTape = await allContests(replayed)
  })
  after(async () => {
    await replayed?.close()
    await world?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('has the same contests and the same v2 signals, the spot instants an exchange went off aside', (t) => {
    assert.equal(simulated.length, HOURS * 4)
    const strip = ({ signals: _, ...contest }: Contest) => contest
    assert.deepEqual(fromTape.map(strip), simulated.map(strip))
    const sandbox = sharedSimWorld(SEED, ENGINE_WORLD_PARAMS)
    // as above: an exchange going off leaves the sandbox's median at once, the tape's after its
    // SPOT_MAX_AGE_S; only the spot instant is affected (both close a minute on its last mid)
    const offAtSpot = (at: number): boolean =>
      sandbox.sources.names.some((_, i) => {
        for (let s = at / 1000 - 10; s <= at / 1000; s++)
          if (sandbox.sources.condition(i, s) === 'off') return true
        return false
      })
    let compared = 0
    let touched = 0
    const replayedSignals = new Map(
      fromTape.flatMap((c) => c.signals.map((s) => [`${s.ticker}#${s.minute}`, s] as const)),
    )
    for (const sim of simulated) {
      for (const a of sim.signals) {
        if (offAtSpot(sim.opensAt + a.minute * 60_000)) {
          touched++
          continue
        }
        const b = replayedSignals.get(`${a.ticker}#${a.minute}`)
        assert.ok(b, `${a.ticker} minute ${a.minute}: raised by the sandbox only`)
        const { raisedAt: ra, ...restA } = a
        const { raisedAt: rb, ...restB } = b
        assert.deepEqual(restB, restA, `${a.ticker} minute ${a.minute}`)
        assert.ok(Math.abs(rb - ra) < 1000)
        compared++
      }
    }
    // and nothing raised from the tape alone
    const simulatedKeys = new Set(simulated.flatMap((c) => c.signals.map((s) => `${s.ticker}#${s.minute}`)))
    for (const c of fromTape)
      for (const b of c.signals)
        assert.ok(
          simulatedKeys.has(`${b.ticker}#${b.minute}`) || offAtSpot(c.opensAt + b.minute * 60_000),
          `${b.ticker} minute ${b.minute}: raised from the tape only`,
        )
    t.diagnostic(
      `${compared} v2 signals identical; ${touched} met an exchange going off at their spot instant`,
    )
    assert.match(model.version, /^settle-mean-t-2\./)
    assert.ok(compared > HOURS * 4 * 10, `${compared} signals compared`)
  })

  it('measures the crowd’s lag on Kalshi’s books for the index read, the replay as the sandbox’s engine', async () => {
    // the shipped file prices the read's hypotheses at the crowd's lag, so the engine measures it on
    // this series; the sandbox's Kalshi crowd quotes 2 s late
    assert.equal(model.readsCrowdLag?.('kalshi'), true)
    const lagOf = async (store: Store) => {
      const text = await store.getSetting(crowdLagSetting(SERIES[0] as string))
      assert.ok(text !== null, 'a crowd-lag record for the series')
      const readings = decodeCrowdLag(text)
      assert.ok(Array.isArray(readings) && readings.length > 200, 'the hours’ measuring readings')
      return createCrowdLag(readings).secondsAt(FROM + HOURS * 3_600_000)
    }
    // six hours are about 250 measuring readings, read to the whole second: the neighbour of the
    // crowd's 2 s can win on so few
    const lag = await lagOf(replayed)
    assert.ok(lag === 2 || lag === 3, `measured ${lag} s`)
    assert.equal(await lagOf(world.store), lag)
  })
})
