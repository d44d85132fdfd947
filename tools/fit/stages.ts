// The stages of model v2's fit (docs/model.md, "Training data"), each from what a recording or the
// sandbox's venue and feed show — closes, readings, outcomes and settlement prices — and nothing else
// (decisions §15: no fitted quantity needs a hidden truth). Pure arithmetic on gathered data.
import { MINUTE_MS } from '../../src/domain/contest.ts'
import { spotAtCrowdLag } from '../../src/domain/crowd-lag.ts'
import type { MinuteClose } from '../../src/domain/price-history.ts'
import type { ModelInputs } from '../../src/domain/reading-model.ts'
import { estimateBasis } from '../../src/model/basis.ts'
import {
  type BookEvidence,
  bookEvidence,
  bookReading,
  bookStateOf,
  logitOf,
  poolAtWeight,
  poolWeight,
} from '../../src/model/book-pool.ts'
import { pricingParams } from '../../src/model/dynamics.ts'
import {
  type BookWeighting,
  MINUTE_GROUPS,
  type MinuteGroup,
  type ModelV2Params,
  type PoolBucket,
} from '../../src/model/params.ts'
import { rangeSquareOf, scaledReturns } from '../../src/model/returns.ts'
import { isWeekend, minuteGroup } from '../../src/model/seasonal.ts'
import { closeNoiseOf } from '../../src/model/settlement-mean-model.ts'
import { unitStudentTCdf } from '../../src/model/student-t.ts'
import { levelOver, settlementVariance, volatilityLevel } from '../../src/model/variance.ts'
import type { FitReading } from './fit-source.ts'

const HOURS = 24
/** minutes-left buckets of the pooling */
export const POOL_BUCKETS = [
  [1, 1],
  [2, 2],
  [3, 7],
  [8, 14],
] as const

export function round(x: number, digits: number): number {
  const f = 10 ** digits
  return Math.round(x * f) / f
}

/** Solves the 3×3 system m·s = g by Cramer's rule. */
function solve3(m: number[][], g: number[]): number[] {
  const det = (a: number[][]) =>
    a[0]![0]! * (a[1]![1]! * a[2]![2]! - a[1]![2]! * a[2]![1]!) -
    a[0]![1]! * (a[1]![0]! * a[2]![2]! - a[1]![2]! * a[2]![0]!) +
    a[0]![2]! * (a[1]![0]! * a[2]![1]! - a[1]![1]! * a[2]![0]!)
  const d = det(m)
  return [0, 1, 2].map((c) => det(m.map((row, r) => row.map((v, j) => (j === c ? g[r]! : v)))) / d)
}

/**
 * The pooling's prior, on the coefficients of z = logit(model) + w·(a + (b − 1)·logit(model) +
 * c·logit(mid)): at full weight, the model and the mid weighed alike. Only a small sample is pulled
 * toward it.
 */
const POOL_PRIOR = [0, -0.5, 0.5] as const
/**
 * Ridge penalty toward POOL_PRIOR, in pseudo-readings of unit information: negligible on the
 * sandbox's tens of thousands of readings, it keeps a small real training set (a last-minute bucket
 * of a hundred decided readings, where the outcome can be separated perfectly) finite.
 */
const POOL_RIDGE = 1

/**
 * Newton's method for a penalised logistic regression on three columns with a fixed offset per row
 * (logit P = offset + x·β).
 */
export function logisticFit(
  x: readonly number[][],
  y: readonly number[],
  offset: readonly number[] = [],
): [number, number, number] {
  const beta = [...POOL_PRIOR]
  for (let iter = 0; iter < 100; iter++) {
    const g = [0, 1, 2].map((j) => -POOL_RIDGE * (beta[j]! - POOL_PRIOR[j]!))
    const h = [0, 1, 2].map((a) => [0, 1, 2].map((b) => (a === b ? POOL_RIDGE : 0)))
    for (let i = 0; i < x.length; i++) {
      const row = x[i]!
      const z = (offset[i] ?? 0) + beta[0]! * row[0]! + beta[1]! * row[1]! + beta[2]! * row[2]!
      const mu = 1 / (1 + Math.exp(-z))
      const w = mu * (1 - mu)
      for (let a = 0; a < 3; a++) {
        g[a]! += (y[i]! - mu) * row[a]!
        for (let b = 0; b < 3; b++) h[a]![b]! += w * row[a]! * row[b]!
      }
    }
    const step = solve3(h, g)
    for (let j = 0; j < 3; j++) beta[j]! += step[j]!
    if (step.every((s) => Math.abs(s) < 1e-9)) break
  }
  return [beta[0]!, beta[1]!, beta[2]!]
}

