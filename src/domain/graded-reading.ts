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
