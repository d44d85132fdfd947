// `npm run model:card:real [-- DIR]`: the model card on real KXBTC15M contests (docs/model.md, "On
// real contests"), computed at run time from the recorded research files in DIR (default
// ../shared/real-data; no licence: nothing of them is committed, only the figures measured here).
// Walk-forward, through the path a user takes: the files become minute-grained tapes
// (real-data-tapes.ts); on the contests expiring by T (about 60 % of them) `fit:model --base --minute-tapes
// --until T` refits the shipped file's one-minute pool (stage E: the shipped file's own was fitted on
// every contest here, so it is never judged here) and `fit:model --tapes --until T` refits v2 whole;
// `replay` runs the engine on the tapes once per model (v2 as shipped with that walk-forward pool,
// v2 refitted whole, v2 without the one-minute pool — the sandbox fit alone — and v1) into fresh
// stores; `contest-signals evaluate
// --train-until T --json [--against]` judges the readings after T against the raw mid, the mid
// recalibrated on the readings before T, the model alone and the other models, clustered by contest,
// with day-block bootstrap intervals and the tail table. Money is the backtest module on the same
// judged readings. Writes the block between the model:card:real markers of docs/model.md.
// Usage: node tools/model-card-real.ts [DIR] [--work DIR] [--train-share 0.6] [--card docs/model.md]
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { type BacktestSignal, summarize, Z95 } from '../src/domain/backtest.ts'
import { MIN_BOOTSTRAP_DAYS } from '../src/domain/bootstrap.ts'
import type { EvaluationGroup, EvaluationReport } from '../src/domain/evaluation.ts'
import { MODEL_VERSION as V1_NAME } from '../src/domain/model.ts'
import type { Estimate } from '../src/domain/scores.ts'
import { type TailRow, tailRatioText } from '../src/domain/tail-table.ts'
import { runReplay } from '../src/main/replay.ts'
import { systemClock } from '../src/main/system-clock.ts'
import { createReadingModel, V2_PARAMS } from '../src/model/models.ts'
import { checkModelV2Params, type ModelV2Params } from '../src/model/params.ts'
import { createSettlementMeanModel } from '../src/model/settlement-mean-model.ts'
import type { Logger } from '../src/ports/logger.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { f, pm } from './card-text.ts'
import { replaceBlock } from './model-params-table.ts'
import { HistoryInputError } from './real-data/kalshi-minute-history.ts'
import { buildRealDataTapes, builtLine, DEFAULT_REAL_DATA } from './real-data-tapes.ts'
import { parseToolArgs } from './tool-args.ts'

const { values, positionals } = parseToolArgs(
  'model:card:real',
  'the real-contest card from ../shared/real-data (or the folder given first), walk-forward (docs/model.md)',
  {
    allowPositionals: true,
    options: {
      work: { type: 'string' },
      'train-share': { type: 'string', default: '0.6' },
      card: { type: 'string', default: path.join(import.meta.dirname, '..', 'docs', 'model.md') },
    },
  },
)
const SERIES = 'KXBTC15M'
const ROOT = path.join(import.meta.dirname, '..')
/** the shipped parameter file, whose stages A–D the walk-forward keeps */
const SHIPPED_PARAMS = path.join(ROOT, 'src', 'model', 'params', 'settle-mean-t-2.json')
const EDGES = [0, 2, 5, 10] as const
const BUCKETS = ['1–2', '3–7', '8–14'] as const
const quiet: Logger = { info() {}, warn() {}, error() {}, debug() {} }
const log = (msg: string) => process.stderr.write(`model:card:real: ${msg}\n`)

const dataDir = positionals[0] ?? DEFAULT_REAL_DATA
const ownWork = values.work === undefined
const work = values.work ?? mkdtempSync(path.join(tmpdir(), 'cs-model-card-real-'))
mkdirSync(work, { recursive: true })
const tapes = path.join(work, 'tapes')
rmSync(tapes, { recursive: true, force: true })
const built = await buildRealDataTapes(dataDir, tapes).catch((err: unknown) => {
  // a folder missing or unreadable is one line, as the CLI's own input errors
  if (!(err instanceof HistoryInputError || (err as NodeJS.ErrnoException).code)) throw err
  if (ownWork) rmSync(work, { recursive: true, force: true })
  log(`${(err as Error).message} (give the real-data folder first: npm run model:card:real -- DIR)`)
  process.exit(1)
})
log(builtLine(built))

