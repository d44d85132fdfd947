// The text form of `contest-signals evaluate`: one table per grouping, the model beside its
// benchmarks (the mid, the recalibrated mid, the model alone, the oracle), every mean with its
// contest-clustered standard error and every paired difference with its day-block bootstrap interval.
import { type Interval, MIN_BOOTSTRAP_DAYS } from '../domain/bootstrap.ts'
import type { Benchmark, EvaluationGroup, EvaluationReport, TailTables } from '../domain/evaluation.ts'
import type { PairedDifference } from '../domain/paired-comparison.ts'
import type { Estimate, Scores } from '../domain/scores.ts'
import { type TailRow, tailRatioText } from '../domain/tail-table.ts'

const f = (x: number, digits = 4): string => (Number.isFinite(x) ? x.toFixed(digits) : '–')
const est = (e: Estimate | null | undefined, digits = 4): string =>
  e && Number.isFinite(e.value) ? `${f(e.value, digits)} ± ${e.se === null ? '–' : f(e.se, digits)}` : '–'
const interval = (i: Interval | null, digits = 4): string =>
  i ? `[${f(i.low, digits)}, ${f(i.high, digits)}]` : '[–]'
const diff = (d: PairedDifference, digits = 4): string => `${est(d, digits)} ${interval(d.interval, digits)}`
const slope = (s: Scores | null): string => (s?.calibration ? est(s.calibration.slope, 2) : '–')
const iso = (ms: number | null) => (ms === null ? 'any' : new Date(ms).toISOString())

/** Below this many judged days the bootstrap resamples too few blocks to say much. */
const FEW_DAYS = 10

type Forecaster = { name: string; of: (g: EvaluationGroup) => Scores | Benchmark | null }

/** The benchmarks in the order they are shown; the oracle only on a sandbox store. */
function benchmarksOf(r: EvaluationReport): { name: string; of: (g: EvaluationGroup) => Benchmark | null }[] {
  return [
    { name: 'mid', of: (g) => g.mid },
    ...(r.trainUntil === null ? [] : [{ name: 'recal. mid', of: (g: EvaluationGroup) => g.recalibratedMid }]),
    { name: 'model alone', of: (g) => g.modelAlone },
    ...(r.overall.oracle ? [{ name: 'oracle', of: (g: EvaluationGroup) => g.oracle }] : []),
  ]
}

function scoreRow(g: EvaluationGroup, oracle: boolean): string {
  const cells = [
    g.label.padEnd(6),
    String(g.readings).padStart(7),
    String(g.contests).padStart(6),
    est(g.model.logLoss).padStart(17),
    est(g.model.brier).padStart(17),
    slope(g.model).padStart(12),
    // the mid exists only where the book had both sides: its log loss is over these readings alone
    String(g.mid?.readings ?? 0).padStart(9),
    (g.mid ? est(g.mid.logLoss) : '–').padStart(17),
    (g.mid ? est(g.mid.difference.logLoss) : '–').padStart(17),
  ]
  if (oracle) cells.push((g.oracle ? est(g.oracle.logLoss) : '–').padStart(17))
  return cells.join('  ')
}

function scoreHeader(oracle: boolean): string {
  const cells = [
    'left'.padEnd(6),
    'reads'.padStart(7),
    'ctsts'.padStart(6),
    'log loss'.padStart(17),
    'Brier'.padStart(17),
    'cal. slope'.padStart(12),
    'mid reads'.padStart(9),
    'mid log loss'.padStart(17),
    'model − mid'.padStart(17),
  ]
  if (oracle) cells.push('oracle log loss'.padStart(17))
  return cells.join('  ')
}

