// Paired differences (decisions §13, §15): two forecasters scored on the same readings, the
// difference taken per reading so the outcome's noise cancels, with a standard error clustered by
// contest and a day-block bootstrap interval. Also the comparison of two stores: the same contests'
// readings under two models, matched by ticker and minute. Pure arithmetic, no I/O.
import { dayBlockBootstrap, type Interval, utcDayOf } from './bootstrap.ts'
import { type GradedReading, isGraded, publishedProbabilityUp } from './graded-reading.ts'
import { brierOf, clusteredMean, type Estimate, logLossOf, type ScoredPoint } from './scores.ts'

/** A scored observation and the UTC day its contest opened on, the bootstrap's block. */
export type DatedPoint = ScoredPoint & { day: number }

/** A mean paired difference: SE clustered by contest, and a 95 % day-block bootstrap interval. */
export type PairedDifference = Estimate & { interval: Interval | null }

export type PairedScores = { logLoss: PairedDifference; brier: PairedDifference }

/**
 * How intervals are drawn: `resample` makes a fresh generator of uniforms on [0, 1) per interval
 * (seeded, so each interval is reproducible on its own), `draws` resamples per interval.
 */
export type BootstrapPlan = { resample: () => () => number; draws: number }

/**
 * `a − b` per reading of log loss and Brier (negative: a is better); `a[i]` and `b[i]` are the same
 * reading. Without a plan, no interval.
 */
export function pairedDifferences(
  a: readonly DatedPoint[],
  b: readonly ScoredPoint[],
  plan: BootstrapPlan | null,
): PairedScores {
  const clusters = a.map((pt) => pt.contest)
  const days = a.map((pt) => pt.day)
  const of = (score: (p: number, y: number) => number): PairedDifference => {
    const d = a.map((pt, i) => score(pt.p, pt.y) - score((b[i] as ScoredPoint).p, pt.y))
    const interval = plan ? dayBlockBootstrap(d, days, plan.resample(), plan.draws) : null
    return { ...clusteredMean(d, clusters), interval }
  }
  return { logLoss: of(logLossOf), brier: of(brierOf) }
}

export function datedPoint(r: GradedReading, p: number): DatedPoint {
  return { contest: r.ticker, y: r.settledSide === 'up' ? 1 : 0, p, day: utcDayOf(r.opensAt) }
}

export type StoreComparison = {
  /** the model versions of each store's graded readings */
  versions: { here: string[]; against: string[] }
  /** readings present in both stores, and those of each store with no partner */
  matched: number
  unmatched: { here: number; against: number }
  contests: number
  /** this store's published P(up) − the other's, per matched reading (negative: this store is better) */
  difference: PairedScores
}

/**
 * The same readings (ticker and minute) under two models: graded readings of both lists are
 * matched; the outcome is this store's.
 */
export function compareStores(
  here: readonly GradedReading[],
  against: readonly GradedReading[],
  plan: BootstrapPlan | null,
): StoreComparison {
  const key = (r: GradedReading) => `${r.ticker}\u0000${r.minute}`
  const graded = here.filter(isGraded)
  const there = new Map(against.filter(isGraded).map((r) => [key(r), r]))
  const a: DatedPoint[] = []
  const b: ScoredPoint[] = []
  for (const r of graded) {
    const other = there.get(key(r))
    if (!other) continue
    const pt = datedPoint(r, publishedProbabilityUp(r))
    a.push(pt)
    b.push({ ...pt, p: publishedProbabilityUp(other) })
  }
  const versionsOf = (rs: Iterable<GradedReading>) =>
    [...new Set([...rs].map((r) => r.modelVersion ?? 'unknown'))].sort()
  return {
    versions: { here: versionsOf(graded), against: versionsOf(there.values()) },
    matched: a.length,
    unmatched: { here: graded.length - a.length, against: there.size - a.length },
    contests: new Set(a.map((pt) => pt.contest)).size,
    difference: pairedDifferences(a, b, plan),
  }
}