const GROUP_SHARE: Record<MinuteGroup, number> = {
  hour: 1 / 60,
  quarter: 3 / 60,
  five: 8 / 60,
  other: 48 / 60,
}

type Ret = { r2: number; hour: number; group: MinuteGroup; weekend: boolean }

export function flatSeasonal(): ModelV2Params['seasonal'] {
  return { hour: new Array(HOURS).fill(1), minute: { hour: 1, quarter: 1, five: 1, other: 1 }, weekend: 1 }
}

/** One-minute returns (consecutive closes a minute apart) of minutes starting in [from, until). */
function minuteReturns(runs: readonly (readonly MinuteClose[])[], from: number, until: number): Ret[] {
  const rets: Ret[] = []
  for (const closes of runs)
    for (let i = 1; i < closes.length; i++) {
      const a = closes[i - 1]!
      const b = closes[i]!
      if (b.at - a.at !== MINUTE_MS || a.at < from || b.at > until) continue
      const r = Math.log(b.priceDollars / a.priceDollars)
      const minuteOfDay = Math.floor(a.at / MINUTE_MS) % 1440
      rets.push({
        r2: r * r,
        hour: Math.floor(minuteOfDay / 60),
        group: minuteGroup(minuteOfDay % 60),
        weekend: isWeekend(a.at),
      })
    }
  return rets
}

/**
 * Stage A: the seasonal table (sd factors by hour, minute group and weekend) and σ̄ from one-minute
 * returns, winsorised at 6 robust sd. A factor with no data (no weekend in the span) stays 1.
 */
export function fitSeasonal(
  runs: readonly (readonly MinuteClose[])[],
  from: number,
  until: number,
): { seasonal: ModelV2Params['seasonal']; sigmaBar: number; returns: number } {
  const rets = minuteReturns(runs, from, until)
  if (rets.length < 60)
    throw new Error(`stage A: ${rets.length} one-minute returns in the span, too few to fit`)
  const sorted = rets.map((r) => r.r2).sort((a, b) => a - b)
  const median = sorted[Math.floor(sorted.length / 2)] as number
  const cap = 36 * (median / 0.455)
  const x = rets.map((r) => Math.min(r.r2, cap))
  const h2 = new Array<number>(HOURS).fill(1)
  const m2: Record<MinuteGroup, number> = { hour: 1, quarter: 1, five: 1, other: 1 }
  let w2 = 1
  for (let iter = 0; iter < 6; iter++) {
    const hs = new Array<number>(HOURS).fill(0)
    const hn = new Array<number>(HOURS).fill(0)
    rets.forEach((r, i) => {
      hs[r.hour]! += x[i]! / (m2[r.group] * (r.weekend ? w2 : 1))
      hn[r.hour]!++
    })
    // an hour the span never saw keeps the average level
    const seen = hs.map((s, h) => (hn[h]! > 0 ? s / hn[h]! : null))
    const seenMean = mean(seen.filter((v): v is number => v !== null))
    for (let h = 0; h < HOURS; h++) h2[h] = seen[h] ?? seenMean
    const gs: Record<MinuteGroup, number> = { hour: 0, quarter: 0, five: 0, other: 0 }
    const gn: Record<MinuteGroup, number> = { hour: 0, quarter: 0, five: 0, other: 0 }
    rets.forEach((r, i) => {
      gs[r.group] += x[i]! / (h2[r.hour]! * (r.weekend ? w2 : 1))
      gn[r.group]++
    })
    for (const g of MINUTE_GROUPS) m2[g] = gn[g] > 0 ? gs[g] / gn[g] : 1
    const weekend = rets.flatMap((r, i) => (r.weekend ? [x[i]! / (h2[r.hour]! * m2[r.group])] : []))
    const weekday = rets.flatMap((r, i) => (r.weekend ? [] : [x[i]! / (h2[r.hour]! * m2[r.group])]))
    w2 = weekend.length > 0 && weekday.length > 0 ? mean(weekend) / mean(weekday) : 1
    // normalise: minute groups average 1 over an hour, hours average 1 over a day
    const mNorm = MINUTE_GROUPS.reduce((a, g) => a + GROUP_SHARE[g] * m2[g], 0)
    for (const g of MINUTE_GROUPS) m2[g] /= mNorm
    const hNorm = h2.reduce((a, b) => a + b, 0) / HOURS
    for (let h = 0; h < HOURS; h++) h2[h] = h2[h]! / hNorm
  }
  // smooth the hours over their neighbours (circular)
  const smooth = h2.map(
    (_, h) => 0.25 * h2[(h + HOURS - 1) % HOURS]! + 0.5 * h2[h]! + 0.25 * h2[(h + 1) % HOURS]!,
  )
  const seasonal = {
    hour: smooth.map((v) => round(Math.sqrt(v), 4)),
    minute: Object.fromEntries(MINUTE_GROUPS.map((g) => [g, round(Math.sqrt(m2[g]), 4)])) as Record<
      MinuteGroup,
      number
    >,
    weekend: round(Math.sqrt(w2), 4),
  }
  let total = 0
  rets.forEach((r, i) => {
    const f = seasonal.hour[r.hour]! * seasonal.minute[r.group] * (r.weekend ? seasonal.weekend : 1)
    total += x[i]! / (f * f)
  })
  return { seasonal, sigmaBar: round(Math.sqrt(total / rets.length), 7), returns: rets.length }
}

