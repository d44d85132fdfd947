// Proper scores of probabilities against outcomes (decisions §13): log loss, Brier, calibration, and
// means with standard errors clustered by contest — the readings of one contest share one outcome,
// so they are not independent. Pure arithmetic, no I/O.

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

export type Scores = {
  logLoss: Estimate
  brier: Estimate
  calibration: Calibration | null
  /**
   * calibration's ECE, kept where no logistic fit exists (one outcome only, or p separating them):
   * binning needs no fit; null with nothing scored
   */
  ece: number | null
}

export function bound(p: number): number {
  return Math.min(1 - SCORE_BOUND, Math.max(SCORE_BOUND, p))
}

/** logit p at the scoring bound: the scale calibration (and the recalibrated mid) is fitted on. */
export function boundedLogit(p: number): number {
  const q = bound(p)
  return Math.log(q / (1 - q))
}

/** One scored observation: its contest, outcome (1 = up) and probability of up. */
export type ScoredPoint = { contest: string; y: number; p: number }

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
 * What a ratio estimator Σnum / Σden needs for its clustered standard error: the totals, the number
 * of clusters and, over clusters, each cluster's sums squared and crossed. Sums over disjoint sets of
 * clusters add, so tables of several runs pool exactly.
 */
export type RatioSums = {
  num: number
  den: number
  clusters: number
  numSq: number
  cross: number
  denSq: number
}

export function ratioSumsOf(
  num: readonly number[],
  den: readonly number[],
  clusters: readonly string[],
): RatioSums {
  const byCluster = new Map<string, { n: number; d: number }>()
  let sn = 0
  let sd = 0
  clusters.forEach((c, i) => {
    const s = byCluster.get(c) ?? { n: 0, d: 0 }
    s.n += num[i] as number
    s.d += den[i] as number
    byCluster.set(c, s)
    sn += num[i] as number
    sd += den[i] as number
  })
  const sums = { num: sn, den: sd, clusters: byCluster.size, numSq: 0, cross: 0, denSq: 0 }
  for (const { n, d } of byCluster.values()) {
    sums.numSq += n * n
    sums.cross += n * d
    sums.denSq += d * d
  }
  return sums
}

/**
 * Σnum / Σden with its standard error clustered (the delta method): √(C/(C − 1) · Σ_c (n_c − R·d_c)²)
 * / |Σden|, R the ratio and C the clusters; no SE with fewer than 2 clusters or nothing in Σden.
 */
export function clusteredRatio(s: RatioSums): Estimate {
  if (s.den === 0) return { value: Number.NaN, se: null }
  const ratio = s.num / s.den
  if (s.clusters < 2) return { value: ratio, se: null }
  const ss = Math.max(0, s.numSq - 2 * ratio * s.cross + ratio * ratio * s.denSq)
  return { value: ratio, se: Math.sqrt((s.clusters / (s.clusters - 1)) * ss) / Math.abs(s.den) }
}

/**
 * Logistic regression of the outcome on logit p (Newton's method), with the sandwich covariance
 * clustered by contest; null when the fit does not exist (one outcome only, or no spread in p).
 */
export function calibrationFit(points: readonly ScoredPoint[]): Omit<Calibration, 'ece'> | null {
  if (points.length < 3) return null
  const z = points.map((pt) => boundedLogit(pt.p))
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
    const key = (points[i] as ScoredPoint).contest
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
export function expectedCalibrationError(points: readonly ScoredPoint[]): number {
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

export function scoresOf(points: readonly ScoredPoint[]): Scores {
  const clusters = points.map((pt) => pt.contest)
  const fit = calibrationFit(points)
  const ece = points.length === 0 ? null : expectedCalibrationError(points)
  return {
    logLoss: clusteredMean(
      points.map((pt) => logLossOf(pt.p, pt.y)),
      clusters,
    ),
    brier: clusteredMean(
      points.map((pt) => brierOf(pt.p, pt.y)),
      clusters,
    ),
    calibration: fit && ece !== null ? { ...fit, ece } : null,
    ece,
  }
}
