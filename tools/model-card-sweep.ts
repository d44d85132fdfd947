// `npm run model:sweep` (issue 29): the model across sandbox crowds it was not fitted on. For each
// crowd preset (SIM_PARAMS, src/feeds/sim/sim-params-text.ts) and each held-out seed, the path a
// user takes: `sim tape` → `replay` (v2, the default model, and v1) → `evaluate --sim-seed
// --train-until --json` (the first --train-days train the recalibrated mid, the rest are judged).
// From the same stored readings, in process: the model alone and the exact oracle each against the
// recalibrated mid (evaluate's own arithmetic, with the published probability replaced). Pooled over
// seeds per preset; the table goes between the markers in docs/model.md, the figures to --json.
// Usage: node tools/model-card-sweep.ts [--presets ewma,informed,…] [--seeds 3001,3002,3003]
//        [--from 2026-10-01] [--days 3] [--train-days 1] [--jobs 2] [--work DIR] [--table-only]
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
import { tailRatioText } from '../src/domain/tail-table.ts'
import { POLYMARKET_SIM_SERIES } from '../src/feeds/sim/polymarket-world.ts'
import { CROWD_PRESETS, parseSimParams } from '../src/feeds/sim/sim-params-text.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { type CardTailRow, cardTailRow, pooledCardTail, pooledTailText } from './card-tails.ts'
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
      // write the table from the jobs already done in --work (crowds with every seed), run nothing
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

type Diff = { value: number; se: number | null; readings: number }
type JobFigures = {
  preset: string
  seed: number
  readings: number
  contests: number
  v2Version: string
  v2MinusRecal: Diff | null
  aloneMinusRecal: Diff | null
  recalMinusOracle: Diff | null
  v2MinusOracle: Diff | null
  /** log loss on the judged readings of each model, and the oracle's on them */
  logLoss: { v2: number; v1: number; oracleV2: number | null; oracleV1: number | null; recal: number | null }
  slopes: Record<string, number | null>
  /** the exact referee's own slopes on the same readings: what sampling alone gives on these days */
  oracleSlopes?: Record<string, number | null>
  /** the v2 tail table: claimed and realised long-shot wins by bucket, with their contests' sums */
  tails: CardTailRow[]
  /** the exact referee's tail table as if it had published on the same readings: what the paths'
   * luck alone gives, so a far bucket outside the gate can be told from a model's fault */
  oracleTails?: CardTailRow[]
  /** v2's tail table with the referee's probability in each outcome's place: its expected long-shot
   * wins on v2's own claims, so v2's miscalibration shows without the paths' luck */
  refereeOnV2Tails?: CardTailRow[]
  wallMs: number
}

if (values.job !== undefined) await job(values.job)
else await main()

