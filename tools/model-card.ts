// `npm run model:card`: the held-out table of docs/model.md, through the path a user of the service
// takes (decisions §12, §13): for each sandbox seed the fit never saw, `sim tape` writes the seed's
// days, `replay` runs the engine on the tape once per model (v1 and v2) into a fresh store, and
// `contest-signals evaluate --sim-seed` scores each store — log loss, Brier and calibration by
// minutes left beside the venue's mid and the sandbox's oracle (timed: the evaluate figure of the
// card). Money (the backtest module, net of the taker fee), the long-shot artefacts, the minute-14
// cheap side and the paired v2 − v1 difference come from the same stored readings.
// Writes docs/model-card.json and the tables between the markers in docs/model.md.
// Usage: node tools/model-card.ts [--seeds 2001,2002,2003] [--from 2026-09-01] [--days 30] [--jobs 2]
//        [--work DIR] (tapes and stores; kept, and a tape already there is reused)
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sandboxOracle } from '../src/cli/evaluate-command.ts'
import { type BacktestSignal, summarize, Z95 } from '../src/domain/backtest.ts'
import { clusteredMean, type Estimate, type EvaluationReport } from '../src/domain/evaluation.ts'
import type { GradedReading } from '../src/domain/graded-reading.ts'
import { MODEL_VERSION as V1_NAME } from '../src/domain/model.ts'
import { sharedSimWorld } from '../src/feeds/sim/sim-world.ts'
import { simTapeHeader, writeSimTape } from '../src/feeds/sim-tape/sim-tape.ts'
import { runReplay } from '../src/main/replay.ts'
import { simTapeWarmupMs } from '../src/main/sim-tape-warmup.ts'
import { systemClock } from '../src/main/system-clock.ts'
import { createReadingModel, DEFAULT_MODEL, V2_PARAMS } from '../src/model/models.ts'
import type { Logger } from '../src/ports/logger.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { createTapeWriter } from '../src/tape/tape-writer.ts'
import { type CardTailRow, cardTailRow, pooledCardTail, pooledTailText } from './card-tails.ts'
import { f, pm } from './card-text.ts'
import { trainingText } from './fit/fit-source.ts'
import { paramsTable, replaceBlock } from './model-params-table.ts'
import { parseToolArgs } from './tool-args.ts'

const { values } = parseToolArgs(
  'model:card',
  'the held-out card through sim tape → replay → evaluate (docs/model.md)',
  {
    options: {
      seeds: { type: 'string', default: '2001,2002,2003' },
      from: { type: 'string', default: '2026-09-01' },
      days: { type: 'string', default: '30' },
      jobs: { type: 'string', default: '2' },
      work: { type: 'string' },
      card: { type: 'string', default: 'docs/model.md' },
      json: { type: 'string', default: 'docs/model-card.json' },
      // internal: one seed's pipeline, its figures written to --part
      'seed-run': { type: 'string' },
      part: { type: 'string' },
    },
  },
)
const SERIES = 'KXBTC15M'
const from = Date.parse(`${values.from}T00:00:00Z`)
const days = Number(values.days)
const log = (msg: string) => process.stderr.write(`model:card: ${msg}\n`)
const EDGES = [0, 2, 5, 10] as const
const BUCKETS = ['1–2', '3–7', '8–14'] as const
const MAX_LATE_MS = 10_000
const SPOT_MAX_AGE_MS = 10_000
const ROOT = path.join(import.meta.dirname, '..')
const quiet: Logger = { info() {}, warn() {}, error() {}, debug() {} }
/** A signal asked under this is a long shot whose confidence the card checks against the oracle. */
const LONG_SHOT_CENTS = 2
const TRAINING_SEEDS = V2_PARAMS.training.source === 'sandbox' ? V2_PARAMS.training.seeds : []
const MODELS = [
  { key: 'v1', name: V1_NAME },
  { key: 'v2', name: DEFAULT_MODEL },
] as const
type Key = (typeof MODELS)[number]['key']

