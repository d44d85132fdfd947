// `npm run model:sweep` (issue 29): the model across sandbox crowds it was not fitted on. For each
// crowd preset (SIM_PARAMS, src/feeds/sim/sim-params-text.ts) and each held-out seed, the path a
// user takes: `sim tape` → `replay` (v2, the default model, and v1) → `evaluate --sim-seed
// --train-until --json` (the first --train-days train the recalibrated mid, the rest are judged).
// From the same stored readings, in process: the model alone and the exact oracle each against the
// recalibrated mid (evaluate's own arithmetic, with the published probability replaced). Pooled over
// seeds per preset; the table goes between the markers in docs/model.md, the figures to --json.
// Usage: node tools/model-card-sweep.ts [--presets ewma,informed,…] [--seeds 3001,3002,3003]
//        [--from 2026-10-01] [--days 3] [--train-days 1] [--jobs 2] [--work DIR] [--table-only]
//        (--table-only without --work: the table made again from the look's --json, nothing run)
//        [--venue polymarket] (that venue's sandbox: its crowd, its series, its rule; own markers)
//        [--marker NAME] (the markers in docs/model.md the table goes between; by default the venue's
//        sweep's: a longer held-out run, such as Polymarket's card, keeps its own)
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sandboxOracle } from '../src/cli/evaluate-command.ts'
import { type EvaluationReport, evaluateReadings } from '../src/domain/evaluation.ts'
import type { GradedReading } from '../src/domain/graded-reading.ts'
import { MODEL_VERSION as V1_NAME } from '../src/domain/model.ts'
import { POLYMARKET_SIM_SERIES } from '../src/feeds/sim/polymarket-world.ts'
import { CROWD_PRESETS, parseSimParams } from '../src/feeds/sim/sim-params-text.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { cardTailRow } from './card-tails.ts'
import { replaceBlock } from './model-params-table.ts'
import { type Diff, type JobFigures, sweepTable } from './sweep-table.ts'
import { parseToolArgs } from './tool-args.ts'

const { values } = parseToolArgs(
  'model:sweep',
  'v2, the model alone and the recalibrated mid across the sandbox’s crowd presets on held-out seeds (docs/model.md)',
  {
    options: {
      presets: { type: 'string', default: Object.keys(CROWD_PRESETS).join(',') },
      seeds: { type: 'string', default: '3001,3002,3003' },
      from: { type: 'string', default: '2026-10-01' },
      days: { type: 'string', default: '3' },
      'train-days': { type: 'string', default: '1' },
      jobs: { type: 'string', default: '2' },
      work: { type: 'string' },
      card: { type: 'string', default: 'docs/model.md' },
      // default: docs/model-sweep.json, or docs/model-sweep-polymarket.json with --venue polymarket
      json: { type: 'string' },
      // write the table from the jobs already done in --work (crowds with every seed), or without
      // --work from the look's committed JSON; run nothing
      'table-only': { type: 'boolean', default: false },
      venue: { type: 'string', default: 'kalshi' },
      marker: { type: 'string' },
      // internal: one preset × seed, its figures written to --part
      job: { type: 'string' },
      part: { type: 'string' },
    },
  },
)
// a Polymarket sweep (--venue polymarket) judges that venue's series by its own rule
const VENUE = values.venue === 'polymarket' ? 'polymarket' : 'kalshi'
const SERIES = VENUE === 'polymarket' ? POLYMARKET_SIM_SERIES : 'KXBTC15M'
const MARKER = values.marker ?? (VENUE === 'polymarket' ? 'model:sweep:polymarket' : 'model:sweep')
const JSON_OUT =
  values.json ?? (VENUE === 'polymarket' ? 'docs/model-sweep-polymarket.json' : 'docs/model-sweep.json')
const ROOT = path.join(import.meta.dirname, '..')
const MAIN = path.join(ROOT, 'src/cli/main.ts')
const DAY_MS = 86_400_000
const from = Date.parse(`${values.from}T00:00:00Z`)
const days = Number(values.days)
const trainUntil = new Date(from + Number(values['train-days']) * DAY_MS).toISOString()
const log = (msg: string) => process.stderr.write(`model:sweep: ${msg}\n`)

if (values.job !== undefined) await job(values.job)
else await main()

