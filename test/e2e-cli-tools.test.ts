// The operator's short commands, run as the real CLI: --version and --help, backtest on a SQLite store
// populated here, keys list --json, backup (WAL included, never overwriting) and a restore from it.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { CONTEST_MS, type Contest } from '../src/domain/contest.ts'
import { resolveSimWorld } from '../src/main/sim-timeline.ts'
import type { Store } from '../src/ports/store.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { DOWN, makeContest, makeKey, makeSettledContest, makeSignal, UP } from './support/contest-fixtures.ts'
import { REPO_ROOT, runCli, startProcess, tempDir } from './support/service-process.ts'
import { waitUntil } from './support/wait.ts'

const SERIES = 'KXBT15M'
const NEWEST = Date.UTC(2026, 10, 22, 12, 30)

/**
 * The unit test's hand-worked history (src/domain/backtest.test.ts), as stored contests:
 *   C1 settles up:   up 80/60 win (+40), down 70/65 loss (−65)
 *   C2 settles down: down 60/55 win (+45), down 90/80 win (+20)
 *   C3 void:         up 75/50 void (0)
 * → 5 signals, 3 wins, 1 loss, 1 void; win rate 75 % [30.1 %, 95.4 %]; +40¢ in all, +8¢ a contract;
 *   average entry 62¢; Brier 0.175. Before them, 1100 settled contests without signals, so the
 *   command pages through the history (500 a page) and still counts every contest once.
 */
function fixtureHistory(): Contest[] {
  const at = (expiresAt: number) => ({ series: SERIES, opensAt: expiresAt - CONTEST_MS, expiresAt })
  const c1 = makeContest(at(NEWEST - 2 * CONTEST_MS))
  const c2 = makeContest(at(NEWEST - CONTEST_MS))
  const c3 = makeContest(at(NEWEST))
  const s = (c: Contest, minute: number, side: 'up' | 'down', confidence: number, entry: number) =>
    makeSignal(c, { minute, side, confidence, entryPriceCents: entry, edgeCents: confidence - entry })
  const empty = Array.from({ length: 1100 }, (_, i) =>
    makeSettledContest({ ...at(NEWEST - (3 + i) * CONTEST_MS), signals: [] }, UP),
  )
  return [
    makeSettledContest({ ...c1, signals: [s(c1, 1, 'up', 80, 60), s(c1, 2, 'down', 70, 65)] }, UP),
    makeSettledContest({ ...c2, signals: [s(c2, 1, 'down', 60, 55), s(c2, 2, 'down', 90, 80)] }, DOWN),
    makeSettledContest({ ...c3, signals: [s(c3, 3, 'up', 75, 50)] }, { kind: 'void', priceDollars: null }),
    ...empty,
  ]
}

describe('contest-signals --version and --help', () => {
  it('prints the package version', async () => {
    const r = await runCli(['--version'], {})
    assert.equal(r.code, 0)
    assert.equal(r.stdout, 'contest-signals 1.0.0\n')
  })

  it('answers --help for every command, whatever the environment holds', async () => {
    const commands = [
      'serve',
      'api',
      'engine',
      'keys',
      'migrate',
      'backtest',
      'evaluate',
      'backup',
      'venue',
      'replay',
      'sim',
      'history',
    ]
    const runs = await Promise.all(commands.map((c) => runCli([c, '--help'], { PORT: 'eighty' })))
    runs.forEach((r, i) => {
      assert.equal(r.code, 0, `${commands[i]} --help: ${r.stderr}`)
      assert.match(r.stdout, new RegExp(`^usage: contest-signals ${commands[i]}`))
    })
    const top = await runCli(['--help'], {})
    assert.equal(top.code, 0)
    for (const command of ['backtest', 'evaluate', 'backup', 'keys list [--json]'])
      assert.ok(top.stdout.includes(command))
  })

  it('refuses an option the command does not have, with exit code 2', async () => {
    const r = await runCli(['migrate', '--grid'], {})
    assert.equal(r.code, 2)
    assert.match(r.stderr, /--grid/)
  })

  it('refuses a stray argument or an option meant for another action, before touching any store', async () => {
    const tmp = tempDir()
    try {
      const db = path.join(tmp.dir, 'never.db')
      for (const [args, reason] of [
        [['migrate', 'extra'], /unexpected argument "extra"/],
        [['keys', 'list', 'extra'], /unexpected argument "extra"/],
        [['keys', 'revoke', 'ID', 'extra'], /unexpected argument "extra"/],
        [['keys', 'list', '--label', 'x'], /--label goes with keys create/],
      ] as const) {
        const r = await runCli([...args], { DATABASE_URL: `sqlite:${db}` })
        assert.equal(r.code, 2, args.join(' '))
        assert.match(r.stderr, reason)
      }
      assert.equal(existsSync(db), false)
    } finally {
      tmp.remove()
    }
  })
})

