// A replay that stops part-way (docs/tapes.md): a signal stops it at a clean point, between engine
// steps, with one line saying where and how to go on; a bad tape line stops it the same way; and the
// same command run again goes on from the instant reached, so that the store ends holding exactly
// what one uninterrupted replay writes — every event once, none missing — whatever the instant. A
// replay killed outright goes on from the last checkpoint it recorded, to the same history.
import assert from 'node:assert/strict'
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { gunzipSync, gzipSync } from 'node:zlib'
import { MODEL_VERSION as V1_VERSION } from '../src/domain/model.ts'
import { sharedSimWorld } from '../src/feeds/sim/sim-world.ts'
import { simTapeHeader, writeSimTape } from '../src/feeds/sim-tape/sim-tape.ts'
import { ReplayRefused, type ReplaySummary, runReplay } from '../src/main/replay.ts'
import { createReadingModel, DEFAULT_MODEL } from '../src/model/models.ts'
import { STORE_WRITES, type Store } from '../src/ports/store.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { createTapeWriter } from '../src/tape/tape-writer.ts'
import { ENGINE_WORLD_PARAMS } from './support/engine-world.ts'
import { replayAgainAfterKill } from './support/replay-after-kill.ts'
import { replayOptions } from './support/replay-options.ts'
import { replayedHistory } from './support/replayed-history.ts'
import { runCli, startProcess, tempDir } from './support/service-process.ts'
import { CLOSES, MINUTE, OPENS, TAPE_BOOK, TICKER, tapeMarket } from './support/tape-kalshi-contest.ts'

const SEED = 7
const FROM = Date.UTC(2026, 10, 20)
const SERIES = 'KXBTC15M'
const HOUR_MS = 3_600_000
// model v1 looks back an hour: a warm-up of 70 minutes keeps the tapes small
const MODEL = V1_VERSION

const tmp = tempDir('cs-tape-stops-')
after(() => tmp.remove())
let made = 0

async function simTape(hours: number, name: string): Promise<string> {
  const dir = path.join(tmp.dir, `tape-${++made}`)
  mkdirSync(dir)
  const file = path.join(dir, name)
  const opts = {
    world: sharedSimWorld(SEED, ENGINE_WORLD_PARAMS),
    series: [SERIES],
    from: FROM,
    days: hours / 24,
    warmupMs: 70 * 60_000,
    origin: `sim seed ${SEED}`,
  }
  const writer = await createTapeWriter(file, { header: simTapeHeader(opts) })
  await writeSimTape(opts, writer)
  await writer.close()
  return file
}

async function newStore(): Promise<{ store: Store; file: string }> {
  const file = path.join(tmp.dir, `store-${++made}.db`)
  const store = createSqliteStore(file)
  await store.migrate()
  return { store, file }
}

/** Everything a replay wrote of the series: the contests, and the event log (each change once). */
const history = (store: Store) => replayedHistory(store, SERIES)

function replay(
  tapePath: string,
  store: Store,
  more: { signal?: AbortSignal; onProgress?: () => void; model?: string; command?: string } = {},
): Promise<ReplaySummary> {
  return runReplay(
    replayOptions(tapePath, store, {
      model: createReadingModel(more.model ?? MODEL),
      ...(more.signal ? { signal: more.signal } : {}),
      ...(more.onProgress ? { onProgress: more.onProgress } : {}),
      ...(more.command ? { command: more.command } : {}),
    }),
  )
}