async function main(): Promise<void> {
  const presets = values.presets.split(',')
  const seeds = values.seeds.split(',').map(Number)
  // refused in one line now, not after an hour of jobs: a crowd it has no preset for, a card
  // without the markers its table goes between
  const refuse = (msg: string): never => {
    process.stderr.write(`model:sweep: ${msg}\n`)
    process.exit(2)
  }
  for (const p of presets) if (!CROWD_PRESETS[p]) refuse(`no crowd preset ${p}`)
  if (seeds.some((s) => !Number.isInteger(s))) refuse(`--seeds ${values.seeds} is not a list of integers`)
  try {
    replaceBlock(readFileSync(path.resolve(ROOT, values.card), 'utf8'), MARKER, '', values.card)
  } catch (err) {
    refuse((err as Error).message)
  }
  if (values['table-only'] && values.work === undefined) {
    // the look's committed figures, made into its table again (the table's form changed, not a job)
    const figures = JSON.parse(readFileSync(path.resolve(ROOT, JSON_OUT), 'utf8')) as JobFigures[]
    const have = presets.filter((p) =>
      seeds.every((s) => figures.some((f) => f.preset === p && f.seed === s)),
    )
    if (have.length === 0)
      refuse(`${JSON_OUT} has no crowd of ${values.presets} with every seed of ${values.seeds}`)
    writeTable(
      have,
      seeds,
      figures.filter((f) => have.includes(f.preset) && seeds.includes(f.seed)),
    )
    return
  }
  const work = values.work ?? mkdtempSync(path.join(tmpdir(), 'cs-model-sweep-'))
  mkdirSync(work, { recursive: true })
  const queue = values['table-only'] ? [] : presets.flatMap((p) => seeds.map((s) => `${p}:${s}`))
  log(
    `work ${work}; ${presets.length} crowds × ${seeds.length} seeds × ${days} days, ${values.jobs} at a time`,
  )
  const failures: string[] = []
  const worker = async (): Promise<void> => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const part = path.join(work, `sweep-${next.replace(':', '-')}.json`)
      if (existsSync(part)) continue
      const code = await new Promise<number | null>((resolve) => {
        const child = spawn(
          process.execPath,
          [
            ...process.execArgv,
            import.meta.filename,
            ...['--job', next, '--part', part, '--work', work],
            ...['--from', values.from, '--days', String(days), '--train-days', values['train-days']],
            ...['--venue', VENUE],
          ],
          { stdio: ['ignore', 'inherit', 'inherit'] },
        )
        child.on('exit', resolve)
      })
      if (code !== 0) failures.push(`${next} exited ${code}`)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Number(values.jobs)) }, worker))
  if (failures.length > 0) throw new Error(failures.join('; '))
  const partOf = (p: string, s: number) => path.join(work, `sweep-${p}-${s}.json`)
  const done = presets.filter((p) => seeds.every((s) => existsSync(partOf(p, s))))
  if (done.length < presets.length)
    log(`crowds without every seed, left out: ${presets.filter((p) => !done.includes(p)).join(', ')}`)
  const figures = done.flatMap((p) =>
    seeds.map((s) => JSON.parse(readFileSync(partOf(p, s), 'utf8')) as JobFigures),
  )
  writeFileSync(path.resolve(ROOT, JSON_OUT), `${JSON.stringify(figures, null, 2)}\n`)
  log(`wrote ${JSON_OUT}`)
  writeTable(done, seeds, figures)
}