describe('contest-signals backtest', () => {
  const tmp = tempDir()
  const file = path.join(tmp.dir, 'cs.db')
  const env = { DATABASE_URL: `sqlite:${file}` }

  before(async () => {
    const store = createSqliteStore(file)
    await store.migrate()
    await store.importHistory(fixtureHistory())
    await store.close()
  })
  after(() => tmp.remove())

  it('prints the report: counts, win rate with its interval, entry, profit, Brier and calibration', async () => {
    const r = await runCli(['backtest', '--series', SERIES], env)
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stderr, `contest-signals: store sqlite:${file}\n`)
    const out = r.stdout
    assert.match(out, /^backtest of KXBT15M: all settled contests$/m)
    assert.match(out, /^contests +1103 settled$/m)
    assert.match(out, /^signals +5 passing: 3 wins, 1 losses, 1 voids$/m)
    // 3 wins of 4 in two contests (1 of 2, 2 of 2): 3 effective trials, Wilson on 2.25 of 3
    assert.match(out, /^win rate +75\.0% \(95% Wilson interval, clustered by contest: 25\.6% – 96\.3%\)$/m)
    assert.match(out, /^average entry +62\.00¢/m)
    // claimed over the same 4 graded signals as realised (the void's 25¢ claim was never tested)
    assert.match(out, /^edge +claimed \+10\.00¢, realised \+10\.00¢ per graded signal$/m)
    assert.match(out, /^profit +\+8\.00¢ per contract \(95% .+\), \+40\.00¢ in all$/m)
    // four taker fees of 2¢ (entries 60, 65, 55, 80), the void's refunded
    assert.match(out, /^after the fee +\+6\.40¢ per contract \(95% .+\), \+32\.00¢ in all; fees \+8\.00¢$/m)
    assert.match(out, /^Brier score +0\.1750 /m)
    assert.match(out, /^ {2}70–80 +1 +0 +70\.0 +0\.0% +0\.0% – 79\.3%$/m)
  })

  it('evaluate scores the same history: log loss and Brier by contest-clustered means, as text and JSON', async () => {
    const json = await runCli(['evaluate', '--series', SERIES, '--json'], env)
    assert.equal(json.code, 0, json.stderr)
    const report = JSON.parse(json.stdout)
    // graded readings as P(up): C1 (up) .8 and .3, C2 (down) .4 and .1 — the void is not scored
    // log loss (−ln .8 − ln .3 − ln .6 − ln .9) / 4; Brier (.04 + .49 + .16 + .01) / 4 = .175
    assert.equal(report.overall.readings, 4)
    assert.equal(report.overall.contests, 2)
    const logLoss = -(Math.log(0.8) + Math.log(0.3) + Math.log(0.6) + Math.log(0.9)) / 4
    assert.ok(Math.abs(report.overall.model.logLoss.value - logLoss) < 1e-12)
    assert.ok(Math.abs(report.overall.model.brier.value - 0.175) < 1e-12)
    // readings stored without inputs have no mid to compare with
    assert.equal(report.overall.mid, null)
    assert.deepEqual(
      report.byBucket.map((b: { label: string; readings: number }) => [b.label, b.readings]),
      [
        ['1–2', 0],
        ['3–7', 0],
        ['8–14', 4],
      ],
    )
    const text = await runCli(['evaluate', '--series', SERIES], env)
    assert.equal(text.code, 0, text.stderr)
    assert.match(text.stdout, /^graded readings 4 in 2 contests/m)
    assert.match(text.stdout, /^all +4 +2 +0\.5108 ± /m)
    // no reading claimed a long shot: every tail bucket is empty, its ratio a dash
    assert.match(text.stdout, /realised \(ratio ± SE clustered by contest\)$/m)
    assert.match(text.stdout, /^2–5 % +up +0 · 0\.00 → 0 \(–\)/m)
  })

  it('evaluate --against takes another store by its path or its URL, paired reading by reading', async () => {
    for (const store of [file, `sqlite:${file}`]) {
      const r = await runCli(['evaluate', '--series', SERIES, '--against', store, '--json'], env)
      assert.equal(r.code, 0, r.stderr)
      const { against } = JSON.parse(r.stdout)
      assert.equal(against.matched, 4, store)
      assert.deepEqual(against.unmatched, { here: 0, against: 0 })
    }
  })

  it('evaluate refuses bad arguments with exit code 2 and a reason', async () => {
    for (const [args, reason] of [
      [['--since', 'yesterday'], /--since "yesterday" is not an RFC 3339/],
      [['--since', '2026-11-23', '--before', '2026-11-22'], /--since is after --before/],
      [['--sim-seed', 'x'], /--sim-seed must be a whole number/],
      [
        ['--against', 'mysql://x'],
        /--against mysql:\/\/x is neither a path, sqlite:PATH nor a postgres:\/\/ URL/,
      ],
    ] as const) {
      const r = await runCli(['evaluate', '--series', SERIES, ...args], env)
      assert.equal(r.code, 2, r.stderr)
      assert.match(r.stderr, reason)
    }
  })

  it("evaluate --sim-seed refuses a seed or SIM_PARAMS other than the store's simulator timeline's", async () => {
    const timeline = path.join(tmp.dir, 'timeline.db')
    const store = createSqliteStore(timeline)
    try {
      await store.migrate()
      await resolveSimWorld(store, { simSeed: 5, simParams: null })
      await store.importHistory(fixtureHistory())
    } finally {
      await store.close()
    }
    const env = { DATABASE_URL: `sqlite:${timeline}` }
    const seeded = async (seed: number, more: Record<string, string> = {}) =>
      runCli(['evaluate', '--series', SERIES, '--sim-seed', String(seed), '--json'], { ...env, ...more })
    const other = await seeded(6)
    assert.equal(other.code, 1, other.stderr)
    assert.match(
      other.stderr,
      /contest-signals evaluate: --sim-seed 6: the store's KXBT15M contests come from sim seed 5 \(the simulator's timeline of seed 5\): score them with --sim-seed 5\n$/,
    )
    const params = await seeded(5, { SIM_PARAMS: 'ewma-late' })
    assert.equal(params.code, 1, params.stderr)
    assert.match(
      params.stderr,
      /contest-signals evaluate: SIM_PARAMS differs from the settings the store's timeline/,
    )
    const own = await seeded(5)
    assert.equal(own.code, 0, own.stderr)
    assert.equal(JSON.parse(own.stdout).overall.readings, 4)
  })

  it('says so when the store holds no contest of the series, with exit code 1, rather than an empty report', async () => {
    // a mistyped series (KXBTC15M for this store's KXBT15M) would otherwise read as a judged series
    // with nothing in it: 0 readings, every figure a dash, exit 0
    for (const args of [
      ['evaluate'],
      ['evaluate', '--json'],
      ['backtest'],
      ['backtest', '--grid', '--json'],
    ]) {
      const r = await runCli([...args, '--series', 'KXBTC15M'], env)
      assert.equal(r.code, 1, args.join(' '))
      assert.equal(r.stdout, '', args.join(' '))
      assert.match(
        r.stderr,
        new RegExp(`^contest-signals ${args[0]}: the store holds no contest of series KXBTC15M$`, 'm'),
      )
    }
    // a window of a series it holds with nothing in it is an answer, not a failure
    const empty = await runCli(['evaluate', '--series', SERIES, '--before', '2020-01-01', '--json'], env)
    assert.equal(empty.code, 0, empty.stderr)
    assert.equal(JSON.parse(empty.stdout).overall.readings, 0)
  })

  it('gives the same numbers as JSON, with the filter applied', async () => {
    const r = await runCli(
      ['backtest', '--series', SERIES, '--min-confidence', '70', '--side', 'up', '--json'],
      env,
    )
    assert.equal(r.code, 0, r.stderr)
    const report = JSON.parse(r.stdout)
    // up signals with confidence ≥ 70: 80/60 win and 75/50 void → +40¢ over 2 contracts
    assert.deepEqual(
      [report.signals, report.wins, report.losses, report.voids, report.totalProfitCents],
      [2, 1, 0, 1, 40],
    )
    assert.equal(report.profitPerContractCents, 20)
    assert.deepEqual(report.filter, {
      series: SERIES,
      since: null,
      before: null,
      minConfidence: 70,
      minEdge: null,
      side: 'up',
    })
  })

  it('limits the window on expiry, both bounds inclusive', async () => {
    const since = new Date(NEWEST - CONTEST_MS).toISOString()
    const r = await runCli(['backtest', '--series', SERIES, '--since', since, '--json'], env)
    const report = JSON.parse(r.stdout)
    assert.deepEqual([report.contests, report.signals, report.totalProfitCents], [2, 3, 65])
  })

  it('prints the threshold grid, or its cells as JSON', async () => {
    const text = await runCli(['backtest', '--series', SERIES, '--grid'], env)
    assert.equal(text.code, 0, text.stderr)
    assert.match(text.stdout, /^profit per contract$/m)
    assert.match(text.stdout, /^ {2}confidence any +\+8\.00¢/m)
    const json = JSON.parse((await runCli(['backtest', '--series', SERIES, '--grid', '--json'], env)).stdout)
    const cell = json.grid.find(
      (c: { minConfidence: number | null; minEdge: number | null }) =>
        c.minConfidence === 70 && c.minEdge === 10,
    )
    // confidence ≥ 70 and edge ≥ 10: 80/60 (edge 20, win +40), 90/80 (edge 10, win +20) and 75/50
    // (edge 25, void) → +60¢
    assert.deepEqual([cell.signals, cell.totalProfitCents], [3, 60])
  })

  it('refuses bad arguments with exit code 2', async () => {
    for (const args of [
      ['--side', 'sideways'],
      ['--min-confidence', 'high'],
      ['--since', 'yesterday'],
      // the grid's cells are its own thresholds: one beside it would be dropped without a word
      ['--min-confidence', '60', '--grid'],
      ['--min-edge', '5', '--grid'],
    ]) {
      const r = await runCli(['backtest', ...args], env)
      assert.equal(r.code, 2, args.join(' '))
      assert.match(r.stderr, new RegExp(args[0]!))
    }
  })

  it('resolves a relative store path against the current directory, and never creates one to read', async () => {
    const r = await runCli(['backtest'], { DATABASE_URL: 'sqlite:./no-such-dir/cs.db' })
    assert.equal(r.code, 1)
    const absolute = path.join(REPO_ROOT, 'no-such-dir/cs.db')
    assert.equal(
      r.stderr,
      `contest-signals: DATABASE_URL: no store at ${absolute} ${r.stderr.slice(r.stderr.indexOf('('))}`,
    )
    assert.ok(!existsSync(path.join(REPO_ROOT, 'no-such-dir')))
  })
})

