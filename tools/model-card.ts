// `npm run model:card`: the held-out table of docs/model.md. On sandbox seeds the fit never saw, every
// reading the engine would make (its own reading step, at the boundary plus the backfill's latency)
// is priced by v1 and v2 from the same observations and scored by the evaluate module against the
// outcome, beside the venue's mid and the sandbox's oracle; money by the backtest module, net of the
// taker fee. Writes docs/model-card.json and the table between the markers in docs/model.md.
// Usage: node tools/model-card.ts [--seeds 2001,2002,2003] [--from 2026-09-01] [--days 30]
import { readFileSync, writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { type BacktestSignal, summarize, Z95 } from '../src/domain/backtest.ts'
import { clusteredMean, type EvaluationReport, evaluateReadings } from '../src/domain/evaluation.ts'
import type { GradedReading } from '../src/domain/graded-reading.ts'
import { chooseSide, gbmEwma1Model } from '../src/domain/model.ts'
import type { ReadingModel } from '../src/domain/reading-model.ts'
import { createReadingModel, DEFAULT_MODEL, V2_PARAMS } from '../src/model/models.ts'
import { forEachSandboxReading, sandboxWorld } from './sandbox-readings.ts'

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '2001,2002,2003' },
    from: { type: 'string', default: '2026-09-01' },
    days: { type: 'string', default: '30' },
    card: { type: 'string', default: 'docs/model.md' },
    json: { type: 'string', default: 'docs/model-card.json' },
  },
})
const seeds = values.seeds.split(',').map(Number)
const from = Date.parse(`${values.from}T00:00:00Z`)
const days = Number(values.days)
const log = (msg: string) => process.stderr.write(`model:card: ${msg}\n`)
const EDGES = [0, 2, 5, 10] as const
const BUCKETS = ['1–2', '3–7', '8–14'] as const
const MAX_LATE_MS = 10_000

const overlap = V2_PARAMS.training.seeds.filter((s) => seeds.includes(s))
if (overlap.length > 0) throw new Error(`held-out seeds ${overlap.join(', ')} were in the fit`)

const models: { key: 'v1' | 'v2'; model: ReadingModel }[] = [
  { key: 'v1', model: gbmEwma1Model },
  { key: 'v2', model: createReadingModel(DEFAULT_MODEL) },
]

type Money = { edge: number; signals: number; profitAfterFeeCents: number | null; se: number | null }
type ModelFigures = {
  version: string
  logLoss: number
  logLossSe: number | null
  brier: number
  slopeByBucket: Record<string, number | null>
  logLossByBucket: Record<string, number | null>
  money: Money[]
  /** of all minute-14 signals, those on the cheap side (entry < 50 ¢) that lost */
  cheapSideLoss: { signals: number; lost: number }
  /** entry < 2 ¢ and confidence above the side's true probability by more than the 0.1 ¢ tick */
  longShotArtefacts: number | null
  report: EvaluationReport
}
type SeedFigures = {
  seed: number
  contests: number
  readings: number
  skips: Record<string, number>
  latestMs: number
  duringPause: number
  v1: ModelFigures
  v2: ModelFigures
  /** v2 − v1 log loss, paired per reading, SE clustered by contest */
  v2MinusV1: { value: number; se: number | null }
  mid: { logLoss: number; brier: number; slopeByBucket: Record<string, number | null> }
  oracle: { logLoss: number; brier: number } | null
}