async function main(): Promise<void> {
  const presets = values.presets.split(',')
  for (const p of presets) if (!CROWD_PRESETS[p]) throw new Error(`no preset ${p}`)
  const seeds = values.seeds.split(',').map(Number)
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
  const jobs = Math.max(1, Number(values.jobs))
  writeTable(done, seeds, figures, figures.reduce((s, f) => s + f.wallMs, 0) / jobs)
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

/** Seeds pooled: the readings-weighted mean, its SE from the seeds' (independent) clustered SEs. */
function pooled(ds: (Diff | null)[]): Diff | null {
  const xs = ds.filter((d): d is Diff => d !== null)
  if (xs.length === 0) return null
  const n = xs.reduce((s, d) => s + d.readings, 0)
  const value = xs.reduce((s, d) => s + (d.readings / n) * d.value, 0)
  const se = xs.every((d) => d.se !== null)
    ? Math.sqrt(xs.reduce((s, d) => s + (d.readings / n) ** 2 * (d.se as number) ** 2, 0))
    : null
  return { value, se, readings: n }
}

/**
 * The v2 a table judged: one name, or each crowd's where a table pools runs made on different files
 * (a look made again crowd by crowd, the rest kept from the earlier file's run).
 */
function versionsOf(presets: string[], figures: JobFigures[]): string {
  const byCrowd = presets.map((p) => [p, figures.find((x) => x.preset === p)?.v2Version] as const)
  const names = new Set(byCrowd.map(([, v]) => v))
  if (names.size === 1) return `\`${figures[0]?.v2Version}\``
  return byCrowd.map(([p, v]) => `\`${v}\` for \`${p}\``).join(', ')
}

function writeTable(presets: string[], seeds: number[], figures: JobFigures[], wallMs: number): void {
  const f4 = (x: number) => (x >= 0 ? '+' : '−') + Math.abs(x).toFixed(4)
  const cell = (d: Diff | null) =>
    d
      ? `${f4(d.value)} ± ${d.se === null ? '–' : d.se.toFixed(4)}${d.se ? ` (${(d.value / d.se).toFixed(1)} SE)` : ''}`
      : '–'
  // the share of v1's gap to the oracle v2 closes, each model against the oracle on its own readings
  const gap = (f: JobFigures[]) => {
    let v1 = 0
    let v2 = 0
    for (const x of f) {
      if (x.logLoss.oracleV1 === null || x.logLoss.oracleV2 === null) return '–'
      v1 += x.logLoss.v1 - x.logLoss.oracleV1
      v2 += x.logLoss.v2 - x.logLoss.oracleV2
    }
    return v1 > 0 ? `${((1 - v2 / v1) * 100).toFixed(0)} %` : '–'
  }
  const lines: string[] = []
  lines.push(
    `Held-out seeds ${seeds.join(', ')}, ${days} days each from ${values.from} (the first ${values['train-days']} trains the recalibrated mid; the rest is judged); v2 = ${versionsOf(presets, figures)}. Δ log loss, SE clustered by contest, seeds pooled (weighted by readings); negative: the first is better. About ${(wallMs / 60_000).toFixed(0)} min of wall time on ${values.jobs} jobs.`,
  )
  lines.push('')
  lines.push(
    '| crowd (`SIM_PARAMS`) | readings | v2 − recal. mid | model alone − recal. mid | recal. mid − exact oracle | v2 − exact oracle | v1 → oracle gap closed |',
  )
  lines.push('|---|---|---|---|---|---|---|')
  for (const p of presets) {
    const f = figures.filter((x) => x.preset === p)
    lines.push(
      `| \`${p}\` | ${f.reduce((s, x) => s + x.readings, 0)} | ${cell(pooled(f.map((x) => x.v2MinusRecal)))} | ${cell(pooled(f.map((x) => x.aloneMinusRecal)))} | ${cell(pooled(f.map((x) => x.recalMinusOracle)))} | ${cell(pooled(f.map((x) => x.v2MinusOracle)))} | ${gap(f)} |`,
    )
  }
  lines.push('')
  lines.push('Per seed (v2 − recal. mid · model alone − recal. mid · recal. mid − exact oracle):')
  lines.push('')
  lines.push(`| crowd | ${seeds.map((s) => `seed ${s}`).join(' | ')} |`)
  lines.push(`|---|${seeds.map(() => '---').join('|')}|`)
  for (const p of presets) {
    const row = seeds.map((s) => {
      const x = figures.find((y) => y.preset === p && y.seed === s)
      return x ? `${cell(x.v2MinusRecal)} · ${cell(x.aloneMinusRecal)} · ${cell(x.recalMinusOracle)}` : '–'
    })
    lines.push(`| \`${p}\` | ${row.join(' | ')} |`)
  }
  lines.push('')
  const buckets = Object.keys(figures[0]?.slopes ?? {})
  lines.push(
    'v2 calibration slope by minutes left (seeds averaged; in brackets the exact referee’s own slope on the same readings, which is 1 but for sampling: the days are the same for every crowd) and tail table (claimed → realised long-shot wins, seeds pooled, realised / claimed ± SE clustered by contest and the contests in the bucket; buckets with ≥ 5 claimed; in square brackets the exact referee’s own ratio as if it had published on the same readings, what the paths’ luck alone gives):',
  )
  lines.push('')
  lines.push(`| crowd | ${buckets.map((b) => `slope ${b}`).join(' | ')} | tails |`)
  lines.push(`|---|${buckets.map(() => '---').join('|')}|---|`)
  for (const p of presets) {
    const f = figures.filter((x) => x.preset === p)
    const mean = (pick: (x: JobFigures) => number | null | undefined): string | null => {
      const xs = f.map(pick).filter((v): v is number => v !== null && v !== undefined)
      return xs.length ? (xs.reduce((s, v) => s + v, 0) / xs.length).toFixed(2) : null
    }
    const slopes = buckets.map((b) => {
      const referee = mean((x) => x.oracleSlopes?.[b])
      return `${mean((x) => x.slopes[b]) ?? '–'}${referee ? ` (${referee})` : ''}`
    })
    const labels = (f[0]?.tails ?? []).map((t) => t.label)
    const tails = labels
      .map((label) => {
        const row = pooledCardTail(
          f.map((x) => x.tails),
          label,
        )
        if (!row || row.claimed < 5) return null
        const referee = f.every((x) => x.oracleTails)
          ? pooledCardTail(
              f.map((x) => x.oracleTails ?? []),
              label,
            )
          : null
        const refereeText = referee && referee.claimed > 0 ? ` [referee ${tailRatioText(referee)}]` : ''
        return `${label}: ${pooledTailText(row)}${refereeText}`
      })
      .filter((x) => x !== null)
    lines.push(`| \`${p}\` | ${slopes.join(' | ')} | ${tails.join('; ') || '–'} |`)
  }
  const table = lines.join('\n')
  const card = path.resolve(ROOT, values.card)
  const text = readFileSync(card, 'utf8')
  const start = `<!-- ${MARKER} start -->`
  const end = `<!-- ${MARKER} end -->`
  const i = text.indexOf(start)
  const j = text.indexOf(end)
  const next =
    i >= 0 && j > i
      ? `${text.slice(0, i + start.length)}\n${table}\n${text.slice(j)}`
      : `${text.trimEnd()}\n\n## The sweep across crowds\n\n${start}\n${table}\n${end}\n`
  writeFileSync(card, next)
  log(`wrote ${values.card} and ${JSON_OUT}`)
}