function calibrationLine(name: string, s: Scores | null): string {
  if (!s || s.ece === null) return `${name.padEnd(12)} calibration: –`
  if (!s.calibration)
    return `${name.padEnd(12)} calibration: no logistic fit (too few readings, the outcomes all one side, or p separates them), ECE ${f(s.ece, 4)}`
  const c = s.calibration
  return `${name.padEnd(12)} calibration: slope ${est(c.slope, 3)}, intercept ${est(c.intercept, 3)}, ECE ${f(c.ece, 4)}`
}

function benchmarkLines(r: EvaluationReport): string[] {
  const lines = [
    'model − benchmark, paired per reading (negative: the model is better)',
    `${'benchmark'.padEnd(12)}  ${'reads'.padStart(7)}  ${'its log loss'.padStart(17)}  ${'Δ log loss'.padStart(37)}  ${'Δ Brier'.padStart(37)}`,
  ]
  for (const b of benchmarksOf(r)) {
    const x = b.of(r.overall)
    lines.push(
      x
        ? `${b.name.padEnd(12)}  ${String(x.readings).padStart(7)}  ${est(x.logLoss).padStart(17)}  ${diff(x.difference.logLoss).padStart(37)}  ${diff(x.difference.brier).padStart(37)}`
        : `${b.name.padEnd(12)}  ${'0'.padStart(7)}  (no reading has it)`,
    )
  }
  return lines
}

function calibrationByBucket(r: EvaluationReport): string[] {
  const all: Forecaster[] = [{ name: 'model', of: (g) => g.model }, ...benchmarksOf(r)]
  const cell = (s: Scores | null) =>
    s?.calibration ? `${est(s.calibration.slope, 2)} / ${f(s.calibration.intercept.value, 2)}` : '–'
  // the recalibration's buckets: the last two minutes apart, then the card's middle and start
  const groups = [
    ...r.byMinutesLeft.filter((g) => g.label === '1' || g.label === '2'),
    ...r.byBucket.filter((g) => g.label !== '1–2'),
  ].filter((g) => g.readings > 0)
  return [
    'calibration slope ± SE / intercept by minutes left',
    ['left'.padEnd(6), ...all.map((x) => x.name.padStart(22))].join('  '),
    ...groups.map((g) => [g.label.padEnd(6), ...all.map((x) => cell(x.of(g)).padStart(22))].join('  ')),
  ]
}

function recalibrationLines(r: EvaluationReport): string[] {
  if (!r.recalibration)
    return [
      'recalibrated mid: not shown — it is fitted on a training period before the judged one, never on the',
      'judged readings themselves: give --train-until T',
    ]
  const rc = r.recalibration
  return [
    `recalibrated mid: logit P(up) = a + b·logit(mid), fitted on ${rc.readings} readings of ${rc.contests} contests expired by ${iso(r.trainUntil)}`,
    `${'left'.padEnd(6)}  ${'reads'.padStart(7)}  ${'ctsts'.padStart(6)}  ${'a'.padStart(17)}  ${'b'.padStart(17)}`,
    ...rc.buckets.map(
      (b) =>
        `${b.label.padEnd(6)}  ${String(b.readings).padStart(7)}  ${String(b.contests).padStart(6)}  ${(b.intercept ? est(b.intercept, 3) : 'not fitted').padStart(17)}  ${(b.slope ? est(b.slope, 3) : '').padStart(17)}`,
    ),
  ]
}

function tailLines(t: TailTables): string[] {
  const columns: [string, TailRow[] | null][] = [
    ['model', t.model],
    ['mid', t.mid],
    ['recal. mid', t.recalibratedMid],
    ['model alone', t.modelAlone],
    ['model vs oracle', t.modelAgainstOracle],
  ]
  const shown = columns.filter((c): c is [string, TailRow[]] => c[1] !== null)
  // against the oracle "realised" is an expectation, not a count
  const cell = (row: TailRow) =>
    `${row.readings} · ${f(row.claimed, 2)} → ${Number.isInteger(row.realised) ? row.realised : f(row.realised, 2)} (${tailRatioText(row)})`
  return [
    `tail: the long shot's wins by claimed P(up) — readings · claimed (Σ its probability) → realised (ratio ± SE clustered by contest)${t.modelAgainstOracle ? "; model vs oracle: the oracle's expected wins in the outcomes' place (no luck: above 1, the model too sure)" : ''}`,
    ['P(up)'.padEnd(11), 'long shot'.padEnd(9), ...shown.map(([name]) => name.padStart(34))].join('  '),
    ...(shown[0]?.[1] ?? []).map((row, i) =>
      [
        row.label.padEnd(11),
        row.longShot.padEnd(9),
        ...shown.map(([, rows]) => cell(rows[i] as TailRow).padStart(34)),
      ].join('  '),
    ),
  ]
}