const mean = (xs: readonly number[]): number =>
  xs.length === 0 ? 1 : xs.reduce((a, b) => a + b, 0) / xs.length

/** Ranges needed to fit their scale: a day of minutes; fewer and the level reads returns only. */
const MIN_RANGES = 1440

/**
 * Stage B, first part: how much larger a minute's squared log range is than its squared return on
 * average (the ratio of their means over one-minute returns whose minute has a range), so a range
 * can stand in for a return in the volatility level. Undefined with fewer than a day of ranges.
 */
export function fitRangeScale(
  runs: readonly (readonly MinuteClose[])[],
  from: number,
  until: number,
): { rangeScale: number | undefined; minutes: number } {
  let ranges = 0
  let returns = 0
  let minutes = 0
  for (const closes of runs) {
    for (let i = 1; i < closes.length; i++) {
      const a = closes[i - 1] as MinuteClose
      const b = closes[i] as MinuteClose
      if (b.at - a.at !== MINUTE_MS || b.at <= from || b.at > until) continue
      if (!(a.priceDollars > 0 && b.priceDollars > 0)) continue
      const range = rangeSquareOf(b)
      if (range === null) continue
      ranges += range
      returns += Math.log(b.priceDollars / a.priceDollars) ** 2
      minutes++
    }
  }
  if (minutes < MIN_RANGES || !(returns > 0)) return { rangeScale: undefined, minutes }
  return { rangeScale: Number((ranges / returns).toPrecision(4)), minutes }
}

/**
 * Stage B: the half-lives and weights of the volatility level by QLIKE against the realised scaled
 * variance of the next 14 minutes, at each quarter hour's first minute of the span.
 */
