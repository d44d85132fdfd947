// A reading as `evaluate` and the backtest judge it (decisions §11, §13): the published signal, what
// produced it, and its contest's result. Internal: never part of the public JSON.
import type { ReadingInputs, Side, Signal } from './contest.ts'

export type GradedReading = Omit<Signal, 'inputs'> & {
  opensAt: number
  expiresAt: number
  /** the contest's result; null when voided */
  settledSide: Side | null
  /** null on readings stored before their inputs were */
  inputs: ReadingInputs | null
}

const MINUTE_MS = 60_000

/** A reading of a contest that settled (not voided), so it has an outcome to be scored against. */
export function isGraded(r: GradedReading): boolean {
  return r.settledSide !== null && (r.outcome === 'win' || r.outcome === 'loss')
}

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
