// The crowd lag kept across engines (crowd-lag-record.ts, src/engine/crowd-lag-keeping.ts): a
// restarted or newly elected engine reads the lag its predecessor measured, on SQLite and on
// PostgreSQL, and a record that does not read is said and measured afresh, never a crash.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { MINUTE_MS } from '../src/domain/contest.ts'
import {
  CROWD_LAG_MAX_S,
  CROWD_LAG_MIN_READINGS,
  type CrowdLag,
  createCrowdLag,
} from '../src/domain/crowd-lag.ts'
import { crowdLagSetting, decodeCrowdLag, encodeCrowdLag } from '../src/domain/crowd-lag-record.ts'
import { formatTicker, QUARTER_MS } from '../src/domain/ticker.ts'
import { CROWD_LAG_SAVE_EVERY, createCrowdLagKeeper } from '../src/engine/crowd-lag-keeping.ts'
import type { Engine } from '../src/engine/engine.ts'
import { V2_PARAMS } from '../src/model/models.ts'
import { createSettlementMeanModel } from '../src/model/settlement-mean-model.ts'
import type { Store } from '../src/ports/store.ts'
import { createPostgresStore } from '../src/store/postgres/postgres-store.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { createEngineWorld, createRecordingLogger, type EngineWorld } from './support/engine-world.ts'
import { dropSchema, uniqueSchemaUrl } from './support/postgres.ts'
import { seededUniforms } from './support/seeded-uniforms.ts'

const SERIES = 'KXBTC15M'
const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z))

/** `count` readings from `from` a minute apart of a crowd quoting the model `lag` seconds late, with noise. */
function feed(crowd: CrowdLag, lag: number, count: number, from: number, seed: number): void {
  const random = seededUniforms(seed)
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  for (let i = 0; i < count; i++) {
    const path = [normal()]
    for (let s = 1; s <= CROWD_LAG_MAX_S; s++) path.push((path[s - 1] as number) + 0.15 * normal())
    crowd.observe(from + i * MINUTE_MS, sigmoid((path[lag] as number) + 0.1 * normal()), () =>
      path.map(sigmoid),
    )
  }
}

