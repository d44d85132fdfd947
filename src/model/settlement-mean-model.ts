// Model v2: the probability that the venue's settlement quantity (the mean of 60 one-second index
// prints before the close, rounded to cents) is at least the strike, from what the engine observed at
// the instant it observed it (docs/model.md, "The model"; decisions §3 and §11).
import type { ModelInputs, ModelOutput, ReadingModel } from '../domain/reading-model.ts'
import { estimateBasis } from './basis.ts'
import { type ModelV2Params, modelV2Version, type PoolBucket } from './params.ts'
import { unitStudentTCdf } from './student-t.ts'
import { settlementVariance, volatilityLevelOfCloses } from './variance.ts'

/** Half a cent: a mean that rounds to the strike is a tie, and a tie goes up. */
const HALF_CENT = 0.005

export function settlementMeanProbability(input: ModelInputs, p: ModelV2Params): ModelOutput {
  const level = volatilityLevelOfCloses(input.closes, input.spotObservedAt, p).level
  const averagingMs = input.averagingS === undefined ? undefined : input.averagingS * 1000
  const settlement = settlementVariance(input.spotObservedAt, input.expiresAt, level, p, averagingMs)
  const basis = estimateBasis(input.basisSamples, input.spotObservedAt, p.basis)
  const index = input.spotDollars - basis
  // an estimated strike (decisions §14) is the proxy's own mean, in the proxy's units like the spot,
  // and its error adds to the variance
  const estimated = input.strikeEstimateVariance !== undefined
  const strike = estimated ? input.strikeDollars - basis : input.strikeDollars
  const strikeVariance = input.strikeEstimateVariance ?? 0
  const perMinute = settlement.sigmaPerMinute * settlement.sigmaPerMinute
  const v = {
    ...settlement,
    variance: settlement.variance + strikeVariance,
    effectiveMinutes: settlement.effectiveMinutes + (perMinute > 0 ? strikeVariance / perMinute : 0),
  }
  const centre = !(index > 0)
    ? Number.NEGATIVE_INFINITY
    : strike > HALF_CENT
      ? Math.log(index / (strike - HALF_CENT))
      : Number.POSITIVE_INFINITY
  const atVariance = (variance: number): number =>
    !Number.isFinite(centre)
      ? centre > 0
        ? 1
        : 0
      : variance > 0
        ? unitStudentTCdf(centre / Math.sqrt(variance), p.nu)
        : centre >= 0
          ? 1
          : 0
  let pool: PoolBucket | undefined
  if (input.midProbability !== null) {
    const minutesLeft = Math.ceil((input.expiresAt - input.spotObservedAt) / 60_000 - 1e-9)
    pool = p.pool.find((b) => minutesLeft >= b.fromMinutesLeft && minutesLeft <= b.toMinutesLeft)
  }
  const pooled = (model: number): number =>
    pool ? poolLogOdds(model, input.midProbability as number, pool) : model
  const modelAloneUp = atVariance(v.variance)
  const probabilityUp = pooled(modelAloneUp)
  return {
    probabilityUp,
    modelAloneUp,
    sigmaPerMinute: v.sigmaPerMinute,
    effectiveMinutes: v.effectiveMinutes,
  }
}

/** Logits are taken no closer to 0 and 1 than this: a decided model and a 0.1 ¢ mid stay finite. */
export const POOL_LOGIT_BOUND = 1e-4

export function logitOf(q: number): number {
  const c = Math.min(1 - POOL_LOGIT_BOUND, Math.max(POOL_LOGIT_BOUND, q))
  return Math.log(c / (1 - c))
}

/** logit p = intercept + model·logit(model's p) + mid·logit(mid). */
export function poolLogOdds(
  model: number,
  mid: number,
  w: Pick<PoolBucket, 'intercept' | 'model' | 'mid'>,
): number {
  const z = w.intercept + w.model * logitOf(model) + w.mid * logitOf(mid)
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