export function fitVarianceDynamics(
  runs: readonly (readonly MinuteClose[])[],
  from: number,
  until: number,
  params: ModelV2Params,
): { variance: ModelV2Params['variance']; qlike: number; points: number } {
  type Point = { returns: ReturnType<typeof scaledReturns>; at: number; realised: number }
  const points: Point[] = []
  for (const closes of runs) {
    const all = scaledReturns(closes, params)
    for (
      let t = Math.ceil(from / (15 * MINUTE_MS)) * 15 * MINUTE_MS;
      t + 15 * MINUTE_MS <= until;
      t += 15 * MINUTE_MS
    ) {
      const at = t + MINUTE_MS
      const window = all.filter((r) => r.at <= at && r.at > at - 1440 * MINUTE_MS)
      const ahead = all.filter((r) => r.at > at && r.at <= at + 14 * MINUTE_MS)
      if (window.length < 60 || ahead.length < 10) continue
      const realised =
        ahead.reduce((a, r) => a + r.scaledSquare * r.minutes, 0) / ahead.reduce((a, r) => a + r.minutes, 0)
      points.push({ returns: window, at, realised })
    }
  }
  if (points.length === 0)
    throw new Error('stage B: no quarter hour with a day of returns before it and 14 minutes after')
  let best = { loss: Number.POSITIVE_INFINITY, variance: params.variance }
  for (const fastHalfLifeMin of [3, 5, 10, 20, 40]) {
    for (const slowHalfLifeMin of [240, 480, 1440]) {
      const p = { ...params, variance: { ...params.variance, fastHalfLifeMin, slowHalfLifeMin } }
      const levels = points.map((pt) => volatilityLevel(pt.returns, pt.at, p))
      for (let wf = 0; wf <= 1.0001; wf += 0.1) {
        for (let ws = 0; wf + ws <= 1.0001; ws += 0.1) {
          let loss = 0
          levels.forEach((l, i) => {
            const h = wf * l.fast + ws * l.slow + (1 - wf - ws)
            const q = Math.max(1e-6, points[i]!.realised) / h
            loss += q - Math.log(q) - 1
          })
          if (loss < best.loss)
            best = { loss, variance: { ...p.variance, fastWeight: round(wf, 2), slowWeight: round(ws, 2) } }
        }
      }
    }
  }
  return { variance: best.variance, qlike: best.loss / points.length, points: points.length }
}

/**
 * A basis estimate against the basis a settlement showed, and the noise of both: of that showing, and
 * of the estimate's samples taken from two closes (closeNoiseOf), which the model prices apart.
 */
export type BasisError = { squared: number; noise: number }

/**
 * The basis estimate `basis` at a reading against what its settlement showed, relative; null without
 * one. `estimateNoise`: the estimate's own closes noise at the reading (closeNoiseOf(…).basis).
 */
export function basisErrorOf(r: FitReading, basis: number, estimateNoise: number): BasisError | null {
  if (r.realisedBasis === null) return null
  return {
    squared: ((r.realisedBasis - basis) / r.inputs.spotDollars) ** 2,
    noise: (r.realisedBasisNoise ?? 0) + estimateNoise,
  }
}

/**
 * The basis estimate's error variance: the mean squared error less the measurement's own mean noise
 * (a tape's settlement minute seen through two closes), at least 0; null with no settlement. To
 * three significant figures, as the parameter file keeps it.
 */
export function basisErrorVariance(errors: readonly BasisError[]): number | null {
  if (errors.length === 0) return null
  const mean = (f: (e: BasisError) => number) => errors.reduce((a, e) => a + f(e), 0) / errors.length
  return Number(Math.max(0, mean((e) => e.squared) - mean((e) => e.noise)).toPrecision(3))
}

/** The closes without their ranges: what a feed that saw only closes would have read. */
export function withoutRanges(runs: readonly (readonly MinuteClose[])[]): MinuteClose[][] {
  return runs.map((closes) => closes.map((c) => ({ at: c.at, priceDollars: c.priceDollars })))
}

/**
 * A reading's settlement variance before the variance scale, the basis and any strike estimate:
 * the volatility level from its closes with `q`'s dynamics (the returns-only or the ranged ones).
 */
export function unscaledVariance(r: FitReading, q: ModelV2Params): number {
  return unscaledPricing(r, q).v
}

/** unscaledVariance, with the volatility level it was built from. */
export function unscaledPricing(r: FitReading, q: ModelV2Params): { v: number; level: number } {
  const at = r.inputs.spotObservedAt
  const level = levelOver(r.inputs.closes, at, (r.expiresAt - at) / MINUTE_MS, q)
  const averagingMs = r.inputs.averagingS === undefined ? undefined : r.inputs.averagingS * 1000
  const unscaled = { ...q, variance: { ...q.variance, scale: 1 } }
  return { v: settlementVariance(at, r.expiresAt, level, unscaled, averagingMs, 0).variance, level }
}

/**
 * The model's own P(up) for an observation priced with the ranged dynamics or not: a Student t of
 * its centre over its variance times that mode's scale, plus `extra` (the basis's or the strike
 * estimate's variance, which no scale touches), with that mode's ν.
 */