function againstLines(r: EvaluationReport): string[] {
  const a = r.against
  if (!a) return []
  return [
    `against another store: this store (${a.versions.here.join(', ') || 'none'}) − that store (${a.versions.against.join(', ') || 'none'}), paired per reading`,
    `  matched ${a.matched} readings in ${a.contests} contests; unmatched: ${a.unmatched.here} here, ${a.unmatched.against} there`,
    `  log loss ${diff(a.difference.logLoss)}, Brier ${diff(a.difference.brier)}`,
    '',
  ]
}

export function formatEvaluation(r: EvaluationReport): string {
  const withOracle = r.overall.oracle !== null
  const judged =
    r.trainUntil === null
      ? []
      : [
          `walk-forward: judged readings raised at or after ${iso(r.trainUntil)}; the recalibrated mid is fitted on the readings of contests expired by then (a contest open at that instant: its earlier readings neither train nor are judged)`,
        ]
  const lines = [
    `evaluate ${r.series}: contests expiring ${iso(r.since)} to ${iso(r.before)} (inclusive)`,
    ...judged,
    `model versions: ${r.modelVersions.join(', ') || 'none'}`,
    `graded readings ${r.overall.readings} in ${r.overall.contests} contests over ${r.bootstrap.days} UTC days (a void contest's readings have no outcome to score: not counted)`,
    r.bootstrap.days < MIN_BOOTSTRAP_DAYS
      ? `±: standard errors clustered by contest; [–]: no day-block bootstrap interval on ${r.bootstrap.days} UTC days (under ${MIN_BOOTSTRAP_DAYS}, too few blocks to resample)`
      : `±: standard errors clustered by contest; [low, high]: 95 % day-block bootstrap, ${r.bootstrap.draws} draws${r.bootstrap.days < FEW_DAYS ? ` (crude on ${r.bootstrap.days} days: few blocks to resample)` : ''}`,
    '',
    calibrationLine('model', r.overall.model),
    ...benchmarksOf(r).map((b) => calibrationLine(b.name, b.of(r.overall))),
    '',
    scoreHeader(withOracle),
    scoreRow(r.overall, withOracle),
    '',
    'by minutes left',
    ...r.byBucket.filter((g) => g.readings > 0).map((g) => scoreRow(g, withOracle)),
    '',
    ...r.byMinutesLeft.map((g) => scoreRow(g, withOracle)),
    '',
    ...benchmarkLines(r),
    '',
    ...calibrationByBucket(r),
    '',
    ...recalibrationLines(r),
    '',
    ...tailLines(r.tails),
    '',
    ...againstLines(r),
  ]
  if (r.overall.oracle)
    lines.push(
      `share of the mid's log-loss gap to the oracle the model closes: ${r.gapClosed === null ? '–' : `${f(100 * r.gapClosed, 1)} %`}`,
    )
  const late = r.lateness
  lines.push(
    `latest reading after its boundary: ${late.raisedMs === null ? '–' : `${f(late.raisedMs / 1000, 1)} s`} (spot observed: ${late.spotObservedMs === null ? '–' : `${f(late.spotObservedMs / 1000, 1)} s`})`,
    '',
  )
  return lines.join('\n')
}
