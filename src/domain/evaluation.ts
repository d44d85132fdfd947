// Judging the model (decisions §13, §15): proper scores of the stored readings against their
// outcomes, overall and by minutes left, calibration, and benchmarks scored on the same readings —
// the venue's mid, the mid recalibrated on a training period before the judged one, the model alone
// before any pooling with the mid and (in the sandbox) an oracle — with paired differences clustered
// by contest and bootstrapped by day, and the tail table. Pure arithmetic, no I/O.
import { BOOTSTRAP_DRAWS } from './bootstrap.ts'
import {
  type GradedReading,
  isGraded,
  midProbabilityUp,
  minutesLeftOf,
  publishedProbabilityUp,
} from './graded-reading.ts'
import {
  type BootstrapPlan,
  compareStores,
  type DatedPoint,
  datedPoint,
  type PairedScores,
  pairedDifferences,
  type StoreComparison,
} from './paired-comparison.ts'
import { fitRecalibration, type Recalibration, recalibratedMid } from './recalibration.ts'
import { logLossOf, type Scores, scoresOf } from './scores.ts'
import { type TailRow, tailTable } from './tail-table.ts'

// evaluate's vocabulary, from the modules that own it (tools read them from here)
export { midProbabilityUp, minutesLeftOf, publishedProbabilityUp } from './graded-reading.ts'
export {
  bound,
  brierOf,
  type Calibration,
  calibrationFit,
  clusteredMean,
  type Estimate,
  expectedCalibrationError,
  logLossOf,
  SCORE_BOUND,
  type Scores,
} from './scores.ts'

export type Benchmark = Scores & {
  /** readings where both the model and the benchmark have a probability */
  readings: number
  /** the model's scores on those same readings */
  model: Scores
  /** model − benchmark, paired per reading: negative means the model is better */
  difference: PairedScores
}

export type EvaluationGroup = {
  /** e.g. "all", "1", "1–2" (minutes left) */
  label: string
  readings: number
  contests: number
  model: Scores
  mid: Benchmark | null
  /** null without a training period (--train-until) */
  recalibratedMid: Benchmark | null
  /** null on readings stored before the model alone was */
  modelAlone: Benchmark | null
  oracle: Benchmark | null
}

/** Realised against claimed long-shot wins for each forecaster, on the judged readings. */
export type TailTables = {
  model: TailRow[]
  mid: TailRow[]
  recalibratedMid: TailRow[] | null
  modelAlone: TailRow[]
  /**
   * The model's own buckets with the oracle's probability in each outcome's place: "realised" is then
   * the long shot's expected wins under the oracle's law on the same readings, so the ratio says how
   * much more often (above 1) the long shot comes in than the model claims, without the outcomes'
   * luck. Null without an oracle; readings it cannot price are left out.
   */
  modelAgainstOracle: TailRow[] | null
}

export type EvaluationReport = {
  series: string
  since: number | null
  before: number | null
  /** readings raised from this instant on are judged; the recalibration is fitted on contests expired by it */
  trainUntil: number | null
  modelVersions: string[]
  overall: EvaluationGroup
  byMinutesLeft: EvaluationGroup[]
  byBucket: EvaluationGroup[]
  /** the recalibrated mid's fit on the training period; null without --train-until */
  recalibration: (Recalibration & { readings: number; contests: number }) | null
  tails: TailTables
  /** the day-block bootstrap behind every interval: draws per interval and the judged UTC days */
  bootstrap: { draws: number; days: number }
  /** the same readings in another store (--against), null without one */
  against: StoreComparison | null
  /** the share of the venue mid's log-loss gap to the oracle that the model closes; null without both */
  gapClosed: number | null
  /** the latest any reading was made, and its spot observed, after its minute's boundary (ms) */
  lateness: { raisedMs: number | null; spotObservedMs: number | null }
}

/** Minutes-left buckets of the model card: the end game, the middle, the start. */
export const MINUTES_LEFT_BUCKETS: readonly { label: string; from: number; to: number }[] = [
  { label: '1–2', from: 1, to: 2 },
  { label: '3–7', from: 3, to: 7 },
  { label: '8–14', from: 8, to: 14 },
]

const MINUTE_MS = 60_000

function benchmarkOf(
  model: readonly DatedPoint[],
  other: readonly (DatedPoint | null)[],
  plan: BootstrapPlan | null,
): Benchmark | null {
  const m: DatedPoint[] = []
  const o: DatedPoint[] = []
  for (let i = 0; i < model.length; i++) {
    const b = other[i]
    if (b) {
      m.push(model[i] as DatedPoint)
      o.push(b)
    }
  }
  if (o.length === 0) return null
  return { ...scoresOf(o), readings: o.length, model: scoresOf(m), difference: pairedDifferences(m, o, plan) }
}

export type EvaluationInput = {
  series: string
  since?: number
  before?: number
  readings: readonly GradedReading[]
  /** the sandbox's hidden P(up) at a reading's instant, when judging on a sandbox */
  oracle?: (r: GradedReading) => number | null
  /**
   * Walk-forward: readings raised from this instant on are judged, and the recalibrated mid is fitted
   * on the readings of contests that expired by it (their outcomes known at that instant).
   */
  trainUntil?: number
  /** the same series' readings from another store, to compare under two models */
  against?: readonly GradedReading[]
  /**
   * A fresh generator of uniforms on [0, 1) per bootstrap interval (seeded: the report is then
   * reproducible); absent, no bootstrap intervals are drawn.
   */
  resample?: () => () => number
  /** draws per bootstrap interval */
  draws?: number
}

