// Model v2: the probability that the venue's settlement quantity (the mean of 60 one-second index
// prints before the close, rounded to cents) is at least the strike, from what the engine observed at
// the instant it observed it (docs/model.md, "The model"; decisions §3 and §11).
import type { ModelInputs, ModelOutput, ReadingModel } from '../domain/reading-model.ts'
import { estimateBasis } from './basis.ts'
import { bookEvidence, bookStateOf, poolWithBook } from './book-pool.ts'
import { pricingParams } from './dynamics.ts'
import { type ModelV2Params, modelV2Version } from './params.ts'
import { unitStudentTCdf } from './student-t.ts'
import { settlementVariance, volatilityLevelOfCloses } from './variance.ts'

/** Half a cent: a mean that rounds to the strike is a tie, and a tie goes up. */
const HALF_CENT = 0.005

export function settlementMeanProbability(input: ModelInputs, fitted: ModelV2Params): ModelOutput {
  const p = pricingParams(input.closes, input.spotObservedAt, fitted)
  const level = volatilityLevelOfCloses(input.closes, input.spotObservedAt, p).level
  const averagingMs = input.averagingS === undefined ? undefined : input.averagingS * 1000
  // the settlement index itself as the spot: no basis to remove, none to doubt (issue 29)
  const onIndex = input.spotIsIndex === true
  const venuePool = input.venue === 'polymarket' ? p.venuePools?.polymarket : undefined
  // an estimated strike (decisions §14) is the proxy's own mean, in the proxy's units like the spot,
  // and its error — measured by the fit where the venue's pool was fitted — adds to the variance;
  // the basis then cancels, and its estimate's error with it
  const estimated = input.strikeEstimateVariance !== undefined
  const basisVariance = onIndex || estimated ? 0 : (venuePool?.basisVariance ?? p.basis.variance)
  const settlement = settlementVariance(
    input.spotObservedAt,
    input.expiresAt,
    level,
    p,
    averagingMs,
    basisVariance,
  )
  const basis = onIndex ? 0 : estimateBasis(input.basisSamples, input.spotObservedAt, p.basis)
  const index = input.spotDollars - basis
  const strike = estimated ? input.strikeDollars - basis : input.strikeDollars
  const strikeVariance = estimated
    ? (venuePool?.strikeEstimateVariance ?? (input.strikeEstimateVariance as number))
    : 0
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
  const modelAloneUp = !Number.isFinite(centre)
    ? centre > 0
      ? 1
      : 0
    : v.variance > 0
      ? unitStudentTCdf(centre / Math.sqrt(v.variance), p.nu)
      : centre >= 0
        ? 1
        : 0
  const msLeft = input.expiresAt - input.spotObservedAt
  const book = bookStateOf(input)
  const evidence = book ? bookEvidence(book, msLeft) : null
  const buckets = venuePool?.pool ?? p.pool
  const minutesLeft = Math.ceil(msLeft / 60_000 - 1e-9)
  const bucket = buckets.find((b) => minutesLeft >= b.fromMinutesLeft && minutesLeft <= b.toMinutesLeft)
  const probabilityUp =
    evidence && bucket
      ? poolWithBook(modelAloneUp, evidence, bucket, venuePool?.book ?? p.book)
      : modelAloneUp
  return {
    probabilityUp,
    modelAloneUp,
    sigmaPerMinute: v.sigmaPerMinute,
    effectiveMinutes: v.effectiveMinutes,
  }
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
