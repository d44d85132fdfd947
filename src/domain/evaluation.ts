// Judging the model (decisions §13): proper scores of the stored readings against their outcomes,
// overall and by minutes left, calibration, the venue's mid at the same instant as a benchmark and
// (in the sandbox) an oracle, with standard errors clustered by contest — the readings of one contest
// share one outcome, so they are not independent. Pure arithmetic, no I/O.
import type { Side } from './contest.ts'
import type { GradedReading } from './graded-reading.ts'

/** The bound a probability is scored at, the venue's tick (as the readings are published). */
export const SCORE_BOUND = 0.001

/** A mean with its standard error clustered by contest (null with fewer than 2 contests). */
export type Estimate = { value: number; se: number | null }

export type Calibration = {
  /** logistic fit of the outcome on logit p: 1 and 0 when calibrated */
  slope: Estimate
  intercept: Estimate
  /** expected calibration error over 10 equal-width bins of P(up) */
  ece: number
}

export type Scores = { logLoss: Estimate; brier: Estimate; calibration: Calibration | null }

export type Benchmark = Scores & {
  /** readings where both the model and the benchmark have a probability */
  readings: number
  /** the model's scores on those same readings */
  model: Scores
  /** model − benchmark, paired per reading, SE clustered by contest: negative means the model is better */
  difference: { logLoss: Estimate; brier: Estimate }
}

export type EvaluationGroup = {
  /** e.g. "all", "1", "1–2" (minutes left) */
  label: string
  readings: number
  contests: number
  model: Scores
  mid: Benchmark | null
  oracle: Benchmark | null
}