type Money = { edge: number; signals: number; profitAfterFeeCents: number | null; se: number | null }
type ModelFigures = {
  version: string
  readings: number
  logLoss: Estimate
  brier: number
  slopeByBucket: Record<string, number | null>
  money: Money[]
  /** of all minute-14 signals, those on the cheap side (entry < 50 ¢) that lost */
  cheapSideLoss: { signals: number; lost: number }
  /** entry < 2 ¢ and confidence above the side's true probability by more than the 0.1 ¢ tick */
  longShotArtefacts: number
  /** the latest a reading (raised, spot or book observed) came after its minute's boundary */
  latestMs: number
  /** readings raised while the sandbox's exchange had paused trading */
  duringPause: number
  skipped: Record<string, number>
  replayWallMs: number
  evaluateWallMs: number
  /** the mid and the oracle on this model's readings, and the share of the gap v2 closes */
  mid: { logLoss: number; brier: number; slopeByBucket: Record<string, number | null> } | null
  midDifference: Estimate | null
  oracle: { logLoss: number; brier: number } | null
  gapClosed: number | null
  /** claimed and realised long-shot wins by bucket of claimed P(up) (src/domain/tail-table.ts) */
  tails: CardTailRow[]
}
type SeedFigures = {
  seed: number
  contests: number
  tapeBytes: number
  tapeWallMs: number
  v1: ModelFigures
  v2: ModelFigures
  /** v2 − v1 log loss, paired per reading both raised, SE clustered by contest */
  v2MinusV1: Estimate
}

if (values['seed-run'] !== undefined) await seedRun(Number(values['seed-run']))
else await main()

async function main(): Promise<void> {
  const seeds = values.seeds.split(',').map(Number)
  const overlap = TRAINING_SEEDS.filter((s) => seeds.includes(s))
  if (overlap.length > 0) throw new Error(`held-out seeds ${overlap.join(', ')} were in the fit`)
  const work = values.work ?? mkdtempSync(path.join(tmpdir(), 'cs-model-card-'))
  mkdirSync(work, { recursive: true })
  log(`work directory ${work}; ${seeds.length} seeds × ${days} days, ${values.jobs} at a time`)
  const queue = [...seeds]
  const failures: string[] = []
  const worker = async (): Promise<void> => {
    for (let seed = queue.shift(); seed !== undefined; seed = queue.shift()) {
      const part = path.join(work, `figures-${seed}.json`)
      const code = await new Promise<number | null>((resolve) => {
        const child = spawn(
          process.execPath,
          [
            ...process.execArgv,
            import.meta.filename,
            '--seed-run',
            String(seed),
            '--from',
            values.from,
            '--days',
            String(days),
            '--work',
            work,
            '--part',
            part,
          ],
          { stdio: ['ignore', 'inherit', 'inherit'] },
        )
        child.on('exit', resolve)
      })
      if (code !== 0) failures.push(`seed ${seed} exited ${code}`)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Number(values.jobs)) }, worker))
  if (failures.length > 0) throw new Error(failures.join('; '))
  const figures = seeds.map(
    (seed) => JSON.parse(readFileSync(path.join(work, `figures-${seed}.json`), 'utf8')) as SeedFigures,
  )
  writeCard(seeds, figures)
}