export function modelProbability(
  o: { centre: number; v: number },
  extra: number,
  params: ModelV2Params,
  ranged: boolean,
): number {
  const q = ranged && params.ranged ? params.ranged : params
  return unitStudentTCdf(o.centre / Math.sqrt(q.variance.scale * o.v + extra), q.nu)
}

/** A reading as stage C sees it, priced both ways where it has ranges (`vRanged`: the ranged one). */
export type PricedObservation = FitObservation & {
  vRanged?: number
  /** the centre at the spot the crowd was measured to quote, before the book (crowd-lag.ts), where known */
  centreAtLag?: number
}

/**
 * One settled reading as the fit's regressions see it under `params`' dynamics and basis estimate —
 * the engine's own choice of dynamics for it — with the basis estimate and its closes noise beside
 * (for the basis error at settlement).
 */
export function pricedObservation(
  r: FitReading & { settledSide: 'up' | 'down' },
  params: ModelV2Params,
): { obs: PricedObservation; basis: number; noise: number } {
  const at = r.inputs.spotObservedAt
  // the returns-only dynamics are `params` itself
  const q = pricingParams(r.inputs.closes, at, params)
  // a spot that is the settlement index carries no basis (a keyed recording)
  const basis = r.inputs.spotIsIndex ? 0 : estimateBasis(r.inputs.basisSamples, at, params.basis)
  const plain = unscaledPricing(r, params)
  const ranged = q !== params ? unscaledPricing(r, q) : null
  // the closes noise at the level the engine would price this reading with
  const noise = r.inputs.spotIsIndex ? 0 : closeNoiseOf(r.inputs, q, (ranged ?? plain).level).basis
  const centreAt = (spot: number) => Math.log((spot - basis) / (r.inputs.strikeDollars - 0.005))
  const spotAtLag = spotAtCrowdLag(r.inputs)
  return {
    obs: {
      centre: centreAt(r.inputs.spotDollars),
      ...(spotAtLag === null ? {} : { centreAtLag: centreAt(spotAtLag) }),
      v: plain.v,
      ...(ranged ? { vRanged: ranged.v } : {}),
      ...(noise > 0 ? { noise } : {}),
      book: fitBook(r),
      y: r.settledSide === 'up' ? 1 : 0,
      left: Math.ceil((r.expiresAt - at) / MINUTE_MS - 1e-9),
    },
    basis,
    noise,
  }
}

/** What a reading's book said, as the model reads it. */
export function fitBook(r: { inputs: ModelInputs; expiresAt: number }): BookEvidence | null {
  const state = bookStateOf(r.inputs)
  return state ? bookEvidence(state, r.expiresAt - r.inputs.spotObservedAt) : null
}

/** One reading as stage C prices it: its centre and variance before the scale, and what it saw. */
export type FitObservation = {
  centre: number
  v: number
  /** the basis estimate's closes noise (closeNoiseOf), priced beside the measured basis error */
  noise?: number
  /** what the venue's book said (book-pool.ts); null with no ask on either side */
  book: BookEvidence | null
  y: number
  left: number
}

export function logLoss(p: number, y: number): number {
  const q = Math.min(1 - 1e-4, Math.max(1e-4, p))
  return -(y * Math.log(q) + (1 - y) * Math.log(1 - q))
}

/**
 * The ν and variance scales stage C tries. `coarse` made the shipped file; `fine` steps by a
 * hundredth and adds ν = 7, where the training outcomes' own optimum lies a few hundredths from the
 * coarse grid's points (docs/model.md, "Stage C at a finer step").
 */
export const TAILS_GRIDS = {
  coarse: { nus: [4, 5, 6, 8, 10, 12, 16, 24, 50, 1000], scaleStep: 0.05 },
  fine: { nus: [4, 5, 6, 7, 8, 10, 12, 16, 24, 50, 1000], scaleStep: 0.01 },
} as const
export type TailsGrid = keyof typeof TAILS_GRIDS