// ---- the walk-forward split: fit on the contests expiring by T, judge the readings from T on
const share = Number(values['train-share'])
const trainCount = Math.round(share * built.contestCloses.length)
const trainUntil = built.contestCloses[trainCount - 1] as number
const iso = (ms: number) => new Date(ms).toISOString()
log(
  `training: the ${trainCount} contests expiring by ${iso(trainUntil)}; judged: the ${built.contests - trainCount} after`,
)
/** `fit:model` with `args` on the training part: the parameter file it writes. */
function fitOnTraining(name: string, args: readonly string[]): ModelV2Params {
  const out = path.join(work, name)
  execFileSync(
    process.execPath,
    [path.join(ROOT, 'tools', 'fit-model.ts'), ...args, '--until', iso(trainUntil), '--out', out],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  )
  return checkModelV2Params(JSON.parse(readFileSync(out, 'utf8')))
}
const realParams = fitOnTraining('params-real.json', ['--tapes', tapes])
const shippedWalkForward = fitOnTraining('params-minute-pool.json', [
  '--base',
  SHIPPED_PARAMS,
  '--minute-tapes',
  tapes,
])
const { returnsOnlyPool: _, ...sandboxAlone } = V2_PARAMS

const MODELS = [
  {
    key: 'v2-shipped',
    label: 'v2 as shipped, its one-minute pool fitted on the real training part',
    model: createSettlementMeanModel(shippedWalkForward),
  },
  {
    key: 'v2-real',
    label: 'v2 refitted whole on the real training part',
    model: createSettlementMeanModel(realParams),
  },
  {
    key: 'v2-sandbox',
    label: 'v2 without the one-minute pool (the sandbox fit alone)',
    model: createSettlementMeanModel(sandboxAlone),
  },
  { key: 'v1', label: 'v1', model: createReadingModel(V1_NAME) },
] as const
type Key = (typeof MODELS)[number]['key']
const storeOf = (key: Key) => path.join(work, `store-${key}.db`)