const figures: SeedFigures[] = []
for (const seed of seeds) {
  const world = sandboxWorld(seed)
  const graded: Record<'v1' | 'v2', GradedReading[]> = { v1: [], v2: [] }
  const oracleOf = new Map<string, number>()
  let latestMs = 0
  let duringPause = 0
  const started = Date.now()
  const run = await forEachSandboxReading(world, { from, days }, (r) => {
    if (r.settledSide === null) return
    latestMs = Math.max(latestMs, r.at - (r.opensAt + r.minute * 60_000))
    if (r.phase === 'paused') duringPause++
    if (r.oracle !== null) oracleOf.set(`${r.ticker}#${r.minute}`, r.oracle)
    for (const { key, model } of models) {
      const out = model.probabilityUp(r.inputs)
      const reading = chooseSide(out.probabilityUp, r.quote)
      if (!reading) continue
      graded[key].push({
        ticker: r.ticker,
        minute: r.minute,
        raisedAt: r.at,
        ...reading,
        outcome: reading.side === r.settledSide ? 'win' : 'loss',
        modelVersion: model.version,
        opensAt: r.opensAt,
        expiresAt: r.expiresAt,
        settledSide: r.settledSide,
        inputs: {
          spotObservedAt: r.inputs.spotObservedAt,
          bookObservedAt: r.at,
          spotDollars: r.inputs.spotDollars,
          freshSources: r.freshSources,
          upAskCents: r.quote.upAskCents,
          downAskCents: r.quote.downAskCents,
          sigmaPerMinute: out.sigmaPerMinute,
          effectiveMinutes: out.effectiveMinutes,
          probabilityUp: out.probabilityUp,
        },
      })
    }
  })
  log(
    `seed ${seed}: ${run.contests} contests, ${run.readings} readings in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  )
  const oracle =
    oracleOf.size > 0 ? (g: GradedReading) => oracleOf.get(`${g.ticker}#${g.minute}`) ?? null : undefined
  const figuresOf = (key: 'v1' | 'v2'): ModelFigures => {
    const rows = graded[key]
    const report = evaluateReadings({ series: 'KXBTC15M', readings: rows, ...(oracle ? { oracle } : {}) })
    const signals: BacktestSignal[] = rows
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
    const lastMinute = rows.filter((x) => x.minute === 14)
    const cheapLost = lastMinute.filter((x) => x.entryPriceCents < 50 && x.outcome === 'loss')
    const longShots = oracle
      ? rows.filter((x) => {
          const up = oracle(x)
          if (up === null || x.entryPriceCents >= 2) return false
          const truth = x.side === 'up' ? up : 1 - up
          return x.confidence / 100 > truth + 0.001
        }).length
      : null
    return {
      version: rows[0]?.modelVersion ?? 'none',
      logLoss: report.overall.model.logLoss.value,
      logLossSe: report.overall.model.logLoss.se,
      brier: report.overall.model.brier.value,
      slopeByBucket: Object.fromEntries(
        report.byBucket.map((b) => [b.label, b.model.calibration?.slope.value ?? null]),
      ),
      logLossByBucket: Object.fromEntries(report.byBucket.map((b) => [b.label, b.model.logLoss.value])),
      money,
      cheapSideLoss: { signals: lastMinute.length, lost: cheapLost.length },
      longShotArtefacts: longShots,
      report,
    }
  }
  const v1 = figuresOf('v1')
  const v2 = figuresOf('v2')
  // paired v2 − v1 on the readings both made
  const v1ByKey = new Map(graded.v1.map((g) => [`${g.ticker}#${g.minute}`, g]))
  const diffs: number[] = []
  const clusters: string[] = []
  const ll = (g: GradedReading) => {
    const up = g.side === 'up' ? g.confidence / 100 : 1 - g.confidence / 100
    const q = Math.min(0.999, Math.max(0.001, g.settledSide === 'up' ? up : 1 - up))
    return -Math.log(q)
  }
  for (const g of graded.v2) {
    const other = v1ByKey.get(`${g.ticker}#${g.minute}`)
    if (!other) continue
    diffs.push(ll(g) - ll(other))
    clusters.push(g.ticker)
  }
  const mid = v2.report.overall.mid
  figures.push({
    seed,
    contests: run.contests,
    readings: run.readings,
    skips: run.skips as Record<string, number>,
    latestMs,
    duringPause,
    v1,
    v2,
    v2MinusV1: clusteredMean(diffs, clusters),
    mid: {
      logLoss: mid?.logLoss.value ?? Number.NaN,
      brier: mid?.brier.value ?? Number.NaN,
      slopeByBucket: Object.fromEntries(
        v2.report.byBucket.map((b) => [b.label, b.mid?.calibration?.slope.value ?? null]),
      ),
    },
    oracle: v2.report.overall.oracle
      ? { logLoss: v2.report.overall.oracle.logLoss.value, brier: v2.report.overall.oracle.brier.value }
      : null,
  })
}

// ---- the table
const f = (x: number | null | undefined, d = 4) =>
  x === null || x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(d)
const pm = (x: number, se: number | null, d = 4) => `${f(x, d)} ± ${f(se, d)}`
const lines: string[] = []
lines.push(
  `Held-out sandbox seeds ${seeds.join(', ')}, ${days} days each from ${values.from} (the fit saw seeds ${V2_PARAMS.training.seeds.join(', ') || 'none'}); v2 is \`${models[1]?.model.version}\`. ± is one standard error clustered by contest.`,
  '',
  '| seed | readings | model | log loss | Brier | slope 1–2 | slope 3–7 | slope 8–14 | fee-net ¢/contract at edge ≥ 0 / 2 / 5 / 10 ¢ (signals) | minute-14 signals on the cheap side that lost | long-shot artefacts |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
)
for (const s of figures) {
  for (const key of ['v1', 'v2'] as const) {
    const m = s[key]
    lines.push(
      `| ${s.seed} | ${s.readings} | ${key} | ${pm(m.logLoss, m.logLossSe)} | ${f(m.brier)} | ${BUCKETS.map((b) => f(m.slopeByBucket[b], 2)).join(' | ')} | ${m.money.map((x) => `${f(x.profitAfterFeeCents, 2)} ± ${f(x.se, 2)} (${x.signals})`).join(' / ')} | ${m.cheapSideLoss.signals === 0 ? '–' : `${f((100 * m.cheapSideLoss.lost) / m.cheapSideLoss.signals, 1)} % of ${m.cheapSideLoss.signals}`} | ${m.longShotArtefacts ?? '–'} |`,
    )
  }
  lines.push(
    `| ${s.seed} | | venue mid | ${f(s.mid.logLoss)} | ${f(s.mid.brier)} | ${BUCKETS.map((b) => f(s.mid.slopeByBucket[b], 2)).join(' | ')} | | | |`,
  )
  if (s.oracle)
    lines.push(`| ${s.seed} | | oracle | ${f(s.oracle.logLoss)} | ${f(s.oracle.brier)} | | | | | | |`)
}
lines.push(
  '',
  "| seed | v2 − v1 log loss (paired) | in SEs | v2 − mid log loss (paired) | share of the mid's gap to the oracle v2 closes | latest reading after its boundary | readings in a pause | skipped minutes |",
  '|---|---|---|---|---|---|---|---|',
)
for (const s of figures) {
  const d = s.v2.report.overall.mid?.difference.logLoss
  lines.push(
    `| ${s.seed} | ${pm(s.v2MinusV1.value, s.v2MinusV1.se, 5)} | ${s.v2MinusV1.se ? f(s.v2MinusV1.value / s.v2MinusV1.se, 1) : '–'} | ${d ? pm(d.value, d.se, 5) : '–'} | ${s.v2.report.gapClosed === null ? '–' : `${f(100 * s.v2.report.gapClosed, 1)} %`} | ${f(s.latestMs / 1000, 1)} s (limit ${MAX_LATE_MS / 1000} s) | ${s.duringPause} | ${
      Object.entries(s.skips)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none'
    } |`,
  )
}
const table = lines.join('\n')

writeFileSync(
  values.json,
  `${JSON.stringify(
    {
      seeds,
      from: values.from,
      days,
      training: V2_PARAMS.training,
      figures: figures.map(({ v1, v2, ...rest }) => ({
        ...rest,
        v1: { ...v1, report: undefined },
        v2: { ...v2, report: undefined },
      })),
    },
    null,
    2,
  )}\n`,
)
const P = V2_PARAMS
const paramLines = [
  `\`${models[1]?.model.version}\`, fitted on sandbox seeds ${P.training.seeds.join(', ')}, ${P.training.days} days each from ${P.training.from} (${P.training.readings} readings):`,
  '',
  '| parameter | value |',
  '|---|---|',
  `| σ̄ (per minute, deseasonalised) | ${P.sigmaBar} |`,
  `| hour-of-day sd factors, 00–23 UTC | ${P.seasonal.hour.map((h) => h.toFixed(2)).join(' ')} |`,
  `| minute-of-hour sd factors | :00 ${P.seasonal.minute.hour}, :15/:30/:45 ${P.seasonal.minute.quarter}, other 5-minute marks ${P.seasonal.minute.five}, the rest ${P.seasonal.minute.other} |`,
  `| weekend sd factor | ${P.seasonal.weekend} |`,
  `| volatility level | fast EWMA half-life ${P.variance.fastHalfLifeMin} min × ${P.variance.fastWeight}, slow ${P.variance.slowHalfLifeMin} min × ${P.variance.slowWeight}, long-run level × ${Math.max(0, 1 - P.variance.fastWeight - P.variance.slowWeight).toFixed(2)}; returns clipped at ${P.variance.winsorSd} sd |`,
  `| variance scale | ${P.variance.scale} |`,
  `| Student t ν | ${P.nu >= 1000 ? `${P.nu} (the normal)` : P.nu} |`,
  `| basis | mean of ${P.basis.samples} strikes' samples + ${P.basis.shrink} zero; error variance ${P.basis.variance} (sd ${(1e4 * Math.sqrt(P.basis.variance)).toFixed(2)} bp) |`,
  ...P.pool.map(
    (b) =>
      `| pooling, ${b.fromMinutesLeft === b.toMinutesLeft ? b.fromMinutesLeft : `${b.fromMinutesLeft}–${b.toMinutesLeft}`} min left | logit p = ${b.intercept} + ${b.model}·logit(model) + ${b.mid}·logit(mid) |`,
  ),
].join('\n')

let card = readFileSync(values.card, 'utf8')
const replaceBlock = (name: string, body: string): void => {
  const start = `<!-- ${name} start -->`
  const end = `<!-- ${name} end -->`
  const a = card.indexOf(start)
  const b = card.indexOf(end)
  if (a < 0 || b < a) throw new Error(`${values.card} has no ${start} … ${end} markers`)
  card = `${card.slice(0, a + start.length)}\n${body}\n${card.slice(b)}`
}
replaceBlock('model:card', table)
replaceBlock('model:params', paramLines)
writeFileSync(values.card, card)
log(`wrote ${values.card} and ${values.json}`)