describe('contest-signals keys on a new store', () => {
  it('says it created the store, and keys list --json lists the keys with RFC 3339 times', async () => {
    const tmp = tempDir()
    try {
      const env = { DATABASE_URL: `sqlite:${path.join(tmp.dir, 'fresh', 'cs.db')}` }
      const created = await runCli(['keys', 'create', '--label', 'bot'], env)
      assert.equal(created.code, 0)
      assert.match(
        created.stderr,
        /store sqlite:\/.+\/fresh\/cs\.db \(new: no file was there, an empty store was created\)/,
      )
      const listed = await runCli(['keys', 'list', '--json'], env)
      assert.equal(listed.code, 0)
      const keys = JSON.parse(listed.stdout)
      assert.equal(keys.length, 1)
      assert.deepEqual(Object.keys(keys[0]), [
        'id',
        'label',
        'prefix',
        'created_at',
        'last_used_at',
        'revoked_at',
      ])
      assert.equal(keys[0].label, 'bot')
      assert.match(keys[0].created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      assert.equal(keys[0].last_used_at, null)
      assert.doesNotMatch(listed.stderr, /new:/)
    } finally {
      tmp.remove()
    }
  })
})

describe('contest-signals backup', () => {
  const tmp = tempDir()
  const file = path.join(tmp.dir, 'live.db')
  let writer: Store

  before(async () => {
    // The writer stays open, as a running service would: what it committed may still be in the -wal.
    writer = createSqliteStore(file)
    await writer.migrate()
    await writer.importHistory(fixtureHistory().slice(0, 3))
    await writer.createKey(makeKey({ label: 'restored-key' }))
    assert.ok(existsSync(`${file}-wal`))
  })
  after(async () => {
    await writer.close()
    tmp.remove()
  })

  it('copies a live store with its WAL, and the copy serves the same backtest and keys', async () => {
    const copy = path.join(tmp.dir, 'backup.db')
    const r = await runCli(['backup', copy], { DATABASE_URL: `sqlite:${file}` })
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout.split(':')[0], `backed up to ${copy}`)
    assert.match(r.stdout, /3 contests, 5 signals, 1 keys/)
    // Restore: point DATABASE_URL at the copy.
    const restored = { DATABASE_URL: `sqlite:${copy}` }
    const report = JSON.parse((await runCli(['backtest', '--series', SERIES, '--json'], restored)).stdout)
    assert.deepEqual([report.signals, report.totalProfitCents, report.brierScore], [5, 40, 0.175])
    const keys = JSON.parse((await runCli(['keys', 'list', '--json'], restored)).stdout)
    assert.deepEqual(
      keys.map((k: { label: string }) => k.label),
      ['restored-key'],
    )
  })

  it('never overwrites an existing file', async () => {
    const copy = path.join(tmp.dir, 'twice.db')
    assert.equal((await runCli(['backup', copy], { DATABASE_URL: `sqlite:${file}` })).code, 0)
    const again = await runCli(['backup', copy], { DATABASE_URL: `sqlite:${file}` })
    assert.equal(again.code, 1)
    assert.match(again.stderr, /backup refused: .*twice\.db already exists; a backup never overwrites/)
  })

  it('refuses - as its path, writing no file of that name', async () => {
    const r = await runCli(['backup', '-'], { DATABASE_URL: `sqlite:${file}` })
    assert.equal(r.code, 2)
    assert.match(
      r.stderr,
      /^contest-signals: backup writes a new file: give its path \(stdout, -, is not one\)\n$/,
    )
    assert.equal(existsSync(path.join(REPO_ROOT, '-')), false)
  })

  it('sends a PostgreSQL store to pg_dump', async () => {
    const r = await runCli(['backup', path.join(tmp.dir, 'pg.db')], {
      DATABASE_URL: 'postgres://contest:secret@127.0.0.1:5432/x',
    })
    assert.equal(r.code, 2)
    assert.match(r.stderr, /pg_dump/)
    assert.doesNotMatch(r.stderr, /secret/)
  })
})

