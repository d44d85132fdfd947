// The text form of `contest-signals evaluate`: one table per grouping, the model beside the mid
// (and the oracle), every mean with its contest-clustered standard error.
import type { Benchmark, Estimate, EvaluationGroup, EvaluationReport, Scores } from '../domain/evaluation.ts'

const f = (x: number, digits = 4): string => (Number.isFinite(x) ? x.toFixed(digits) : '–')
const est = (e: Estimate, digits = 4): string =>
  Number.isFinite(e.value) ? `${f(e.value, digits)} ± ${e.se === null ? '–' : f(e.se, digits)}` : '–'
const slope = (s: Scores): string => (s.calibration ? est(s.calibration.slope, 2) : '–')

function row(g: EvaluationGroup): string {
  const cells = [
    g.label.padEnd(6),
    String(g.readings).padStart(7),
    String(g.contests).padStart(6),
    est(g.model.logLoss).padStart(17),
    est(g.model.brier).padStart(17),
    slope(g.model).padStart(12),
    (g.mid ? est(g.mid.logLoss) : '–').padStart(17),
    (g.mid ? est(g.mid.difference.logLoss) : '–').padStart(17),
  ]
  if (g.oracle) cells.push(est(g.oracle.logLoss).padStart(17))
  return cells.join('  ')
}

function header(oracle: boolean): string {
  const cells = [
    'left'.padEnd(6),
    'reads'.padStart(7),
    'ctsts'.padStart(6),
    'log loss'.padStart(17),
    'Brier'.padStart(17),
    'cal. slope'.padStart(12),
    'mid log loss'.padStart(17),
    'model − mid'.padStart(17),
  ]
  if (oracle) cells.push('oracle log loss'.padStart(17))
  return cells.join('  ')
}

function calibrationLine(name: string, s: Scores | Benchmark | null): string {
  if (!s?.calibration) return `${name.padEnd(8)} calibration: –`
  const c = s.calibration
  return `${name.padEnd(8)} calibration: slope ${est(c.slope, 3)}, intercept ${est(c.intercept, 3)}, ECE ${f(c.ece, 4)}`
}

export function formatEvaluation(r: EvaluationReport): string {
  const iso = (ms: number | null) => (ms === null ? 'any' : new Date(ms).toISOString())
  const withOracle = r.overall.oracle !== null
  const lines = [
    `evaluate ${r.series}: contests expiring ${iso(r.since)} to ${iso(r.before)} (inclusive)`,
    `model versions: ${r.modelVersions.join(', ') || 'none'}`,
    `graded readings ${r.overall.readings} in ${r.overall.contests} contests; ±: standard errors clustered by contest`,
    '',
    calibrationLine('model', r.overall.model),
    calibrationLine('mid', r.overall.mid),
    ...(withOracle ? [calibrationLine('oracle', r.overall.oracle)] : []),
    '',
    header(withOracle),
    row(r.overall),
    '',
    'by minutes left',
    ...r.byBucket.filter((g) => g.readings > 0).map(row),
    '',
    ...r.byMinutesLeft.map(row),
    '',
  ]
  if (r.overall.mid)
    lines.push(
      `model − mid, paired on ${r.overall.mid.readings} readings with a two-sided book: log loss ${est(r.overall.mid.difference.logLoss)}, Brier ${est(r.overall.mid.difference.brier)}`,
    )
  if (r.overall.oracle)
    lines.push(
      `model − oracle: log loss ${est(r.overall.oracle.difference.logLoss)}; share of the mid's gap to the oracle closed: ${r.gapClosed === null ? '–' : `${f(100 * r.gapClosed, 1)} %`}`,
    )
  const late = r.lateness
  lines.push(
    `latest reading after its boundary: ${late.raisedMs === null ? '–' : `${f(late.raisedMs / 1000, 1)} s`} (spot observed: ${late.spotObservedMs === null ? '–' : `${f(late.spotObservedMs / 1000, 1)} s`})`,
    '',
  )
  return lines.join('\n')
}
