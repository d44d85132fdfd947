// Model v2: the probability that the venue's settlement quantity (the mean of 60 one-second index
// prints before the close, rounded to cents) is at least the strike, from what the engine observed at
// the instant it observed it (signals.md §4, decisions §3 and §11).
import type { ModelInputs, ModelOutput, ReadingModel } from '../domain/reading-model.ts'
import { estimateBasis } from './basis.ts'
import { type ModelV2Params, modelV2Version } from './params.ts'
import { unitStudentTCdf } from './student-t.ts'
import { settlementVariance, volatilityLevelOfCloses } from './variance.ts'

/** Half a cent: a mean that rounds to the strike is a tie, and a tie goes up. */
const HALF_CENT = 0.005

export function settlementMeanProbability(input: ModelInputs, p: ModelV2Params): ModelOutput {
  const level = volatilityLevelOfCloses(input.closes, input.spotObservedAt, p).level
  const v = settlementVariance(input.spotObservedAt, input.expiresAt, level, p)
  const basis = estimateBasis(input.basisSamples, input.spotObservedAt, p.basis)
  const index = input.spotDollars - basis
  let probabilityUp: number
  if (!(index > 0)) {
    probabilityUp = 0
  } else {
    const centre = Math.log(index / (input.strikeDollars - HALF_CENT))
    probabilityUp =
      v.variance > 0 ? unitStudentTCdf(centre / Math.sqrt(v.variance), p.nu) : centre >= 0 ? 1 : 0
  }
  if (input.midProbability !== null && p.poolWeight < 1) {
    probabilityUp = poolLogOdds(probabilityUp, input.midProbability, p.poolWeight)
  }
  return { probabilityUp, sigmaPerMinute: v.sigmaPerMinute, effectiveMinutes: v.effectiveMinutes }
}

/** Log-odds pooling: logit p = w·logit(model) + (1 − w)·logit(mid), with both kept off 0 and 1. */
export function poolLogOdds(model: number, mid: number, w: number): number {
  const logit = (q: number): number => {
    const c = Math.min(1 - 1e-9, Math.max(1e-9, q))
    return Math.log(c / (1 - c))
  }
  const z = w * logit(model) + (1 - w) * logit(mid)
  return 1 / (1 + Math.exp(-z))
}

/** Closes model v2 reads: a day, so the slow level sees a whole daily cycle. */
export const V2_HISTORY_MINUTES = 1_440
/** Usable closes needed before the first reading: half an hour of the proxy (decisions §11). */
export const V2_MIN_HISTORY_CLOSES = 30

export function createSettlementMeanModel(p: ModelV2Params): ReadingModel {
  return {
    version: modelV2Version(p),
    historyMinutes: V2_HISTORY_MINUTES,
    minHistoryCloses: V2_MIN_HISTORY_CLOSES,
    probabilityUp: (input) => settlementMeanProbability(input, p),
  }
}