async function job(spec: string): Promise<void> {
  const [preset, seedText] = spec.split(':') as [string, string]
  const seed = Number(seedText)
  const work = values.work as string
  const started = Date.now()
  const env = { ...process.env, SIM_PARAMS: preset, LOG_LEVEL: 'silent' }
  const cli = (args: string[], db?: string): string =>
    execFileSync(process.execPath, [MAIN, ...args], {
      env: db ? { ...env, DATABASE_URL: `sqlite:${db}` } : env,
      maxBuffer: 256 << 20,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    })
  const tape = path.join(work, `tape-${preset}-${seed}.ndjson.gz`)
  if (!existsSync(tape)) {
    const partial = `${tape}.partial.ndjson.gz`
    rmSync(partial, { force: true })
    cli([
      'sim',
      'tape',
      '--venue',
      VENUE,
      '--seed',
      String(seed),
      '--from',
      values.from,
      '--days',
      String(days),
      '--out',
      partial,
    ])
    execFileSync('mv', [partial, tape])
  }
  const reports: Record<'v2' | 'v1', EvaluationReport> = {} as never
  let v2Rows: GradedReading[] = []
  for (const [key, model] of [
    ['v2', undefined],
    ['v1', V1_NAME],
  ] as const) {
    const db = path.join(work, `store-${preset}-${seed}-${key}.db`)
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${db}${suffix}`, { force: true })
    cli(['migrate'], db)
    cli(['replay', '--tape', tape, ...(model ? ['--model', model] : [])], db)
    const out = cli(
      ['evaluate', '--series', SERIES, '--sim-seed', String(seed), '--train-until', trainUntil, '--json'],
      db,
    )
    reports[key] = JSON.parse(out) as EvaluationReport
    if (key === 'v2') {
      const store = createSqliteStore(db)
      v2Rows = await store.listGradedReadings({ series: SERIES })
      await store.close()
    }
    log(
      `${preset} seed ${seed} ${key}: replayed and evaluated (${((Date.now() - started) / 1000).toFixed(0)} s)`,
    )
  }
  // the model alone and the oracle as if published: evaluate's arithmetic gives each against the
  // recalibrated mid on the same readings
  const params = parseSimParams(preset)
  if (typeof params === 'string') throw new Error(params)
  const oracle = sandboxOracle(seed, params)
  const asPublished = (p: (r: GradedReading) => number | null): GradedReading[] =>
    v2Rows.flatMap((r) => {
      const up = p(r)
      return up === null ? [] : [{ ...r, side: 'up' as const, confidence: up * 100 }]
    })
  const t = Date.parse(trainUntil)
  const reportOf = (rows: GradedReading[]): EvaluationReport =>
    evaluateReadings({ series: SERIES, readings: rows, trainUntil: t })
  const diffOf = (b: EvaluationReport['overall']['recalibratedMid']): Diff | null =>
    b ? { value: b.difference.logLoss.value, se: b.difference.logLoss.se, readings: b.readings } : null
  const alone = diffOf(reportOf(asPublished((r) => r.inputs?.modelAloneUp ?? null)).overall.recalibratedMid)
  const truthReport = reportOf(asPublished(oracle))
  const truth = diffOf(truthReport.overall.recalibratedMid)
  const v2 = reports.v2
  const figures: JobFigures = {
    preset,
    seed,
    readings: v2.overall.readings,
    contests: v2.overall.contests,
    v2Version: v2.modelVersions.join(', '),
    v2MinusRecal: diffOf(v2.overall.recalibratedMid),
    aloneMinusRecal: alone,
    recalMinusOracle: truth ? { ...truth, value: -truth.value } : null,
    v2MinusOracle: diffOf(v2.overall.oracle),
    logLoss: {
      v2: v2.overall.model.logLoss.value,
      v1: reports.v1.overall.model.logLoss.value,
      oracleV2: v2.overall.oracle?.logLoss.value ?? null,
      oracleV1: reports.v1.overall.oracle?.logLoss.value ?? null,
      recal: v2.overall.recalibratedMid?.logLoss.value ?? null,
    },
    slopes: Object.fromEntries(v2.byBucket.map((b) => [b.label, b.model.calibration?.slope.value ?? null])),
    oracleSlopes: Object.fromEntries(
      v2.byBucket.map((b) => [b.label, b.oracle?.calibration?.slope.value ?? null]),
    ),
    tails: v2.tails.model.map(cardTailRow),
    oracleTails: truthReport.tails.model.map(cardTailRow),
    ...(v2.tails.modelAgainstOracle
      ? { refereeOnV2Tails: v2.tails.modelAgainstOracle.map(cardTailRow) }
      : {}),
    wallMs: Date.now() - started,
  }
  writeFileSync(values.part as string, JSON.stringify(figures))
  log(`${preset} seed ${seed}: done in ${(figures.wallMs / 1000).toFixed(0)} s`)
}

function writeTable(presets: string[], seeds: number[], figures: JobFigures[]): void {
  const table = sweepTable(presets, seeds, figures, {
    from: values.from,
    days,
    trainDays: Number(values['train-days']),
    jobs: Math.max(1, Number(values.jobs)),
  })
  const card = path.resolve(ROOT, values.card)
  writeFileSync(card, replaceBlock(readFileSync(card, 'utf8'), MARKER, table, values.card))
  log(`wrote the table between ${MARKER}'s markers in ${values.card}`)
}