describe('the crowd lag record', () => {
  it('gives back the readings it was made from, so a lag restored is the lag measured', () => {
    const crowd = createCrowdLag()
    feed(crowd, 6, CROWD_LAG_MIN_READINGS + 50, 0, 3)
    const now = (CROWD_LAG_MIN_READINGS + 50) * MINUTE_MS
    assert.equal(crowd.secondsAt(now), 6)
    const decoded = decodeCrowdLag(encodeCrowdLag(crowd.readings()))
    assert.ok(Array.isArray(decoded))
    assert.deepEqual(decoded, crowd.readings())
    const restored = createCrowdLag(decoded)
    assert.equal(restored.secondsAt(now), 6)
    assert.equal(restored.measured(), 0, 'restored readings are not its own measures')
    // and it goes on measuring from there, its window expiring the restored readings one by one
    feed(restored, 6, 10, now, 4)
    assert.equal(restored.readings().length, crowd.readings().length + 10)
    assert.equal(restored.measured(), 10)
  })

  it('refuses a record it cannot read, saying what is wrong with it', () => {
    const row = (at: number, d = 1) => [at, ...Array.from({ length: CROWD_LAG_MAX_S + 1 }, () => d)]
    const record = (fields: object) =>
      JSON.stringify({ v: 1, maxLagS: CROWD_LAG_MAX_S, readings: [], ...fields })
    const refused: [string, RegExp][] = [
      ['{not json', /not JSON/],
      ['null', /not an object/],
      [record({ v: 2 }), /version 2/],
      [record({ maxLagS: 20 }), /lags measured to 20 s/],
      [record({ readings: 'many' }), /no readings/],
      [record({ readings: [[1, 2, 3]] }), /reading 0 is not \[at/],
      [record({ readings: [row(60_000), row(0)] }), /reading 1's instant/],
      [record({ readings: [row(1.5)] }), /reading 0's instant/],
      [record({ readings: [[...row(0).slice(0, -1), null]] }), /not a finite number/],
      [record({ readings: [row(0, -1)] }), /negative distance/],
    ]
    for (const [text, problem] of refused) {
      const out = decodeCrowdLag(text)
      assert.equal(typeof out, 'string', text)
      assert.match(out as string, problem)
    }
    assert.deepEqual(decodeCrowdLag(record({ readings: [row(0), row(0), row(60_000)] })), [
      { at: 0, distances: row(0).slice(1) },
      { at: 0, distances: row(0).slice(1) },
      { at: 60_000, distances: row(0).slice(1) },
    ])
  })
})

async function withStores(fn: (store: Store) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cs-crowd-lag-keeping-'))
  const sqlite = createSqliteStore(join(dir, 'store.db'))
  const url = uniqueSchemaUrl('crowd_lag')
  const postgres = createPostgresStore(url)
  try {
    for (const store of [sqlite, postgres]) {
      await store.migrate()
      await fn(store)
    }
  } finally {
    await sqlite.close()
    await postgres.close()
    await dropSchema(url)
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A keeper over `store` whose engine measures one series, with nothing measured yet. */
function keeperWithOneSeries(store: Store) {
  const logger = createRecordingLogger()
  const lags = new Map<string, CrowdLag>()
  const keeper = createCrowdLagKeeper({ store, lags, logger })
  const crowd = createCrowdLag()
  lags.set(SERIES, crowd)
  return { logger, lags, keeper, crowd }
}

const readingsStoredIn = async (store: Store) =>
  decodeCrowdLag((await store.getSetting(crowdLagSetting(SERIES))) ?? '').length

describe('createCrowdLagKeeper', () => {
  it('stores a series every few measuring readings and at a stop; the next engine takes the lag up', async () => {
    await withStores(async (store) => {
      const { logger, keeper, crowd } = keeperWithOneSeries(store)
      feed(crowd, 9, CROWD_LAG_SAVE_EVERY - 1, 0, 5)
      await keeper.save(false)
      assert.equal(await store.getSetting(crowdLagSetting(SERIES)), null, 'not yet a store’s worth')
      feed(crowd, 9, 1, (CROWD_LAG_SAVE_EVERY - 1) * MINUTE_MS, 6)
      await keeper.save(false)
      assert.equal(await readingsStoredIn(store), CROWD_LAG_SAVE_EVERY)
      const count = CROWD_LAG_MIN_READINGS + 40
      feed(crowd, 9, count - CROWD_LAG_SAVE_EVERY, CROWD_LAG_SAVE_EVERY * MINUTE_MS, 7)
      await keeper.save(true)
      const now = count * MINUTE_MS
      assert.equal(crowd.secondsAt(now), 9)

      const next = new Map<string, CrowdLag>()
      await createCrowdLagKeeper({ store, lags: next, logger }).restore([SERIES, 'KXETH15M'], now)
      assert.deepEqual([...next.keys()], [SERIES], 'a series never measured has nothing to restore')
      assert.equal(next.get(SERIES)?.secondsAt(now), 9)
      assert.deepEqual(next.get(SERIES)?.readings(), crowd.readings())
      // an engine whose clock stands before some of them takes up only those it could have seen
      const earlier = new Map<string, CrowdLag>()
      await createCrowdLagKeeper({ store, lags: earlier, logger }).restore([SERIES], 99 * MINUTE_MS)
      assert.equal(earlier.get(SERIES)?.readings().length, 100)
      assert.deepEqual(logger.warnings, [])
    })
  })

  it('keeps what an engine measured since its own record when it takes the lease up again', async () => {
    await withStores(async (store) => {
      const { lags, keeper, crowd } = keeperWithOneSeries(store)
      feed(crowd, 4, 20, 0, 8)
      await keeper.save(false)
      feed(crowd, 4, 5, 20 * MINUTE_MS, 9)
      await keeper.restore([SERIES], 25 * MINUTE_MS)
      assert.deepEqual(lags.get(SERIES)?.readings(), crowd.readings(), 'the record’s 20 and the 5 since')
      await keeper.save(true)
      assert.equal(await readingsStoredIn(store), 25)
    })
  })

  it('measures afresh, with a warning, where the stored record does not read', async () => {
    await withStores(async (store) => {
      await store.putSetting(crowdLagSetting(SERIES), '{"v":1,"maxLagS":15,"readings":[[0,1]]}')
      const logger = createRecordingLogger()
      const lags = new Map<string, CrowdLag>()
      await createCrowdLagKeeper({ store, lags, logger }).restore([SERIES], MINUTE_MS)
      assert.equal(lags.size, 0)
      assert.equal(logger.warnings.length, 1)
      assert.match(JSON.stringify(logger.warnings[0]), /stored crowd lag unreadable.*|reading 0 is not/)
    })
  })
})

describe('the engine keeps its crowd lag across a restart', () => {
  // a model that reads the lag on Kalshi's books, so the engine world's series measures one
  const lagReading = createSettlementMeanModel({ ...V2_PARAMS, book: { ...V2_PARAMS.book, lagShift: true } })
  const Q = Date.parse('2026-11-22T19:00:00Z')

  async function readingsStored(store: Store) {
    const text = await store.getSetting(crowdLagSetting(SERIES))
    assert.ok(text !== null)
    const readings = decodeCrowdLag(text)
    assert.ok(Array.isArray(readings))
    return readings
  }

  it('takes up what the engine before it measured and goes on from there', async () => {
    const w = await createEngineWorld({ seed: 1, start: Q + MINUTE_MS })
    try {
      const first = w.engine({ model: lagReading })
      for (let t = Q + MINUTE_MS; t <= Q + 60 * MINUTE_MS; t += MINUTE_MS) {
        w.time.set(t)
        await first.tick()
      }
      const whileRunning = (await readingsStored(w.store)).length
      assert.ok(whileRunning >= CROWD_LAG_SAVE_EVERY, `${whileRunning} readings stored while it ran`)
      await first.stop()
      const atStop = await readingsStored(w.store)
      assert.ok(atStop.length > whileRunning, `${atStop.length} readings stored at its stop`)

      const second = w.engine({ model: lagReading })
      for (let t = Q + 61 * MINUTE_MS; t <= Q + 105 * MINUTE_MS; t += MINUTE_MS) {
        w.time.set(t)
        await second.tick()
      }
      await second.stop()
      const after = await readingsStored(w.store)
      assert.deepEqual(after.slice(0, atStop.length), atStop, 'the first engine’s readings, kept')
      assert.ok(
        after.length >= atStop.length + CROWD_LAG_SAVE_EVERY,
        `${after.length - atStop.length} more from the second`,
      )
      assert.ok(after.every((r) => r.at <= Q + 105 * MINUTE_MS))
      assert.deepEqual(w.logger.errors, [])
      assert.deepEqual(w.logger.warnings, [])
    } finally {
      await w.close()
    }
  })

  it('raises after a stop and a start the very signals one engine that never stopped raises', async () => {
    const start = Q + MINUTE_MS
    // past the 200 measuring readings a lag needs, then an hour on each side of the restart
    const restartAt = Q + 5 * 60 * MINUTE_MS
    const end = restartAt + 60 * MINUTE_MS
    const tickThrough = async (w: EngineWorld, engine: Engine, from: number, to: number) => {
      for (let t = from; t <= to; t += MINUTE_MS) {
        w.time.set(t)
        await engine.tick()
      }
    }
    /** every signal's minute and published numbers, by contest, the contests opening in [start, end] */
    const signalsOf = async (w: EngineWorld) => {
      const out: string[] = []
      for (let opens = Q; opens <= end; opens += QUARTER_MS) {
        const contest = await w.store.getContest(formatTicker(SERIES, opens + QUARTER_MS))
        for (const sig of contest?.signals ?? [])
          out.push(`${sig.ticker} ${sig.minute} ${sig.side} ${sig.confidence} ${sig.inputs?.probabilityUp}`)
      }
      return out
    }
    const once = await createEngineWorld({ seed: 1, start })
    const twice = await createEngineWorld({ seed: 1, start })
    try {
      const engine = once.engine({ model: lagReading })
      await tickThrough(once, engine, start, end)
      await engine.stop()
      const measured = decodeCrowdLag((await once.store.getSetting(crowdLagSetting(SERIES))) ?? '')
      assert.ok(Array.isArray(measured))
      // the test means something only where a lag was measured: a restart that forgot it reads 0
      assert.ok(createCrowdLag(measured).secondsAt(restartAt) > 0, 'a lag measured before the restart')

      const first = twice.engine({ model: lagReading })
      await tickThrough(twice, first, start, restartAt)
      await first.stop()
      const second = twice.engine({ model: lagReading })
      await tickThrough(twice, second, restartAt + MINUTE_MS, end)
      await second.stop()

      const expected = await signalsOf(once)
      assert.ok(expected.length > 300, `${expected.length} signals`)
      assert.deepEqual(await signalsOf(twice), expected)
    } finally {
      await once.close()
      await twice.close()
    }
  })
})
