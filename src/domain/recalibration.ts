// The recalibrated mid (decisions §15, signals.md §6): the venue's mid with its own bias undone,
// logit P(up) = a + b·logit(mid), two numbers per minutes-left bucket fitted by maximum likelihood on
// a training period only. It is the benchmark a model must beat: beating the raw mid may only measure
// a bias correction that the book's own history already gives away. Pure arithmetic, no I/O.
import { boundedLogit, calibrationFit, type Estimate, type ScoredPoint } from './scores.ts'

/** Where the mid's bias changes: the last minute, the one before, the middle, the start. */
export const RECALIBRATION_BUCKETS: readonly { label: string; from: number; to: number }[] = [
  { label: '1', from: 1, to: 1 },
  { label: '2', from: 2, to: 2 },
  { label: '3–7', from: 3, to: 7 },
  { label: '8–14', from: 8, to: 14 },
]

/** A training reading: its contest, outcome (1 = up), the mid as P(up), and its minutes left. */
export type MidPoint = ScoredPoint & { minutesLeft: number }

export type RecalibrationBucket = {
  label: string
  from: number
  to: number
  /** training readings and contests the bucket was fitted on */
  readings: number
  contests: number
  /** a and b of logit P(up) = a + b·logit(mid), SE clustered by contest; null when not fittable */
  intercept: Estimate | null
  slope: Estimate | null
}

export type Recalibration = { buckets: RecalibrationBucket[] }

/**
 * Fits a and b per bucket by logistic regression of the outcome on logit(mid) (Newton's method: the
 * calibration fit). A bucket with one outcome only, or no spread in the mid, stays unfitted.
 */
export function fitRecalibration(points: readonly MidPoint[]): Recalibration {
  return {
    buckets: RECALIBRATION_BUCKETS.map((b) => {
      const inside = points.filter((pt) => pt.minutesLeft >= b.from && pt.minutesLeft <= b.to)
      const fit = calibrationFit(inside)
      return {
        ...b,
        readings: inside.length,
        contests: new Set(inside.map((pt) => pt.contest)).size,
        intercept: fit?.intercept ?? null,
        slope: fit?.slope ?? null,
      }
    }),
  }
}

/** The recalibrated mid as P(up), or null outside the buckets or where the bucket was not fitted. */
export function recalibratedMid(fit: Recalibration, mid: number, minutesLeft: number): number | null {
  const b = fit.buckets.find((x) => minutesLeft >= x.from && minutesLeft <= x.to)
  if (!b?.intercept || !b.slope) return null
  return 1 / (1 + Math.exp(-(b.intercept.value + b.slope.value * boundedLogit(mid))))
}