describe('contest-signals sim tape', () => {
  const tmp = tempDir('cs-sim-tape-')
  after(() => tmp.remove())
  const filesUnder = (dir: string): number =>
    readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length

  it('leaves no tape at --out when killed part-way: a short tape under its header would replay as whole', async () => {
    const dir = path.join(tmp.dir, 'killed')
    mkdirSync(dir)
    const out = path.join(dir, 'month.ndjson.gz')
    const args = ['sim', 'tape', '--days', '30', '--seed', '3', '--from', '2026-11-01', '--out', out]
    const p = startProcess(args, {})
    try {
      await waitUntil(() => filesUnder(dir) > 0, 'the tape opened for writing', 30_000)
    } finally {
      await p.kill('SIGKILL')
    }
    assert.equal(existsSync(out), false, 'no file at --out')
  })

  it('stopped by SIGINT or SIGTERM, takes back the part it wrote and says so', async () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const dir = path.join(tmp.dir, `stopped-${signal}`)
      mkdirSync(dir)
      const out = path.join(dir, 'month.ndjson.gz')
      const p = startProcess(
        ['sim', 'tape', '--days', '30', '--seed', '3', '--from', '2026-11-01', '--out', out],
        {},
      )
      await waitUntil(() => filesUnder(dir) > 0, 'the tape opened for writing', 30_000)
      const { code } = await p.kill(signal)
      assert.equal(code, signal === 'SIGINT' ? 130 : 143)
      assert.equal(p.stderr(), `contest-signals sim tape: stopped by ${signal}; nothing written\n`)
      assert.deepEqual(readdirSync(dir), [], 'no tape, no partial, no .partial folder')
    }
  })

  it('refuses an --out whose directory does not exist, in one line naming it', async () => {
    const out = path.join(tmp.dir, 'nowhere', 'day.ndjson')
    const r = await runCli(['sim', 'tape', '--days', '1', '--out', out], {})
    assert.equal(r.code, 1)
    assert.equal(
      r.stderr,
      `contest-signals sim tape: cannot write ${out}: no directory ${path.dirname(out)}\n`,
    )
  })
})