describe('replay: stopped part-way, the same replay goes on where it stopped', () => {
  let tape: string
  let whole: Awaited<ReturnType<typeof history>>
  let wholeFile: string

  before(async () => {
    tape = await simTape(3, 'three-hours.ndjson.gz')
    const { store, file } = await newStore()
    wholeFile = file
    const summary = await replay(tape, store)
    assert.equal(summary.stopped, null)
    assert.equal(summary.interrupted, null)
    whole = await history(store)
    await store.close()
  })

  it('stopped at many instants and continued each time, the store holds exactly the uninterrupted history', async () => {
    assert.equal(whole.contests.length, 12)
    const { store } = await newStore()
    try {
      // stop after these many engine steps of each run (about 190 make the whole): at the start,
      // at minute boundaries, with a contest live, after one settled
      const stops = [1, 2, 17, 30, 41, 47]
      let liveAtAStop = 0
      let previous: number | null = null
      for (const steps of stops) {
        const stop = new AbortController()
        let n = 0
        const summary = await replay(tape, store, {
          signal: stop.signal,
          onProgress: () => {
            if (++n === steps) stop.abort('test')
          },
        })
        assert.deepEqual(summary.interrupted, { reason: 'test', lookBack: null }, `stop after ${steps}`)
        assert.equal(summary.continuedFrom, previous)
        assert.ok(previous === null || summary.reached > previous, 'each run went on past the last stop')
        previous = summary.reached
        liveAtAStop += (await store.listUnsettled()).filter((c) => c.state === 'live').length
      }
      assert.ok(liveAtAStop > 0, 'some stop left a contest live')
      const last = await replay(tape, store)
      assert.equal(last.interrupted, null)
      assert.equal(last.continuedFrom, previous)
      const continued = await history(store)
      assert.deepEqual(continued.contests, whole.contests)
      assert.deepEqual(continued.events, whole.events, 'every event once, in the same order')
      // and once whole, it is a finished replay: refused, as any store holding the series
      await assert.rejects(replay(tape, store), /the store already holds contests of KXBTC15M: replay into/)
    } finally {
      await store.close()
    }
  })

  it("evaluate --sim-seed scores the replayed tape's own sandbox, and refuses another seed's", async () => {
    const env = { DATABASE_URL: `sqlite:${wholeFile}` }
    const other = await runCli(['evaluate', '--series', SERIES, '--sim-seed', String(SEED + 1)], env)
    assert.equal(other.code, 1, other.stderr)
    assert.equal(
      other.stderr.split('\n').at(-2),
      `contest-signals evaluate: --sim-seed ${SEED + 1}: the store's ${SERIES} contests come from sim seed ${SEED} (replayed from a tape whose origin is "sim seed ${SEED}"): score them with --sim-seed ${SEED}`,
    )
    assert.equal(other.stdout, '')
    const own = await runCli(['evaluate', '--series', SERIES, '--sim-seed', String(SEED), '--json'], env)
    assert.equal(own.code, 0, own.stderr)
    assert.ok(JSON.parse(own.stdout).overall.oracle, 'the sandbox truth is scored')
  })

  it('a stop in the look-back writes nothing, and the same replay then runs from its start', async () => {
    const { store } = await newStore()
    try {
      const stop = new AbortController()
      stop.abort('test')
      const summary = await replay(tape, store, { signal: stop.signal })
      assert.deepEqual(summary.interrupted, { reason: 'test', lookBack: { start: FROM } })
      assert.equal(await store.countContests(SERIES), 0)
      assert.equal(await store.getSetting(`replay:${SERIES}`), null, 'nothing written at all')
      assert.equal((await replay(tape, store)).continuedFrom, null)
      assert.deepEqual(await history(store), whole)
    } finally {
      await store.close()
    }
  })

  it('a store given to be made (a new SQLite file) is made only once the replay writes, and once', async () => {
    let makes = 0
    let made: Store | null = null
    const maker = async (): Promise<Store> => {
      makes++
      made = (await newStore()).store
      return made
    }
    const stop = new AbortController()
    stop.abort('test')
    const stopped = await runReplay(replayOptions(tape, maker, { signal: stop.signal }))
    assert.deepEqual(stopped.interrupted, { reason: 'test', lookBack: { start: FROM } })
    assert.equal(makes, 0, 'a stop in the look-back makes no store')
    const whole_ = await runReplay(replayOptions(tape, maker, { model: createReadingModel(MODEL) }))
    assert.equal(makes, 1)
    try {
      assert.equal(whole_.stopped, null)
      assert.deepEqual(await history(made!), whole)
    } finally {
      await (made as Store | null)?.close()
    }
  })

  it('a bad line stops it between steps; the mended tape goes on from there', async () => {
    const dir = path.join(tmp.dir, `mended-${++made}`)
    mkdirSync(dir)
    const file = path.join(dir, path.basename(tape))
    // a line that is not JSON two hours into the tape
    const lines = gunzipSync(readFileSync(tape)).toString('utf8').split('\n')
    const at = lines.findIndex((l, i) => i > 0 && (JSON.parse(l) as { t: number }).t >= FROM + 2 * HOUR_MS)
    lines.splice(at, 0, 'not json at all')
    writeFileSync(file, gzipSync(lines.join('\n')))
    const { store } = await newStore()
    try {
      const stopped = await replay(file, store)
      assert.equal(stopped.stopped?.line, at + 1)
      assert.equal(stopped.stopped?.lookBack, null)
      assert.ok(stopped.reached < FROM + 2 * HOUR_MS && stopped.reached >= FROM + 2 * HOUR_MS - 60_000)
      // run again unmended, it goes on and stops at the same line, having written nothing twice
      const again = await replay(file, store)
      assert.equal(again.stopped?.line, at + 1)
      assert.equal(again.continuedFrom, stopped.reached)
      assert.equal(again.opened + again.signals + again.settled, 0)
      copyFileSync(tape, file)
      const mended = await replay(file, store)
      assert.equal(mended.stopped, null)
      assert.equal(mended.continuedFrom, stopped.reached)
      assert.deepEqual(await history(store), whole)
    } finally {
      await store.close()
    }
  })

  it('refuses to go on with another model, naming the command that goes on', async () => {
    const { store } = await newStore()
    try {
      const stop = new AbortController()
      let n = 0
      const summary = await replay(tape, store, {
        signal: stop.signal,
        command: 'contest-signals replay --tape X --model gbm-ewma-1',
        onProgress: () => {
          if (++n === 30) stop.abort('test')
        },
      })
      assert.notEqual(summary.interrupted, null)
      await assert.rejects(replay(tape, store, { model: DEFAULT_MODEL }), (err: unknown) => {
        assert.ok(err instanceof ReplayRefused)
        assert.equal(
          err.message,
          `the store holds a replay of KXBTC15M stopped at ${new Date(summary.reached).toISOString()} from another tape or with other options: go on with contest-signals replay --tape X --model gbm-ewma-1, or replay into a store without that series (a new DATABASE_URL)`,
        )
        return true
      })
    } finally {
      await store.close()
    }
  })
})

