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
import { replayAgainAfterKill } from './support/replay-after-kill.ts'
import { replayOptions } from './support/replay-options.ts'
import { type ReplayedHistory, replayedHistory } from './support/replayed-history.ts'
import { startProcess, tempDir } from './support/service-process.ts'
import { writePolymarketDayTape } from './support/sim-tape.ts'

const HOUR = 3_600_000

describe('the crowd lag measured by the readings', () => {
  const tmp = tempDir('cs-crowd-lag-')
  const late = path.join(tmp.dir, 'ewma-late.ndjson.gz')
  before(() => writePolymarketDayTape(late, 21, '2026-10-01T00:00:00Z', 'ewma-late'))
  after(() => tmp.remove())

  // the day replayed once, uninterrupted, in process: what every way of replaying it must leave
  let uninterrupted: Promise<{ file: string; history: ReplayedHistory }> | undefined
  const replayedOnce = () => {
    uninterrupted ??= (async () => {
      const file = path.join(tmp.dir, 'replay.db')
      const store = createSqliteStore(file)
      try {
        await store.migrate()
        const summary = await runReplay(replayOptions(late, store))
        assert.equal(summary.stopped, null)
        return { file, history: await replayedHistory(store, POLYMARKET_SIM_SERIES) }
      } finally {
        await store.close()
      }
    })()
    return uninterrupted
  }

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
    const store = createSqliteStore((await replayedOnce()).file)
    try {
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

  it('goes on with the lag it had measured after the CLI replay is killed (SIGKILL) past its checkpoints', async () => {
    const { history } = await replayedOnce()
    const db = path.join(tmp.dir, 'killed.db')
    const env = { DATABASE_URL: `sqlite:${db}`, LOG_LEVEL: 'debug' }
    const args = ['replay', '--tape', late]
    const run = startProcess(args, env)
    // six hours in: the 10 s lag has been measured, and checkpoints have stored it
    let sent = false
    run.child.stderr?.on('data', () => {
      if (sent || (run.stderr().match(/"msg":"contest opened"/g) ?? []).length < 24) return
      sent = true
      run.child.kill('SIGKILL')
    })
    assert.equal((await run.exited).signal, 'SIGKILL', run.stderr())
    const killedAt = createSqliteStore(db)
    try {
      const text = await killedAt.getSetting(crowdLagSetting(POLYMARKET_SIM_SERIES))
      const readings = text === null ? [] : decodeCrowdLag(text)
      assert.ok(Array.isArray(readings) && readings.length > 0, 'the killed run stored the lag it measured')
      assert.equal(createCrowdLag(readings).secondsAt((readings.at(-1)?.at ?? 0) + 1), 10)
    } finally {
      await killedAt.close()
    }
    const goOn = await replayAgainAfterKill(args, env)
    assert.equal(goOn.code, 0, goOn.stderr)
    assert.match(goOn.stdout, /\(continued from \S+, the last instant the killed run recorded\): /)
    const after = createSqliteStore(db)
    try {
      assert.deepEqual(await replayedHistory(after, POLYMARKET_SIM_SERIES), history)
    } finally {
      await after.close()
    }
  })
})