export function evaluateReadings(input: EvaluationInput): EvaluationReport {
  const graded = input.readings.filter(isGraded)
  const t = input.trainUntil
  const rows = t === undefined ? graded : graded.filter((r) => r.raisedAt >= t)
  const recalibration = t === undefined ? null : trainRecalibration(graded.filter((r) => r.expiresAt <= t))
  const plan: BootstrapPlan | null = input.resample
    ? { resample: input.resample, draws: input.draws ?? BOOTSTRAP_DRAWS }
    : null
  const model = rows.map((r) => datedPoint(r, publishedProbabilityUp(r)))
  const minutesLeft = rows.map(minutesLeftOf)
  const alongside = (p: (r: GradedReading, i: number) => number | null) =>
    rows.map((r, i) => {
      const q = p(r, i)
      return q === null ? null : { ...(model[i] as DatedPoint), p: q }
    })
  const mid = alongside((r) => midProbabilityUp(r))
  const recalibrated = recalibration
    ? alongside((_, i) => {
        const m = mid[i]
        return m ? recalibratedMid(recalibration, m.p, minutesLeft[i] as number) : null
      })
    : null
  const alone = alongside((r) => r.inputs?.modelAloneUp ?? null)
  const oracle = input.oracle ? alongside((r) => input.oracle?.(r) ?? null) : null

  const group = (label: string, keep: (i: number) => boolean): EvaluationGroup => {
    const idx = rows.map((_, i) => i).filter(keep)
    const pts = idx.map((i) => model[i] as DatedPoint)
    const against = (other: readonly (DatedPoint | null)[]) =>
      benchmarkOf(
        pts,
        idx.map((i) => other[i] ?? null),
        plan,
      )
    return {
      label,
      readings: pts.length,
      contests: new Set(pts.map((p) => p.contest)).size,
      model: scoresOf(pts),
      mid: against(mid),
      recalibratedMid: recalibrated ? against(recalibrated) : null,
      modelAlone: against(alone),
      oracle: oracle ? against(oracle) : null,
    }
  }
  const present = (xs: readonly (DatedPoint | null)[]) => xs.filter((x): x is DatedPoint => x !== null)
  const left = [...new Set(minutesLeft)].sort((a, b) => a - b)
  return {
    series: input.series,
    since: input.since ?? null,
    before: input.before ?? null,
    trainUntil: t ?? null,
    modelVersions: [...new Set(rows.map((r) => r.modelVersion ?? 'unknown'))].sort(),
    overall: group('all', () => true),
    byMinutesLeft: left.map((m) => group(String(m), (i) => minutesLeft[i] === m)),
    byBucket: MINUTES_LEFT_BUCKETS.map((b) =>
      group(b.label, (i) => (minutesLeft[i] as number) >= b.from && (minutesLeft[i] as number) <= b.to),
    ),
    recalibration,
    tails: {
      model: tailTable(model),
      mid: tailTable(present(mid)),
      recalibratedMid: recalibrated ? tailTable(present(recalibrated)) : null,
      modelAlone: tailTable(present(alone)),
      modelAgainstOracle: oracle
        ? tailTable(model.flatMap((pt, i) => (oracle[i] ? [{ ...pt, y: (oracle[i] as DatedPoint).p }] : [])))
        : null,
    },
    bootstrap: { draws: plan?.draws ?? 0, days: new Set(model.map((p) => p.day)).size },
    against: input.against
      ? compareStores(
          rows,
          t === undefined ? input.against : input.against.filter((r) => r.raisedAt >= t),
          plan,
        )
      : null,
    gapClosed: gapClosed(model, mid, oracle),
    lateness: latenessOf(rows),
  }
}

/** The recalibrated mid fitted on the training readings that have a two-sided book. */
function trainRecalibration(training: readonly GradedReading[]): EvaluationReport['recalibration'] {
  const points = training.flatMap((r) => {
    const p = midProbabilityUp(r)
    return p === null ? [] : [{ ...datedPoint(r, p), minutesLeft: minutesLeftOf(r) }]
  })
  return {
    ...fitRecalibration(points),
    readings: points.length,
    contests: new Set(points.map((pt) => pt.contest)).size,
  }
}

/** The share of the mid's log-loss gap to the oracle the model closes, on readings with both. */
function gapClosed(
  model: readonly DatedPoint[],
  mid: readonly (DatedPoint | null)[],
  oracle: readonly (DatedPoint | null)[] | null,
): number | null {
  if (!oracle) return null
  let lm = 0
  let lmid = 0
  let lo = 0
  let n = 0
  for (let i = 0; i < model.length; i++) {
    const m = mid[i]
    const o = oracle[i]
    if (!m || !o) continue
    const pt = model[i] as DatedPoint
    lm += logLossOf(pt.p, pt.y)
    lmid += logLossOf(m.p, pt.y)
    lo += logLossOf(o.p, pt.y)
    n++
  }
  return n > 0 && lmid !== lo ? (lmid - lm) / (lmid - lo) : null
}

function latenessOf(rows: readonly GradedReading[]): EvaluationReport['lateness'] {
  let raisedMs: number | null = null
  let spotObservedMs: number | null = null
  for (const r of rows) {
    const boundary = r.opensAt + r.minute * MINUTE_MS
    raisedMs = Math.max(raisedMs ?? Number.NEGATIVE_INFINITY, r.raisedAt - boundary)
    if (r.inputs)
      spotObservedMs = Math.max(
        spotObservedMs ?? Number.NEGATIVE_INFINITY,
        r.inputs.spotObservedAt - boundary,
      )
  }
  return { raisedMs, spotObservedMs }
}