/**
 * One hand-built contest whose books come late: each minute's book at its boundary, or in the 5 s a
 * request looks ahead, or later (the minute is retried a tick later, as live: raised when it came, or
 * skipped late past READING_MAX_LATE_S). The replay starts at `from`; spot from 70 minutes before the open.
 */
function lateBooksTape(from: number): string {
  const SOURCES = ['coinbase', 'kraken', 'bitstamp']
  const records: object[] = [{ t: OPENS - 70 * MINUTE, k: 'exchange', status: { trading_active: true } }]
  for (let t = OPENS - 70 * MINUTE; t <= CLOSES + MINUTE; t += 5000)
    for (const src of SOURCES) records.push({ t, k: 'spot', src, px: 99_000 + ((t / 5000) % 7) })
  records.push({ t: OPENS - 15 * MINUTE, k: 'market', m: tapeMarket('initialized') })
  records.push({ t: OPENS, k: 'market', m: tapeMarket('active') })
  records.push({ t: CLOSES, k: 'market', m: tapeMarket('closed') })
  records.push({ t: CLOSES + 40_000, k: 'market', m: tapeMarket('finalized', { result: 'no' }) })
  const offsets: Record<number, number> = { 3: 6_000, 7: 12_000, 10: 2_600 }
  for (let minute = 1; minute < 15; minute++)
    records.push({
      t: OPENS + minute * MINUTE + (offsets[minute] ?? 0),
      k: 'book',
      ticker: TICKER,
      ob: TAPE_BOOK,
    })
  records.sort((a, b) => (a as { t: number }).t - (b as { t: number }).t)
  const header = {
    tape: 1,
    venue: 'kalshi',
    series: [SERIES],
    sources: SOURCES,
    from: new Date(from).toISOString(),
    to: new Date(CLOSES + 2 * MINUTE).toISOString(),
    origin: 'hand-built test tape',
  }
  const tape = path.join(tmp.dir, `late-books-${++made}.ndjson`)
  writeFileSync(tape, `${[header, ...records].map((r) => JSON.stringify(r)).join('\n')}\n`)
  return tape
}