type Money = { edge: number; signals: number; cents: number | null; se: number | null }
const money: Partial<Record<Key, Money[]>> = {}
const versions: Partial<Record<Key, string>> = {}
for (const { key, model } of MODELS) {
  const db = storeOf(key)
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${db}${suffix}`, { force: true })
  const store = createSqliteStore(db)
  await store.migrate()
  const summary = await runReplay({
    tapePath: tapes,
    store,
    logger: quiet,
    spotMaxAgeMs: 10_000,
    model,
    readingMaxLateMs: 10_000,
    wallClock: systemClock,
  })
  if (summary.stopped) throw new Error(`replay stopped: ${summary.stopped.problem}`)
  const judged = (await store.listGradedReadings({ series: SERIES })).filter(
    (r) => r.raisedAt >= trainUntil && (r.outcome === 'win' || r.outcome === 'loss'),
  )
  await store.close()
  versions[key] = model.version
  money[key] = EDGES.map((edge) => {
    const s = summarize(judged.filter((x) => x.edgeCents >= edge) as BacktestSignal[])
    const i = s.profitAfterFeeInterval
    return {
      edge,
      signals: s.signals,
      cents: s.profitPerContractAfterFeeCents,
      se: i ? (i.high - i.low) / (2 * Z95) : null,
    }
  })
  log(
    `${key}: ${summary.opened} contests replayed, ${summary.signals} signals, skipped ${JSON.stringify(summary.skipped)}`,
  )
}

/** `contest-signals evaluate` itself on a replayed store, as a user runs it. */
function evaluate(key: Key, against?: Key): EvaluationReport {
  const args = ['evaluate', '--series', SERIES, '--train-until', iso(trainUntil), '--json']
  if (against) args.push('--against', `sqlite:${storeOf(against)}`)
  const out = execFileSync(process.execPath, [path.join(ROOT, 'src', 'cli', 'main.ts'), ...args], {
    env: { ...process.env, DATABASE_URL: `sqlite:${storeOf(key)}`, LOG_LEVEL: 'silent' },
    maxBuffer: 64 << 20,
    encoding: 'utf8',
  })
  return JSON.parse(out) as EvaluationReport
}
const main = evaluate('v2-shipped', 'v1')
const vsReal = evaluate('v2-shipped', 'v2-real')
const vsSandbox = evaluate('v2-shipped', 'v2-sandbox')
const real = evaluate('v2-real')
const sandbox = evaluate('v2-sandbox')
const v1 = evaluate('v1')
writeCard()

function writeCard(): void {
  const withBootstrap = main.bootstrap.days >= MIN_BOOTSTRAP_DAYS
  const diff = (d: (Estimate & { interval?: { low: number; high: number } | null }) | null | undefined) =>
    d
      ? `${f(d.value, 4)} ± ${f(d.se, 4)} (${d.se ? f(d.value / d.se, 1) : '–'} SE)${d.interval && withBootstrap ? ` [${f(d.interval.low, 4)}, ${f(d.interval.high, 4)}]` : ''}`
      : '–'
  const slopes = (
    report: EvaluationReport,
    pick: (g: EvaluationGroup) => { calibration: { slope: Estimate } | null } | null,
  ) =>
    BUCKETS.map((b) => {
      const g = report.byBucket.find((x) => x.label === b)
      return f(g ? pick(g)?.calibration?.slope.value : null, 2)
    }).join(' | ')
  const o = main.overall
  const judgedContests = built.contests - trainCount
  const lines = [
    `Development set: ${built.contests} consecutive real KXBTC15M contests (${iso((built.contestCloses[0] as number) - 15 * 60_000)} – ${iso(built.contestCloses.at(-1) as number)}), Kalshi's one-minute quote candles and Coinbase's one-minute closes, built into minute-grained tapes at run time (\`npm run model:card:real\`; the files are never committed). Walk-forward: on the ${trainCount} contests expiring by ${iso(trainUntil)} the shipped file's one-minute pool refitted (\`fit:model --base … --minute-tapes … --until\`; the shipped file's own pool saw every contest here, so it is not judged here) and v2 refitted whole (\`fit:model --tapes … --until\`), the mid recalibrated on their readings (${main.recalibration?.readings ?? 0}); judged: the ${o.readings} readings of the ${judgedContests} contests after, over ${main.bootstrap.days} UTC days. ± one standard error clustered by contest${withBootstrap ? `; [ ] a day-block bootstrap 95 % interval (${main.bootstrap.draws} draws over ${main.bootstrap.days} days)` : ` (no day-block bootstrap interval: the judged readings span ${main.bootstrap.days} UTC days, too few blocks to resample)`}. Versions: v2 as shipped with the walk-forward pool \`${versions['v2-shipped']}\`, refitted whole \`${versions['v2-real']}\`, without the one-minute pool \`${versions['v2-sandbox']}\`, v1 \`${versions.v1}\`.`,
    '',
    '| forecaster | readings | log loss | Brier | slope 1–2 | slope 3–7 | slope 8–14 | v2 as shipped (walk-forward pool) − this, log loss paired |',
    '|---|---|---|---|---|---|---|---|',
    `| v2 as shipped, its one-minute pool fitted on the training part | ${o.readings} | ${pm(o.model.logLoss)} | ${f(o.model.brier.value)} | ${slopes(main, (g) => g.model)} | |`,
    `| v2 refitted whole on the training part | ${real.overall.readings} | ${pm(real.overall.model.logLoss)} | ${f(real.overall.model.brier.value)} | ${slopes(real, (g) => g.model)} | ${diff(vsReal.against?.difference.logLoss)} (${vsReal.against?.matched ?? 0} matched) |`,
    `| v2 without the one-minute pool (sandbox fit alone) | ${sandbox.overall.readings} | ${pm(sandbox.overall.model.logLoss)} | ${f(sandbox.overall.model.brier.value)} | ${slopes(sandbox, (g) => g.model)} | ${diff(vsSandbox.against?.difference.logLoss)} (${vsSandbox.against?.matched ?? 0} matched) |`,
    `| v1 | ${v1.overall.readings} | ${pm(v1.overall.model.logLoss)} | ${f(v1.overall.model.brier.value)} | ${slopes(v1, (g) => g.model)} | ${diff(main.against?.difference.logLoss)} (${main.against?.matched ?? 0} matched) |`,
    `| raw mid | ${o.mid?.readings ?? 0} | ${pm(o.mid?.logLoss)} | ${f(o.mid?.brier.value)} | ${slopes(main, (g) => g.mid)} | ${diff(o.mid?.difference.logLoss)} |`,
    `| recalibrated mid | ${o.recalibratedMid?.readings ?? 0} | ${pm(o.recalibratedMid?.logLoss)} | ${f(o.recalibratedMid?.brier.value)} | ${slopes(main, (g) => g.recalibratedMid)} | ${diff(o.recalibratedMid?.difference.logLoss)} |`,
    `| v2 as shipped, the model alone (the sandbox fit's dynamics) | ${o.modelAlone?.readings ?? 0} | ${pm(o.modelAlone?.logLoss)} | ${f(o.modelAlone?.brier.value)} | ${slopes(main, (g) => g.modelAlone)} | ${diff(o.modelAlone?.difference.logLoss)} |`,
    `| v2 refitted whole, the model alone | ${real.overall.modelAlone?.readings ?? 0} | ${pm(real.overall.modelAlone?.logLoss)} | ${f(real.overall.modelAlone?.brier.value)} | ${slopes(real, (g) => g.modelAlone)} | |`,
    '',
    `Paired on their own readings — v2 refitted whole: − raw mid ${diff(real.overall.mid?.difference.logLoss)}; − recalibrated mid ${diff(real.overall.recalibratedMid?.difference.logLoss)}. v2 without the one-minute pool: − raw mid ${diff(sandbox.overall.mid?.difference.logLoss)}; − recalibrated mid ${diff(sandbox.overall.recalibratedMid?.difference.logLoss)}. By minutes left, v2 as shipped (walk-forward pool) − the recalibrated mid, log loss paired: ${main.byBucket.map((g) => `${g.label}: ${diff(g.recalibratedMid?.difference.logLoss)}`).join('; ')}. The recalibration fitted on the training part, logit P(up) = a + b·logit(mid): ${(main.recalibration?.buckets ?? []).map((b) => `${b.label} min left a ${pm(b.intercept, 2)}, b ${pm(b.slope, 2)}`).join('; ')}.`,
    '',
    '**Tails** (judged readings): realised / claimed wins of the long shot = the ratio ± its SE clustered by contest, by claimed P(up) (readings and contests in the bucket).',
    '',
    '| claimed P(up) | v2 as shipped (walk-forward pool) | raw mid | recalibrated mid | v2, the model alone |',
    '|---|---|---|---|---|',
    ...main.tails.model.map((row, i) => {
      const cell = (r: TailRow | undefined) =>
        r && r.readings > 0
          ? `${f(r.realised, 0)} / ${f(r.claimed, 2)} = ${tailRatioText(r)} (${r.readings} readings, ${r.contests} contests)`
          : '–'
      return `| ${row.label} | ${cell(row)} | ${cell(main.tails.mid[i])} | ${cell(main.tails.recalibratedMid?.[i])} | ${cell(main.tails.modelAlone[i])} |`
    }),
    '',
    '**Money** on the judged readings: one contract per signal at its ask, net of the taker fee, ¢ per contract ± one SE clustered by contest (signals).',
    '',
    '| model | edge ≥ 0 ¢ | edge ≥ 2 ¢ | edge ≥ 5 ¢ | edge ≥ 10 ¢ |',
    '|---|---|---|---|---|',
    ...MODELS.map(
      ({ key, label }) =>
        `| ${label} | ${(money[key] ?? []).map((m) => `${f(m.cents, 2)} ± ${f(m.se, 2)} (${m.signals})`).join(' | ')} |`,
    ),
  ]
  const card = readFileSync(values.card, 'utf8')
  writeFileSync(values.card, replaceBlock(card, 'model:card:real', lines.join('\n'), values.card))
  log(`wrote ${values.card} (work directory ${work})`)
}
