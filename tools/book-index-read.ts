// Where the index is, read from the venue's book by Bayes' rule (`model:floor`'s diagnostic, never a
// model): the crowd quotes from the index itself, so its mid says a little of the basis the engine
// cannot see. Each hypothesis of the engine's index error prices the contest; the book's mid, through
// the crowd's own map from P(up) to its quotes, weighs the hypotheses. The map is fitted on the
// readings' observables alone (the mids and the model's prices), never on the hidden index or truth.
import type { BookState } from '../src/domain/reading-model.ts'
import { bookEvidence, logitOf } from '../src/model/book-pool.ts'
import type { CrowdMap as ModelCrowdMap } from '../src/model/index-read.ts'

/** Hypotheses of the engine's log index error priced on a grid: P(up) at grid[k], in log units. */
export type ErrorGrid = { readonly step: number; readonly half: number }

/** The error hypotheses a reading is priced at: −half·step … +half·step. */
export function gridErrors(grid: ErrorGrid): number[] {
  return Array.from({ length: 2 * grid.half + 1 }, (_, k) => (k - grid.half) * grid.step)
}

/** The logit of P(up) at error `x`, linear in logit between the grid's points and flat past its ends. */
export function logitAt(grid: ErrorGrid, priced: readonly number[], x: number): number {
  const f = Math.min(2 * grid.half, Math.max(0, x / grid.step + grid.half))
  const k = Math.min(2 * grid.half - 1, Math.floor(f))
  const a = logitOf(priced[k] as number)
  const b = logitOf(priced[k + 1] as number)
  return a + (b - a) * (f - k)
}

/** The crowd's map in one minutes-left bucket (the model's, index-read.ts), without its bucket. */
export type CrowdMap = Omit<ModelCrowdMap, 'minutesLeft'>

/** One reading's part in the map's fit: its usable mid, and its hypotheses' logits with their prior weights. */
export type MapPoint = { mid: number; logits: readonly number[]; weights: readonly number[] }

/**
 * The map by least squares of logit(mid) on the prior's mean logit; the noise is the residual
 * variance less what the error hypotheses' own spread puts there (slope² times their variance), so
 * the book is not counted as knowing the error better than it does. Floored at 5 % of the residual.
 */
export function fitCrowdMap(points: readonly MapPoint[]): CrowdMap | null {
  if (points.length < 20) return null
  const xs = points.map((p) => p.logits.reduce((s, l, i) => s + (p.weights[i] as number) * l, 0))
  const spread = points.map((p, j) =>
    p.logits.reduce((s, l, i) => s + (p.weights[i] as number) * (l - (xs[j] as number)) ** 2, 0),
  )
  const ys = points.map((p) => logitOf(p.mid))
  const n = points.length
  const mx = xs.reduce((a, b) => a + b, 0) / n
  const my = ys.reduce((a, b) => a + b, 0) / n
  let sxy = 0
  let sxx = 0
  for (let i = 0; i < n; i++) {
    sxy += ((xs[i] as number) - mx) * ((ys[i] as number) - my)
    sxx += ((xs[i] as number) - mx) ** 2
  }
  if (!(sxx > 0)) return null
  const slope = sxy / sxx
  const intercept = my - slope * mx
  let rss = 0
  for (let i = 0; i < n; i++) rss += ((ys[i] as number) - intercept - slope * (xs[i] as number)) ** 2
  const residual = rss / n
  // mids the prices explain exactly say nothing of the crowd's noise: no map rather than an infinitely sure one
  if (!(residual > 1e-12)) return null
  const fromError = (slope * slope * spread.reduce((a, b) => a + b, 0)) / n
  return { intercept, slope, noise: Math.max(residual - fromError, 0.05 * residual) }
}

/** The hypotheses' weights once the book's mid is seen: prior times the mid's likelihood, summing to 1. */
export function posteriorWeights(
  weights: readonly number[],
  logits: readonly number[],
  mid: number | null,
  map: CrowdMap | null,
): number[] {
  if (mid === null || map === null) return [...weights]
  const lm = logitOf(mid)
  const seen = weights.map(
    (w, i) =>
      w * Math.exp(-((lm - map.intercept - map.slope * (logits[i] as number)) ** 2) / (2 * map.noise)),
  )
  const total = seen.reduce((a, b) => a + b, 0)
  return total > 0 ? seen.map((w) => w / total) : [...weights]
}

/** Books wider than this say too little of the index to read (10 ¢: the sandbox's widest quotes). */
export const READ_MAX_SPREAD = 0.1
/** Mids nearer 0 or 1 than this are left unread: there the crowd's quotes are its long-shot bias. */
export const READ_MID_EDGE = 0.02

/** The mid a reading's book gives to read: two-sided, at most READ_MAX_SPREAD wide, inside the edges; else null. */
export function readableMid(book: BookState | null, msLeft: number): number | null {
  if (!book || book.upAskCents === null || book.downAskCents === null) return null
  const e = bookEvidence(book, msLeft)
  if (!e || e.spread > READ_MAX_SPREAD) return null
  const mid = (e.lower + e.upper) / 2
  return mid > READ_MID_EDGE && mid < 1 - READ_MID_EDGE ? mid : null
}

/** Readings whose prior says more than this in logit (99 %) are left out of the map's fit. */
const FIT_MAX_LOGIT = Math.log(99)

/**
 * The crowd's map for each minutes-left bucket, fitted on the readings with a readable mid; each
 * reading's hypotheses are `logitsOf(reading)`, with prior `weights`.
 */
export function crowdMapsOf<R extends { minutesLeft: number; mid: number | null }>(
  readings: readonly R[],
  weights: readonly number[],
  logitsOf: (reading: R) => readonly number[],
): Map<number, CrowdMap> {
  const points = new Map<number, MapPoint[]>()
  for (const r of readings) {
    if (r.mid === null) continue
    const logits = logitsOf(r)
    const centre = logits.reduce((s, l, i) => s + (weights[i] as number) * l, 0)
    if (Math.abs(centre) > FIT_MAX_LOGIT) continue
    const bucket = points.get(r.minutesLeft) ?? []
    bucket.push({ mid: r.mid, logits, weights })
    points.set(r.minutesLeft, bucket)
  }
  const maps = new Map<number, CrowdMap>()
  for (const [minutesLeft, bucket] of points) {
    const map = fitCrowdMap(bucket)
    if (map) maps.set(minutesLeft, map)
  }
  return maps
}