describe('replay: stopped after each engine step in turn of a contest whose books come late', () => {
  let tape: string
  let whole: Awaited<ReturnType<typeof history>>
  let steps = 0

  before(async () => {
    tape = lateBooksTape(OPENS)
    const { store } = await newStore()
    const summary = await replay(tape, store, {
      onProgress: () => {
        steps++
      },
    })
    assert.equal(summary.settled, 1)
    assert.ok((summary.skipped.late ?? 0) > 0, 'some minutes are skipped late')
    whole = await history(store)
    await store.close()
  })

  it('goes on to the uninterrupted history from every one of them', async () => {
    assert.ok(steps > 20, `${steps} steps`)
    for (let k = 1; k <= steps; k++) {
      const { store } = await newStore()
      try {
        const stop = new AbortController()
        let n = 0
        const first = await replay(tape, store, {
          signal: stop.signal,
          onProgress: () => {
            if (++n === k) stop.abort('test')
          },
        })
        // a stop asked for at the last step finds the replay at its end: finished
        if (first.interrupted !== null) assert.equal((await replay(tape, store)).continuedFrom, first.reached)
        assert.deepEqual(
          await history(store),
          whole,
          `stopped after step ${k} at ${new Date(first.reached).toISOString()}`,
        )
      } finally {
        await store.close()
      }
    }
  })
})

/**
 * The store as a process killed right after its `writes`-th write leaves it: every call after that
 * one fails and does nothing (the process is gone), so not even a last word about where it stood.
 */
function dyingAfter(store: Store, writes: number): { store: Store; written: () => number } {
  let n = 0
  const dying = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown
      if (typeof value !== 'function' || prop === 'close') return value
      return async (...args: unknown[]) => {
        if (n >= writes) throw new Error('killed')
        if (STORE_WRITES.has(prop as keyof Store)) n++
        return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args)
      }
    },
  })
  return { store: dying, written: () => n }
}

describe('replay: killed after each write in turn, the same replay goes on to the uninterrupted history', () => {
  it('on a contest whose books come late, from every write of the run', async () => {
    // an hour before the contest replayed too, so a checkpoint falls inside the run
    const from = OPENS - 40 * MINUTE
    const tape = lateBooksTape(from)
    const reference = await newStore()
    const counted = dyingAfter(reference.store, Number.POSITIVE_INFINITY)
    await replay(tape, counted.store)
    const whole = await history(reference.store)
    await reference.store.close()
    const writes = counted.written()
    assert.ok(writes > 20, `${writes} writes`)
    let afterKill = 0
    let pastTheStart = 0
    for (let k = 1; k <= writes; k++) {
      const { store } = await newStore()
      try {
        await replay(tape, dyingAfter(store, k).store).catch((err: unknown) => {
          assert.match(String(err), /killed/)
        })
        // killed after its last word (done) the replay is finished, and a rerun is refused as for any
        const standing = JSON.parse((await store.getSetting(`replay:${SERIES}`)) ?? '{}') as {
          state?: string
        }
        if (standing.state !== 'done') {
          const again = await replay(tape, store)
          assert.equal(again.stopped, null)
          if (again.continuedAfterKill) afterKill++
          if ((again.continuedFrom ?? 0) > from) pastTheStart++
        }
        assert.deepEqual(await history(store), whole, `killed after write ${k} of ${writes}`)
      } finally {
        await store.close()
      }
    }
    // the kills before the first contest was written start afresh; every later one goes on
    assert.ok(afterKill > writes / 2, `${afterKill} of ${writes} went on after the kill`)
    assert.ok(pastTheStart > 0, 'some went on from a checkpoint after the start, not from the start')
  })
})