export type EvaluationReport = {
  series: string
  since: number | null
  before: number | null
  modelVersions: string[]
  overall: EvaluationGroup
  byMinutesLeft: EvaluationGroup[]
  byBucket: EvaluationGroup[]
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

/** Minutes left at a reading's boundary: 14 at minute 1, 1 at minute 14. */
export function minutesLeftOf(r: Pick<GradedReading, 'minute' | 'opensAt' | 'expiresAt'>): number {
  return Math.round((r.expiresAt - r.opensAt) / MINUTE_MS) - r.minute
}

/** The published probability of up: the confidence of the reading's side, or its complement. */
export function publishedProbabilityUp(r: Pick<GradedReading, 'side' | 'confidence'>): number {
  return r.side === 'up' ? r.confidence / 100 : 1 - r.confidence / 100
}

/** The venue's mid as P(up) from the stored asks, when the book had both sides. */
export function midProbabilityUp(r: Pick<GradedReading, 'inputs'>): number | null {
  const i = r.inputs
  if (!i || i.upAskCents === null || i.downAskCents === null) return null
  return (i.upAskCents + 100 - i.downAskCents) / 200
}

export function bound(p: number): number {
  return Math.min(1 - SCORE_BOUND, Math.max(SCORE_BOUND, p))
}

/** One scored observation: its contest, outcome (1 = up) and probability of up. */
type Point = { contest: string; y: number; p: number }

export function logLossOf(p: number, y: number): number {
  const q = bound(p)
  return -(y * Math.log(q) + (1 - y) * Math.log(1 - q))
}

export function brierOf(p: number, y: number): number {
  return (p - y) ** 2
}

/**
 * The mean of `values` with its standard error clustered by `clusters`: the variance of the mean is
 * C/(C − 1) · Σ_c (Σ_{i∈c} (x_i − x̄))² / N², C the number of clusters.
 */
export function clusteredMean(values: readonly number[], clusters: readonly string[]): Estimate {
  const n = values.length
  if (n === 0) return { value: Number.NaN, se: null }
  const mean = values.reduce((a, b) => a + b, 0) / n
  const sums = new Map<string, number>()
  for (let i = 0; i < n; i++) {
    const c = clusters[i] as string
    sums.set(c, (sums.get(c) ?? 0) + (values[i] as number) - mean)
  }
  const c = sums.size
  if (c < 2) return { value: mean, se: null }
  let ss = 0
  for (const s of sums.values()) ss += s * s
  return { value: mean, se: Math.sqrt(((c / (c - 1)) * ss) / (n * n)) }
}

/**
 * Logistic regression of the outcome on logit p (Newton's method), with the sandwich covariance
 * clustered by contest; null when the fit does not exist (one outcome only, or no spread in p).
 */
export function calibrationFit(points: readonly Point[]): Omit<Calibration, 'ece'> | null {
  if (points.length < 3) return null
  const z = points.map((pt) => {
    const q = bound(pt.p)
    return Math.log(q / (1 - q))
  })
  const ys = points.map((pt) => pt.y)
  const ones = ys.reduce((a, b) => a + b, 0)
  if (ones === 0 || ones === points.length) return null
  let a = 0
  let b = 1
  let info: [number, number, number] = [0, 0, 0]
  for (let iter = 0; iter < 50; iter++) {
    let g0 = 0
    let g1 = 0
    let h00 = 0
    let h01 = 0
    let h11 = 0
    for (let i = 0; i < z.length; i++) {
      const zi = z[i] as number
      const mu = 1 / (1 + Math.exp(-(a + b * zi)))
      const w = mu * (1 - mu)
      const e = (ys[i] as number) - mu
      g0 += e
      g1 += e * zi
      h00 += w
      h01 += w * zi
      h11 += w * zi * zi
    }
    const det = h00 * h11 - h01 * h01
    if (!(det > 1e-12)) return null
    const da = (h11 * g0 - h01 * g1) / det
    const db = (h00 * g1 - h01 * g0) / det
    a += da
    b += db
    info = [h00, h01, h11]
    if (!Number.isFinite(a) || !Number.isFinite(b)) return null
    if (Math.abs(da) < 1e-10 && Math.abs(db) < 1e-10) break
  }
  // sandwich: H⁻¹ M H⁻¹ with M the clustered outer product of the score contributions
  const [h00, h01, h11] = info
  const det = h00 * h11 - h01 * h01
  const inv = [h11 / det, -h01 / det, h00 / det] as const
  const scores = new Map<string, [number, number]>()
  for (let i = 0; i < z.length; i++) {
    const zi = z[i] as number
    const e = (ys[i] as number) - 1 / (1 + Math.exp(-(a + b * zi)))
    const key = (points[i] as Point).contest
    const s = scores.get(key) ?? [0, 0]
    s[0] += e
    s[1] += e * zi
    scores.set(key, s)
  }
  const c = scores.size
  let m00 = 0
  let m01 = 0
  let m11 = 0
  for (const [s0, s1] of scores.values()) {
    m00 += s0 * s0
    m01 += s0 * s1
    m11 += s1 * s1
  }
  const k = c > 1 ? c / (c - 1) : Number.NaN
  // V = inv · M · inv, for symmetric 2×2 matrices
  const [i00, i01, i11] = inv
  const t00 = i00 * m00 + i01 * m01
  const t01 = i00 * m01 + i01 * m11
  const t10 = i01 * m00 + i11 * m01
  const t11 = i01 * m01 + i11 * m11
  const v00 = k * (t00 * i00 + t01 * i01)
  const v11 = k * (t10 * i01 + t11 * i11)
  const se = (v: number) => (Number.isFinite(v) && v >= 0 ? Math.sqrt(v) : null)
  return { slope: { value: b, se: se(v11) }, intercept: { value: a, se: se(v00) } }
}

/** Expected calibration error over 10 equal-width bins of P(up). */
export function expectedCalibrationError(points: readonly Point[]): number {
  const n = new Array<number>(10).fill(0)
  const sp = new Array<number>(10).fill(0)
  const sy = new Array<number>(10).fill(0)
  for (const pt of points) {
    const bin = Math.min(9, Math.floor(pt.p * 10))
    n[bin] = (n[bin] as number) + 1
    sp[bin] = (sp[bin] as number) + pt.p
    sy[bin] = (sy[bin] as number) + pt.y
  }
  let ece = 0
  for (let b = 0; b < 10; b++) {
    const k = n[b] as number
    if (k > 0) ece += (k / points.length) * Math.abs((sp[b] as number) / k - (sy[b] as number) / k)
  }
  return ece
}

function scoresOf(points: readonly Point[]): Scores {
  const clusters = points.map((pt) => pt.contest)
  const fit = calibrationFit(points)
  return {
    logLoss: clusteredMean(
      points.map((pt) => logLossOf(pt.p, pt.y)),
      clusters,
    ),
    brier: clusteredMean(
      points.map((pt) => brierOf(pt.p, pt.y)),
      clusters,
    ),
    calibration: fit ? { ...fit, ece: expectedCalibrationError(points) } : null,
  }
}

function benchmarkOf(model: readonly Point[], other: readonly (Point | null)[]): Benchmark | null {
  const m: Point[] = []
  const o: Point[] = []
  for (let i = 0; i < model.length; i++) {
    const b = other[i]
    if (b) {
      m.push(model[i] as Point)
      o.push(b)
    }
  }
  if (o.length === 0) return null
  const clusters = m.map((pt) => pt.contest)
  return {
    ...scoresOf(o),
    readings: o.length,
    model: scoresOf(m),
    difference: {
      logLoss: clusteredMean(
        m.map((pt, i) => logLossOf(pt.p, pt.y) - logLossOf((o[i] as Point).p, pt.y)),
        clusters,
      ),
      brier: clusteredMean(
        m.map((pt, i) => brierOf(pt.p, pt.y) - brierOf((o[i] as Point).p, pt.y)),
        clusters,
      ),
    },
  }
}

export type EvaluationInput = {
  series: string
  since?: number
  before?: number
  readings: readonly GradedReading[]
  /** the sandbox's hidden P(up) at a reading's instant, when judging on a sandbox */
  oracle?: (r: GradedReading) => number | null
}

export function evaluateReadings(input: EvaluationInput): EvaluationReport {
  const rows = input.readings.filter(
    (r) => r.settledSide !== null && (r.outcome === 'win' || r.outcome === 'loss'),
  )
  const y = (side: Side | null) => (side === 'up' ? 1 : 0)
  const model: Point[] = rows.map((r) => ({
    contest: r.ticker,
    y: y(r.settledSide),
    p: publishedProbabilityUp(r),
  }))
  const mid: (Point | null)[] = rows.map((r, i) => {
    const p = midProbabilityUp(r)
    return p === null ? null : { ...(model[i] as Point), p }
  })
  const oracle: (Point | null)[] | null = input.oracle
    ? rows.map((r, i) => {
        const p = input.oracle?.(r) ?? null
        return p === null ? null : { ...(model[i] as Point), p }
      })
    : null
  const minutesLeft = rows.map(minutesLeftOf)

  const group = (label: string, keep: (i: number) => boolean): EvaluationGroup => {
    const idx = rows.map((_, i) => i).filter(keep)
    const pts = idx.map((i) => model[i] as Point)
    return {
      label,
      readings: pts.length,
      contests: new Set(pts.map((p) => p.contest)).size,
      model: scoresOf(pts),
      mid: benchmarkOf(
        pts,
        idx.map((i) => mid[i] ?? null),
      ),
      oracle: oracle
        ? benchmarkOf(
            pts,
            idx.map((i) => oracle[i] ?? null),
          )
        : null,
    }
  }

  const overall = group('all', () => true)
  const left = [...new Set(minutesLeft)].sort((a, b) => a - b)
  let gapClosed: number | null = null
  if (oracle) {
    const all = rows.map((_, i) => i).filter((i) => mid[i] && oracle[i])
    if (all.length > 0) {
      let lm = 0
      let lmid = 0
      let lo = 0
      for (const i of all) {
        const pt = model[i] as Point
        lm += logLossOf(pt.p, pt.y)
        lmid += logLossOf((mid[i] as Point).p, pt.y)
        lo += logLossOf((oracle[i] as Point).p, pt.y)
      }
      gapClosed = lmid !== lo ? (lmid - lm) / (lmid - lo) : null
    }
  }
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
  return {
    series: input.series,
    since: input.since ?? null,
    before: input.before ?? null,
    modelVersions: [...new Set(rows.map((r) => r.modelVersion ?? 'unknown'))].sort(),
    overall,
    byMinutesLeft: left.map((m) => group(String(m), (i) => minutesLeft[i] === m)),
    byBucket: MINUTES_LEFT_BUCKETS.map((b) =>
      group(b.label, (i) => (minutesLeft[i] as number) >= b.from && (minutesLeft[i] as number) <= b.to),
    ),
    gapClosed,
    lateness: { raisedMs, spotObservedMs },
  }
}