/** Stage C, first part: ν and the variance scale by log loss on the outcomes. */
export function fitTails(
  obs: readonly FitObservation[],
  basisVariance: number,
  grid: TailsGrid = 'coarse',
): { nu: number; scale: number; logLoss: number } {
  const { nus, scaleStep } = TAILS_GRIDS[grid]
  let best = { loss: Number.POSITIVE_INFINITY, nu: 12, scale: 1 }
  for (const nu of nus) {
    for (let scale = 0.6; scale <= 1.6001; scale += scaleStep) {
      let loss = 0
      for (const o of obs)
        loss += logLoss(
          unitStudentTCdf(o.centre / Math.sqrt(scale * o.v + basisVariance + (o.noise ?? 0)), nu),
          o.y,
        )
      if (loss < best.loss) best = { loss, nu, scale: round(scale, 2) }
    }
  }
  return { nu: best.nu, scale: best.scale, logLoss: best.loss / obs.length }
}

/**
 * The powers of the book's weight tried by the pool's fit: each at least 1, so a book spanning
 * 0–100 ¢ or quoted long before the reading always leaves the model alone, whatever the training
 * books were (the sandbox's are 1–3 ¢ wide and fresh; a real venue's are sometimes neither).
 */
export const SPREAD_POWERS = [1, 2, 4, 8, 16, 32] as const
export const AGE_POWERS = [1, 2, 4, 8, 16] as const
/** One reading as the pool's regression sees it: the two log-odds, the book's weight, the outcome. */
export type PoolRow = { lm: number; lmid: number; w: number; y: number }

/**
 * A bucket's pool coefficients [intercept, model − 1, mid] by log loss, kept between the model and
 * the book: the mid's coefficient at least 0 and the two summing to at most 1, so the pooled log-odds
 * never pass both sources' (at weight 1 they are a weighted mean of the two, shrunk toward even odds
 * where the sum is under 1). Log loss barely sees the long shots — a long shot priced at 1 % that comes
 * in 1.3 % of the time costs 0.0002 a reading in that bucket — so a free fit that extrapolates past
 * where the model and the book agree (coefficients summing to 1.14 at one minute left, fitted on the
 * body of the training readings) makes every long shot they agree on longer than it is (docs/model.md,
 * "The long shots against the referee"). Where the free fit is inside, it is kept; else the better of
 * its two edges, each a one-coefficient fit clamped to the edge's own range.
 */
export function boundedPoolFit(rows: readonly PoolRow[]): [number, number, number] {
  const y = rows.map((r) => r.y)
  const offset = rows.map((r) => r.lm)
  const free = logisticFit(
    rows.map((r) => [0, r.w * r.lm, r.w * r.lmid]),
    y,
    offset,
  )
  if (free[2] >= 0 && free[1] + free[2] <= 0) return free
  // the edge where the two sum to 1: the model moved a share c of the way to the book, c in [0, 1]
  const share = Math.min(
    1,
    Math.max(
      0,
      logisticFit(
        rows.map((r) => [0, 0, r.w * (r.lmid - r.lm)]),
        y,
        offset,
      )[2],
    ),
  )
  // the edge without the book: the model's log-odds scaled by at most 1
  const scale = Math.min(
    0,
    logisticFit(
      rows.map((r) => [0, r.w * r.lm, 0]),
      y,
      offset,
    )[1],
  )
  const lossOf = (b: number, c: number): number =>
    rows.reduce((sum, r) => {
      const z = r.lm + r.w * (b * r.lm + c * r.lmid)
      return sum + logLoss(1 / (1 + Math.exp(-z)), r.y)
    }, 0)
  return lossOf(-share, share) <= lossOf(scale, 0) ? [0, -share, share] : [0, scale, 0]
}

/** the certainty powers a pool's fit may choose (book-pool.ts certaintyShare); 0 keeps the mid's pull at every level */
export const CERTAINTY_POWERS = [0, 0.25, 0.5, 1, 2, 4] as const

export type PoolFit = { pool: PoolBucket[]; book: BookWeighting; logLoss: number; readings: number }

/**
 * Stage C, last part: the pooling with the book per minutes-left bucket — a logistic regression on
 * the two log-odds through the origin (its intercept stays 0), the book's part scaled by its weight
 * (book-pool.ts), its coefficients kept between the model and the book (boundedPoolFit) — and the
 * weight's powers by log loss over all buckets: both from the book's observable state and the
 * outcomes alone.
 */