describe('contest-signals replay (the CLI) stopped by a signal', () => {
  let tape: string
  let reference: Awaited<ReturnType<typeof history>>
  const env = (db: string) => ({ DATABASE_URL: `sqlite:${db}`, LOG_LEVEL: 'debug' })
  const args = (file: string) => ['replay', '--tape', file, '--model', MODEL]

  before(async () => {
    tape = await simTape(10, 'ten-hours.ndjson.gz')
    const db = path.join(tmp.dir, `reference-${++made}.db`)
    const r = await runCli(args(tape), { DATABASE_URL: `sqlite:${db}` })
    assert.equal(r.code, 0, r.stderr)
    const store = createSqliteStore(db)
    reference = await history(store)
    await store.close()
  })

  /** Runs the replay and sends `signal` once the engine has opened its second contest. */
  async function stopped(signal: NodeJS.Signals) {
    const db = path.join(tmp.dir, `stopped-${++made}.db`)
    const p = startProcess(args(tape), env(db))
    // once: a second SIGINT or SIGTERM ends the process at once, as the default does
    let sent = false
    p.child.stderr?.on('data', () => {
      if (sent || (p.stderr().match(/"msg":"contest opened"/g) ?? []).length < 2) return
      sent = true
      p.child.kill(signal)
    })
    const { code } = await p.exited
    const said = p
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('contest-signals replay:'))
    return { code, said, stdout: p.stdout(), stderr: p.stderr(), db }
  }

  it('SIGINT stops it at a clean point with one line saying where and how to go on; that command goes on', async () => {
    const run = await stopped('SIGINT')
    assert.equal(run.code, 130, run.stderr)
    assert.equal(run.said.length, 1, run.stderr)
    const match =
      /^contest-signals replay: stopped by SIGINT at (\S+), the tape instant reached: every engine step up to it is in the store \(a contest open then stays live until the replay goes on\); on the same DATABASE_URL, go on with: (contest-signals replay .*)$/.exec(
        run.said[0] as string,
      )
    assert.ok(match, run.said[0])
    const [, instant, command] = match as unknown as [string, string, string]
    assert.equal(command, `contest-signals replay --tape ${tape} --model ${MODEL}`)
    assert.match(run.stdout, /^replay KXBTC15M: \d+ contests opened, \d+ settled/)
    const store = createSqliteStore(run.db)
    const unsettled = await store.listUnsettled()
    const settled = await store.countContests(SERIES)
    await store.close()
    assert.ok(settled >= 2 && settled < reference.contests.length, `${settled} contests at the stop`)
    assert.ok(unsettled.length <= 1, 'at most the contest open at the stop is unsettled')
    // the command the line names, run as it says
    const goOn = await runCli(command.split(' ').slice(1), env(run.db))
    assert.equal(goOn.code, 0, goOn.stderr)
    assert.match(goOn.stdout, new RegExp(`^replay KXBTC15M \\(continued from ${instant}\\): `))
    const after = createSqliteStore(run.db)
    try {
      assert.deepEqual(await history(after), reference)
    } finally {
      await after.close()
    }
  })

  it('SIGTERM stops it the same way, exit 143', async () => {
    const run = await stopped('SIGTERM')
    assert.equal(run.code, 143, run.stderr)
    assert.equal(run.said.length, 1, run.stderr)
    assert.match(
      run.said[0] as string,
      /^contest-signals replay: stopped by SIGTERM at \S+, the tape instant reached/,
    )
  })

  it('a replay killed (SIGKILL) goes on from its last checkpoint when run again, to the uninterrupted history', async () => {
    const run = await stopped('SIGKILL')
    assert.equal(run.code, null)
    const goOn = await replayAgainAfterKill(args(tape), env(run.db))
    assert.equal(goOn.code, 0, goOn.stderr)
    assert.match(
      goOn.stdout,
      /^replay KXBTC15M \(continued from \S+, the last instant the killed run recorded\): /,
    )
    const after = createSqliteStore(run.db)
    try {
      assert.deepEqual(await history(after), reference)
    } finally {
      await after.close()
    }
  })
})
