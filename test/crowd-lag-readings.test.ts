// The crowd lag as the engine's reading step measures it (crowd-lag.ts, issue 29): from a sandbox
// tape whose crowd quotes 10 s late, through the same observeReadingInputs the engine and the
// replay use, with nothing but the book, the proxy's prints and the model. The sandbox's own setting
// is what the test knows; the reading step never sees it.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { CROWD_LAG_MAX_S, createCrowdLag } from '../src/domain/crowd-lag.ts'
import { crowdLagSetting, decodeCrowdLag } from '../src/domain/crowd-lag-record.ts'
import { POLYMARKET_SIM_SERIES } from '../src/feeds/sim/polymarket-world.ts'
import { runReplay } from '../src/main/replay.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { tapeFitSource } from '../tools/fit/tape-source.ts'
import { replayOptions } from './support/replay-options.ts'
import { tempDir } from './support/service-process.ts'
import { writePolymarketDayTape } from './support/sim-tape.ts'

const HOUR = 3_600_000

describe('the crowd lag measured by the readings', () => {
  const tmp = tempDir('cs-crowd-lag-')
  const late = path.join(tmp.dir, 'ewma-late.ndjson.gz')
  before(() => writePolymarketDayTape(late, 21, '2026-10-01T00:00:00Z', 'ewma-late'))
  after(() => tmp.remove())

  it('finds the 10 s a late crowd quotes behind, once it has read a few hours of books', async () => {
    const source = await tapeFitSource(late)
    const from = source.from
    const early: number[] = []
    const later: number[] = []
    let spotsChecked = 0
    await source.forEachReading((r) => {
      const { inputs } = r
      const spots = inputs.spotsBeforeBook ?? []
      assert.equal(spots.length, CROWD_LAG_MAX_S + 1, 'the spot at every second of the lags measured')
      assert.ok(spots.every((s) => s === null || (s > 0 && Number.isFinite(s))))
      // the book is fresh in the sandbox: the spot at its instant is the reading's own
      if (inputs.book?.ageMs === 0 && spots[0] !== null) {
        assert.equal(spots[0], inputs.spotDollars)
        spotsChecked++
      }
      const lag = inputs.crowdLagSeconds
      assert.equal(typeof lag, 'number')
      if (inputs.spotObservedAt < from + 3 * HOUR) early.push(lag as number)
      if (inputs.spotObservedAt > from + 8 * HOUR) later.push(lag as number)
    })
    assert.ok(spotsChecked > 500, `${spotsChecked} readings with a fresh book`)
    assert.ok(early.length > 0 && early.every((l) => l === 0), 'too few readings yet to measure a lag')
    assert.ok(later.length > 500)
    const at10 = later.filter((l) => l === 10).length
    assert.ok(at10 > 0.9 * later.length, `10 s in ${at10} of ${later.length} later readings`)
  })

  it('is left in the store by a replay of the tape, so a replay going on from there reads the same lag', async () => {
    const store = createSqliteStore(path.join(tmp.dir, 'replay.db'))
    try {
      await store.migrate()
      const summary = await runReplay(replayOptions(late, store))
      assert.equal(summary.stopped, null)
      const text = await store.getSetting(crowdLagSetting(POLYMARKET_SIM_SERIES))
      assert.ok(text !== null, 'a crowd-lag record for the series replayed')
      const readings = decodeCrowdLag(text)
      assert.ok(Array.isArray(readings) && readings.length > 500, 'the day’s measuring readings')
      const last = readings.at(-1)?.at as number
      assert.equal(createCrowdLag(readings).secondsAt(last + 1), 10)
    } finally {
      await store.close()
    }
  })
})