async function seedRun(seed: number): Promise<void> {
  const work = values.work as string
  const tape = path.join(work, `sim-${seed}-${values.from}-${days}d.ndjson.gz`)
  const warmupMs = simTapeWarmupMs()
  let tapeWallMs = 0
  if (!existsSync(tape)) {
    const started = Date.now()
    const opts = {
      world: sharedSimWorld(seed),
      series: [SERIES],
      from,
      days,
      warmupMs,
      origin: `sim seed ${seed}`,
    }
    const partial = tape.replace(/\.ndjson\.gz$/, '.partial.ndjson.gz')
    const writer = await createTapeWriter(partial, { header: simTapeHeader(opts) })
    await writeSimTape(opts, writer)
    await writer.close()
    execFileSync('mv', [partial, tape])
    tapeWallMs = Date.now() - started
    log(
      `seed ${seed}: tape of ${days} days (+${warmupMs / 60_000} min warm-up) in ${(tapeWallMs / 1000).toFixed(0)} s`,
    )
  }
  const oracle = sandboxOracle(seed)
  const world = sharedSimWorld(seed)
  const graded = {} as Record<Key, GradedReading[]>
  const figures = {} as Record<Key, ModelFigures>
  let contests = 0
  for (const { key, name } of MODELS) {
    const db = path.join(work, `store-${seed}-${key}.db`)
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${db}${suffix}`, { force: true })
    const store = createSqliteStore(db)
    await store.migrate()
    const model = createReadingModel(name)
    const summary = await runReplay({
      tapePath: tape,
      store,
      logger: quiet,
      spotMaxAgeMs: SPOT_MAX_AGE_MS,
      model,
      readingMaxLateMs: MAX_LATE_MS,
      wallClock: systemClock,
    })
    if (summary.stopped) throw new Error(`replay of ${tape} stopped: ${summary.stopped.problem}`)
    const rows = await store.listGradedReadings({ series: SERIES })
    await store.close()
    contests = summary.opened
    log(
      `seed ${seed} ${key}: replayed ${summary.opened} contests, ${summary.signals} signals in ${(summary.wallMs / 1000).toFixed(0)} s`,
    )
    // the evaluate command itself, on the replayed store, timed from its start to its answer
    const started = Date.now()
    const out = execFileSync(
      process.execPath,
      [
        path.join(ROOT, 'src/cli/main.ts'),
        'evaluate',
        '--series',
        SERIES,
        '--sim-seed',
        String(seed),
        '--json',
      ],
      {
        env: { ...process.env, DATABASE_URL: `sqlite:${db}`, LOG_LEVEL: 'silent' },
        maxBuffer: 64 << 20,
        encoding: 'utf8',
      },
    )
    const evaluateWallMs = Date.now() - started
    const report = JSON.parse(out) as EvaluationReport
    graded[key] = rows
    figures[key] = figuresOf(rows, report, summary.skipped, summary.wallMs, evaluateWallMs)
    log(
      `seed ${seed} ${key}: evaluate over ${rows.length} readings in ${(evaluateWallMs / 1000).toFixed(1)} s`,
    )
  }

  function figuresOf(
    rows: GradedReading[],
    report: EvaluationReport,
    skipped: Record<string, number>,
    replayWallMs: number,
    evaluateWallMs: number,
  ): ModelFigures {
    const scored = rows.filter((r) => r.outcome === 'win' || r.outcome === 'loss')
    const signals: BacktestSignal[] = scored
    const money = EDGES.map((edge) => {
      const s = summarize(signals.filter((x) => x.edgeCents >= edge))
      const i = s.profitAfterFeeInterval
      return {
        edge,
        signals: s.signals,
        profitAfterFeeCents: s.profitPerContractAfterFeeCents,
        se: i ? (i.high - i.low) / (2 * Z95) : null,
      }
    })
    const lastMinute = scored.filter((x) => x.minute === 14)
    const cheapLost = lastMinute.filter((x) => x.entryPriceCents < 50 && x.outcome === 'loss')
    const longShots = rows.filter((x) => {
      const up = oracle(x)
      if (up === null || x.entryPriceCents >= LONG_SHOT_CENTS) return false
      const truth = x.side === 'up' ? up : 1 - up
      return x.confidence / 100 > truth + 0.001
    }).length
    let latestMs = 0
    let duringPause = 0
    for (const r of rows) {
      const boundary = r.opensAt + r.minute * 60_000
      const seen = Math.max(r.raisedAt, r.inputs?.spotObservedAt ?? 0, r.inputs?.bookObservedAt ?? 0)
      latestMs = Math.max(latestMs, seen - boundary)
      if (!world.tradingActive(r.raisedAt)) duringPause++
    }
    const mid = report.overall.mid
    return {
      version: report.modelVersions.join(', '),
      readings: report.overall.readings,
      logLoss: report.overall.model.logLoss,
      brier: report.overall.model.brier.value,
      slopeByBucket: Object.fromEntries(
        report.byBucket.map((b) => [b.label, b.model.calibration?.slope.value ?? null]),
      ),
      money,
      cheapSideLoss: { signals: lastMinute.length, lost: cheapLost.length },
      longShotArtefacts: longShots,
      latestMs,
      duringPause,
      skipped,
      replayWallMs,
      evaluateWallMs,
      mid: mid
        ? {
            logLoss: mid.logLoss.value,
            brier: mid.brier.value,
            slopeByBucket: Object.fromEntries(
              report.byBucket.map((b) => [b.label, b.mid?.calibration?.slope.value ?? null]),
            ),
          }
        : null,
      midDifference: mid?.difference.logLoss ?? null,
      oracle: report.overall.oracle
        ? { logLoss: report.overall.oracle.logLoss.value, brier: report.overall.oracle.brier.value }
        : null,
      gapClosed: report.gapClosed,
      tails: report.tails.model.map(cardTailRow),
    }
  }

  // paired v2 − v1 on the readings both raised, by the published probabilities
  const v1ByKey = new Map(graded.v1.map((g) => [`${g.ticker}#${g.minute}`, g]))
  const diffs: number[] = []
  const clusters: string[] = []
  const ll = (g: GradedReading) => {
    const up = g.side === 'up' ? g.confidence / 100 : 1 - g.confidence / 100
    const q = Math.min(0.999, Math.max(0.001, g.settledSide === 'up' ? up : 1 - up))
    return -Math.log(q)
  }
  for (const g of graded.v2) {
    if (g.settledSide === null) continue
    const other = v1ByKey.get(`${g.ticker}#${g.minute}`)
    if (!other) continue
    diffs.push(ll(g) - ll(other))
    clusters.push(g.ticker)
  }
  const result: SeedFigures = {
    seed,
    contests,
    tapeBytes: statSync(tape).size,
    tapeWallMs,
    v1: figures.v1,
    v2: figures.v2,
    v2MinusV1: clusteredMean(diffs, clusters),
  }
  writeFileSync(values.part as string, `${JSON.stringify(result, null, 2)}\n`)
}

function writeCard(seeds: number[], figures: SeedFigures[]): void {
  const lines: string[] = []
  lines.push(
    `Held-out sandbox seeds ${seeds.join(', ')}, ${days} days each from ${values.from} (the fit saw ${trainingText(V2_PARAMS.training)}); v2 is \`${figures[0]?.v2.version}\`. Each seed: \`sim tape\` → \`replay\` (once per model) → \`evaluate --sim-seed\`. ± is one standard error clustered by contest.`,
    '',
    '| seed | readings | model | log loss | Brier | slope 1–2 | slope 3–7 | slope 8–14 | fee-net ¢/contract at edge ≥ 0 / 2 / 5 / 10 ¢ (signals) | minute-14 signals on the cheap side that lost | long-shot artefacts |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  )
  for (const s of figures) {
    for (const key of ['v1', 'v2'] as const) {
      const m = s[key]
      lines.push(
        `| ${s.seed} | ${m.readings} | ${key} | ${pm(m.logLoss)} | ${f(m.brier)} | ${BUCKETS.map((b) => f(m.slopeByBucket[b], 2)).join(' | ')} | ${m.money.map((x) => `${f(x.profitAfterFeeCents, 2)} ± ${f(x.se, 2)} (${x.signals})`).join(' / ')} | ${m.cheapSideLoss.signals === 0 ? '–' : `${f((100 * m.cheapSideLoss.lost) / m.cheapSideLoss.signals, 1)} % of ${m.cheapSideLoss.signals}`} | ${m.longShotArtefacts} |`,
      )
    }
    const mid = s.v2.mid
    if (mid)
      lines.push(
        `| ${s.seed} | | venue mid | ${f(mid.logLoss)} | ${f(mid.brier)} | ${BUCKETS.map((b) => f(mid.slopeByBucket[b], 2)).join(' | ')} | | | |`,
      )
    if (s.v2.oracle)
      lines.push(`| ${s.seed} | | oracle | ${f(s.v2.oracle.logLoss)} | ${f(s.v2.oracle.brier)} | | | | | | |`)
  }
  lines.push(
    '',
    "| seed | v2 − v1 log loss (paired) | in SEs | v2 − mid log loss (paired) | share of the mid's gap to the oracle v2 closes | share of v1's gap to the oracle v2 closes | latest reading after its boundary (v1 / v2) | readings in a pause | skipped minutes (v2) | evaluate wall time (v1 / v2) |",
    '|---|---|---|---|---|---|---|---|---|---|',
  )
  for (const s of figures) {
    const d = s.v2MinusV1
    // issue 29's measure: how much of v1's excess log loss over the referee (on v1's readings) v2 removes
    const v1Gap = s.v1.oracle ? s.v1.logLoss.value - s.v1.oracle.logLoss : null
    const v1GapClosed = v1Gap !== null && v1Gap > 0 ? -d.value / v1Gap : null
    lines.push(
      `| ${s.seed} | ${pm(d, 5)} | ${d.se ? f(d.value / d.se, 1) : '–'} | ${pm(s.v2.midDifference, 5)} | ${s.v2.gapClosed === null ? '–' : `${f(100 * s.v2.gapClosed, 1)} %`} | ${v1GapClosed === null ? '–' : `${f(100 * v1GapClosed, 1)} %`} | ${f(s.v1.latestMs / 1000, 1)} / ${f(s.v2.latestMs / 1000, 1)} s (limit ${MAX_LATE_MS / 1000} s) | ${s.v1.duringPause + s.v2.duringPause} | ${
        Object.entries(s.v2.skipped)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') || 'none'
      } | ${f(s.v1.evaluateWallMs / 1000, 1)} / ${f(s.v2.evaluateWallMs / 1000, 1)} s |`,
    )
  }
  lines.push('', ...tailLines(figures))
  const table = lines.join('\n')

  writeFileSync(
    values.json,
    `${JSON.stringify({ seeds, from: values.from, days, training: V2_PARAMS.training, figures }, null, 2)}\n`,
  )
  let card = readFileSync(values.card, 'utf8')
  card = replaceBlock(card, 'model:card', table, values.card)
  card = replaceBlock(card, 'model:params', paramsTable(), values.card)
  writeFileSync(values.card, card)
  log(`wrote ${values.card} and ${values.json}`)
}

/**
 * The tail table (issue 29's gate: realised/claimed in [0.8, 1.25] where ≥ 20 wins are claimed), seeds
 * pooled, the ratio ± its SE clustered by contest (a contest's readings share one outcome).
 */
function tailLines(figures: SeedFigures[]): string[] {
  const out = [
    'Tails, seeds pooled: claimed → realised long-shot wins (realised / claimed ± SE clustered by contest; contests in the bucket) by bucket of claimed P(up).',
    '',
    `| model | ${(figures[0]?.v2.tails ?? []).map((t) => t.label).join(' | ')} |`,
    `|---|${(figures[0]?.v2.tails ?? []).map(() => '---|').join('')}`,
  ]
  for (const key of ['v1', 'v2'] as const) {
    const cells = (figures[0]?.[key].tails ?? []).map(({ label }) => {
      const row = pooledCardTail(
        figures.map((s) => s[key].tails),
        label,
      )
      return row ? pooledTailText(row) : '–'
    })
    out.push(`| ${key} | ${cells.join(' | ')} |`)
  }
  return out
}