export function fitPool<O extends FitObservation>(
  obs: readonly O[],
  modelP: (o: O) => number,
  log: (msg: string) => void,
  certaintyPowers: readonly number[] = [0],
  /** the model's P(up) where it reads the book itself by the weighting tried (stage R); else modelP */
  modelAtWeighting?: (o: O, weighting: BookWeighting) => number,
): PoolFit {
  type Row = {
    lm: number
    lmid: number
    mid: number
    book: BookEvidence
    y: number
    left: number
    model: number
  }
  const rowsAt = (model: (o: O) => number): Row[] => {
    const rows: Row[] = []
    for (const o of obs) {
      if (o.book === null) continue
      const p = model(o)
      const mid = bookReading(p, o.book)
      rows.push({ lm: logitOf(p), lmid: logitOf(mid), mid, book: o.book, y: o.y, left: o.left, model: p })
    }
    return rows
  }
  const bucketed = (rows: readonly Row[]) =>
    POOL_BUCKETS.map(([from, to]) => ({
      from,
      to,
      rows: rows.filter((r) => r.left >= from && r.left <= to),
    }))
  const fixed = modelAtWeighting === undefined ? bucketed(rowsAt(modelP)) : null
  let chosen = fixed
  let best: PoolFit | null = null
  for (const spreadPower of SPREAD_POWERS)
    for (const agePower of AGE_POWERS)
      for (const certaintyPower of certaintyPowers) {
        // 0 is written as no field: a pool fitted without the certainty share keeps its exact file
        const weighting: BookWeighting =
          certaintyPower === 0 ? { spreadPower, agePower } : { spreadPower, agePower, certaintyPower }
        const byBucket =
          fixed ??
          bucketed(rowsAt((o) => (modelAtWeighting as NonNullable<typeof modelAtWeighting>)(o, weighting)))
        const pool: PoolBucket[] = []
        let loss = 0
        let n = 0
        for (const { from, to, rows: rs } of byBucket) {
          if (rs.length === 0) continue
          const w = rs.map((r) => poolWeight(r.model, r.book, weighting))
          // no intercept column: bitcoin has no drift over fifteen minutes worth a logit, so an
          // intercept only learns the training paths' luck (+0.055 on the sandbox's 7,680 training
          // contests, 51.2 % of them up; −0.025 to +0.060 on the card's seeds), which every later
          // reading then pays for. The crowd's constant bias it could undo is c·δ ≈ 0.002.
          const beta = boundedPoolFit(rs.map((r, i) => ({ lm: r.lm, lmid: r.lmid, w: w[i]!, y: r.y })))
          const bucket = {
            fromMinutesLeft: from,
            toMinutesLeft: to,
            intercept: round(beta[0], 4),
            model: round(1 + beta[1], 4),
            mid: round(beta[2], 4),
          }
          rs.forEach((r, i) => {
            loss += logLoss(poolAtWeight(r.model, r.mid, bucket, w[i]!), r.y)
          })
          n += rs.length
          pool.push(bucket)
        }
        if (best === null || loss / Math.max(1, n) < best.logLoss - 1e-12) {
          best = { pool, book: weighting, logLoss: loss / Math.max(1, n), readings: n }
          chosen = byBucket
        }
      }
  const fit = best as PoolFit
  for (const { from, to, rows: rs } of chosen ?? []) {
    const bucket = fit.pool.find((b) => b.fromMinutesLeft === from)
    if (!bucket) {
      log(`pool ${from}–${to} min left: no reading with a quote; the model alone there`)
      continue
    }
    let before = 0
    let after = 0
    for (const r of rs) {
      before += logLoss(r.model, r.y)
      after += logLoss(poolAtWeight(r.model, r.mid, bucket, poolWeight(r.model, r.book, fit.book)), r.y)
    }
    log(
      `pool ${from}–${to} min left: ${JSON.stringify(bucket)} (log loss ${(before / rs.length).toFixed(5)} → ${(after / rs.length).toFixed(5)} over ${rs.length})`,
    )
  }
  log(
    `book weight: (1 − spread)^${fit.book.spreadPower} · (1 − stale share)^${fit.book.agePower} · (4·p(1 − p))^${fit.book.certaintyPower ?? 0}`,
  )
  return fit
}
