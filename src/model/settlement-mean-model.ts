// Model v2: the probability that the venue's settlement quantity (the mean of 60 one-second index
// prints before the close, rounded to cents) is at least the strike, from what the engine observed at
// the instant it observed it (docs/model.md, "The model"; decisions §3 and §11).
import { spotAtCrowdLag } from '../domain/crowd-lag.ts'
import type { ModelInputs, ModelOutput, ReadingModel } from '../domain/reading-model.ts'
import { type BasisOptions, basisCloseNoise, estimateBasis } from './basis.ts'
import { bookEvidence, bookStateOf, bookWeight, lagShiftedBook, poolWithBook } from './book-pool.ts'
import { pricedFromRanges, withRangedDynamics } from './dynamics.ts'
import { crowdMapAt, readFromBook } from './index-read.ts'
import { jumpExposure, probabilityWithJumps } from './jumps.ts'
import { varianceAtHour } from './level-hours.ts'
import { type LevelTail, probabilityWithLevelTail } from './level-tail.ts'
import { type ModelV2Params, modelV2Version } from './params.ts'
import { seasonalVariance } from './seasonal.ts'
import { unitStudentTCdf } from './student-t.ts'
import { levelOver, settlementVariance } from './variance.ts'

/** Half a cent: a mean that rounds to the strike is a tie, and a tie goes up. */
const HALF_CENT = 0.005
const MINUTE_MS = 60_000

/**
 * What model v2 prices a reading from before the book: the dynamics it chose (`ranged`: the ranged
 * ones), the log distance of the index estimate from the strike (`centre`; ±∞ where either is not a
 * price), and the settlement variance with the strike estimate's error added — each part apart, for
 * tools that price the same reading another way.
 */
export type SettlementPricing = {
  ranged: boolean
  params: ModelV2Params
  centre: number
  /** the variance priced: the diffusion's, the basis estimate's error and the strike estimate's */
  variance: number
  /** the diffusion's variance over the horizon, the fitted scale applied; the basis and strike errors apart */
  diffusionVariance: number
  basisVariance: number
  strikeVariance: number
  sigmaPerMinute: number
  effectiveMinutes: number
  /** the level error's measured shape, where it has one (StrikeChoice) */
  levelTail?: StrikeChoice['levelTail']
  /** the basis estimate taken off the spot (dollars): the spot less it is where the engine puts the index */
  basisDollars: number
  /** the volatility level the reading is priced at */
  level: number
  /** `centre` had the spot been `spotDollars`, all else as read: the spot moves nothing else */
  centreAt(spotDollars: number): number
}

/** The dynamics a reading is priced with and the volatility level they give: its closes' alone. */
type LevelPricing = { ranged: boolean; p: ModelV2Params; level: number }

function levelPricingOf(input: ModelInputs, fitted: ModelV2Params): LevelPricing {
  const ranged = pricedFromRanges(input.closes, input.spotObservedAt, fitted)
  const p = ranged ? withRangedDynamics(fitted) : fitted
  const level = levelOver(
    input.closes,
    input.spotObservedAt,
    (input.expiresAt - input.spotObservedAt) / MINUTE_MS,
    p,
  )
  return { ranged, p, level }
}

/**
 * `known`: the level pricing of the same reading's closes, where the caller has it (the same reading
 * with another spot prices on the same level: the filter over a day of closes is the costly part).
 */
export function settlementPricing(
  input: ModelInputs,
  fitted: ModelV2Params,
  known?: LevelPricing,
): SettlementPricing {
  const { ranged, p, level } = known ?? levelPricingOf(input, fitted)
  const averagingMs = input.averagingS === undefined ? undefined : input.averagingS * 1000
  // the settlement index itself as the spot: no basis to remove, none to doubt (issue 29)
  const onIndex = input.spotIsIndex === true
  const priced = strikeToPrice(input, p, level)
  const settlement = settlementVariance(
    input.spotObservedAt,
    input.expiresAt,
    level,
    p,
    averagingMs,
    priced.basisVariance,
  )
  const basis = onIndex
    ? 0
    : estimateBasis(input.basisSamples, input.spotObservedAt, basisOptionsOf(input, p))
  // the proxy's own strike is in the proxy's units like the spot: the basis comes off both, and cancels
  const strike = priced.own ? priced.strikeDollars - basis : priced.strikeDollars
  const strikeVariance = priced.strikeVariance
  const perMinute = settlement.sigmaPerMinute * settlement.sigmaPerMinute
  const centreAt = (spotDollars: number): number => {
    const index = spotDollars - basis
    return !(index > 0)
      ? Number.NEGATIVE_INFINITY
      : strike > HALF_CENT
        ? Math.log(index / (strike - HALF_CENT))
        : Number.POSITIVE_INFINITY
  }
  return {
    ranged,
    params: p,
    centre: centreAt(input.spotDollars),
    basisDollars: basis,
    level,
    centreAt,
    variance: settlement.variance + strikeVariance,
    diffusionVariance: settlement.variance - priced.basisVariance,
    basisVariance: priced.basisVariance,
    strikeVariance,
    sigmaPerMinute: settlement.sigmaPerMinute,
    effectiveMinutes: settlement.effectiveMinutes + (perMinute > 0 ? strikeVariance / perMinute : 0),
    ...(priced.levelTail === undefined ? {} : { levelTail: priced.levelTail }),
  }
}

export function settlementMeanProbability(input: ModelInputs, fitted: ModelV2Params): ModelOutput {
  const priced = settlementPricing(input, fitted)
  const aloneAt = modelAloneOf(input, fitted, priced)
  const modelAloneUp = aloneAt(input.spotDollars)
  return {
    probabilityUp: pooledWithBook(
      input,
      fitted,
      priced,
      modelAloneUp,
      aloneAt,
      indexReadOf(input, fitted, priced),
    ),
    modelAloneUp,
    sigmaPerMinute: priced.sigmaPerMinute,
    effectiveMinutes: priced.effectiveMinutes,
  }
}

/** v2's own P(up) before the pool at each of `spots`, all else as read (a crowd lag's measure). */
export function settlementMeanAloneAt(
  input: ModelInputs,
  fitted: ModelV2Params,
  spots: readonly (number | null)[],
): (number | null)[] {
  const aloneAt = modelAloneOf(input, fitted, settlementPricing(input, fitted))
  return spots.map((spot) => (spot === null ? null : aloneAt(spot)))
}

/**
 * The model alone as a function of the spot: the reading's pricing made once, its centre moved with
 * the spot (nothing else the model reads depends on it), so pricing a reading at sixteen spots costs
 * little more than at one.
 */
function modelAloneOf(
  input: ModelInputs,
  fitted: ModelV2Params,
  priced: SettlementPricing,
): (spotDollars: number) => number {
  const { params: p, variance } = priced
  // jumps only where the ranged level took them out of the variance it measured: squared returns
  // count them already
  const jumps = priced.ranged ? fitted.ranged?.jumps : undefined
  const exposure = jumps === undefined ? undefined : jumpExposure(input, priced)
  const level = priced.levelTail
  return (spotDollars) => {
    const centre = priced.centreAt(spotDollars)
    if (!Number.isFinite(centre)) return centre > 0 ? 1 : 0
    const at = (sd: number): number =>
      jumps !== undefined && exposure !== undefined
        ? probabilityWithJumps(centre, sd, p.nu, exposure, jumps)
        : sd > 0
          ? unitStudentTCdf(centre / sd, p.nu)
          : centre >= 0
            ? 1
            : 0
    return level === undefined
      ? at(Math.sqrt(variance))
      : probabilityWithLevelTail(variance, level.measured, level.tail, at)
  }
}

/**
 * What reading the index from the book needs (index-read.ts): the engine's doubt about its index (the
 * sd of its basis estimate's error, log units) and the model alone on the index at a hypothesis x of
 * that error, the index at the engine's estimate times e^−x. Null where the fit made no crowd map or
 * nothing is doubted: a keyed reading on the index itself, a Polymarket reading (its crowd's map is
 * not fitted), or one whose strike is the proxy's own.
 */
export type IndexRead = {
  doubt: number
  aloneAtError: (x: number) => number
  /**
   * where the file reads the book at the crowd's lag (`bookReadAtLag`) and the spot then is known:
   * the model alone on the index at hypothesis x as of that spot, the price the crowd quoted
   */
  quotedAtError?: (x: number) => number
}

function indexReadOf(input: ModelInputs, fitted: ModelV2Params, priced: SettlementPricing): IndexRead | null {
  if (fitted.bookRead === undefined || input.spotIsIndex === true || input.venue === 'polymarket') return null
  if (!(priced.basisVariance > 0) || input.strikeEstimateVariance !== undefined) return null
  const index = input.spotDollars - priced.basisDollars
  // priced on the index only where a book is read: a reading without a book or a map never needs it
  let aloneOnIndex: ((indexDollars: number) => number) | undefined
  const onIndexAt = (indexDollars: number): number => {
    if (!aloneOnIndex) {
      const onIndex = { ...input, spotIsIndex: true }
      const known = { ranged: priced.ranged, p: priced.params, level: priced.level }
      aloneOnIndex = modelAloneOf(onIndex, fitted, settlementPricing(onIndex, fitted, known))
    }
    return aloneOnIndex(indexDollars)
  }
  const then = fitted.bookReadAtLag === true ? spotAtCrowdLag(input) : null
  return {
    doubt: Math.sqrt(priced.basisVariance),
    aloneAtError: (x) => onIndexAt(index * Math.exp(-x)),
    // the basis is the same a few seconds before: only the spot moved
    ...(then === null
      ? {}
      : { quotedAtError: (x: number) => onIndexAt((then - priced.basisDollars) * Math.exp(-x)) }),
  }
}

/**
 * The published P(up): the model's own, `modelAloneUp`, pooled with the venue's book where the
 * reading has one — by the venue's own pool, else (a reading from the returns alone) the one-minute
 * history's, else the main one. On the main pool, with `read` and a crowd map for its minutes left,
 * the model's own is first the index read from the same book (index-read.ts).
 */
export function pooledWithBook(
  input: ModelInputs,
  fitted: ModelV2Params,
  priced: Pick<SettlementPricing, 'ranged' | 'params'>,
  modelAloneUp: number,
  aloneAt?: (spotDollars: number) => number,
  read?: IndexRead | null,
): number {
  const p = priced.params
  const msLeft = input.expiresAt - input.spotObservedAt
  const venuePool = input.venue === 'polymarket' ? p.venuePools?.polymarket : undefined
  // a reading from the returns alone (one-minute history) pools as such readings of a real venue did
  const grainPool = venuePool === undefined && !priced.ranged ? fitted.returnsOnlyPool : undefined
  const pooling = venuePool ?? grainPool
  const weighting = pooling?.book ?? p.book
  const quoted = bookStateOf(input)
  const book =
    quoted && weighting.lagShift && aloneAt ? lagShiftedBook(input, quoted, modelAloneUp, aloneAt) : quoted
  const evidence = book ? bookEvidence(book, msLeft) : null
  const buckets = pooling?.pool ?? p.pool
  const minutesLeft = Math.ceil(msLeft / 60_000 - 1e-9)
  const bucket = buckets.find((b) => minutesLeft >= b.fromMinutesLeft && minutesLeft <= b.toMinutesLeft)
  const map = pooling === undefined && read ? crowdMapAt(fitted.bookRead, minutesLeft) : undefined
  const modelUp =
    evidence && read && map
      ? readFromBook(
          modelAloneUp,
          read.doubt,
          read.aloneAtError,
          evidence,
          map,
          bookWeight(evidence, weighting),
          read.quotedAtError,
        )
      : modelAloneUp
  return evidence && bucket ? poolWithBook(modelUp, evidence, bucket, weighting) : modelUp
}

/**
 * The strike a reading prices against and the variances it brings; `levelTail`, where the error
 * priced has a measured shape: that shape and the measured variance it scales (the closes' noise
 * beside it is not scaled).
 */
export type StrikeChoice = {
  strikeDollars: number
  own: boolean
  basisVariance: number
  strikeVariance: number
  levelTail?: { tail: LevelTail; measured: number }
}

/** What the choice of strike reads of a reading (the fit keeps only this of each). */
export type StrikeInputs = Pick<
  ModelInputs,
  | 'venue'
  | 'spotIsIndex'
  | 'strikeDollars'
  | 'strikeEstimateVariance'
  | 'ownStrikeDollars'
  | 'strikeEstimateFromCloses'
  | 'basisSamples'
  | 'spotObservedAt'
  | 'opensAt'
>

/**
 * The strike a reading prices against and the variances it brings. The venue's strike, the basis
 * taken off the spot, doubted by the basis estimate's error; or the proxy's own mean over the
 * strike's window (`own`), in the proxy's units like the spot so the basis cancels, doubted by that
 * mean's error. The proxy's own when the venue has not published its strike (decisions §14), and,
 * published or not, where the venue's pool measured both errors and the proxy's is the smaller:
 * Polymarket's oracle sits off the exchanges by an offset that moves daily, which any basis estimate
 * lags for hours, while the proxy's own strike is off only by the basis's drift within a window.
 * Each error is the one measured for the hour the window opens in where the pool has it by hour
 * (level-hours.ts): after a scheduled step the basis estimate is the worse, and the choice follows.
 * On the settlement index itself there is no basis, and the venue's strike is exact.
 */
export function strikeToPrice(input: StrikeInputs, p: ModelV2Params, level: number): StrikeChoice {
  const venuePool = input.venue === 'polymarket' ? p.venuePools?.polymarket : undefined
  const noise = closeNoiseOf(input, p, level)
  // each measured error at the hour this window opens in, where the pool measured it by hour
  const measured =
    venuePool?.strikeEstimateVariance === undefined
      ? undefined
      : varianceAtHour(
          venuePool.strikeEstimateVarianceByHour,
          venuePool.strikeEstimateVariance,
          input.opensAt,
        )
  const basisMeasured =
    venuePool?.basisVariance === undefined
      ? undefined
      : varianceAtHour(venuePool.basisVarianceByHour, venuePool.basisVariance, input.opensAt)
  const ownVariance = measured === undefined ? undefined : measured + noise.strike
  // the measured error's shape, where the venue's pool measured one with it
  const ownTail =
    measured === undefined || venuePool?.strikeTail === undefined
      ? {}
      : { levelTail: { tail: venuePool.strikeTail, measured } }
  if (input.strikeEstimateVariance !== undefined)
    // unpublished: the proxy's own, doubted by its measured error, or without one by the engine's
    // prior (which allows for two closes already)
    return {
      strikeDollars: input.strikeDollars,
      own: true,
      basisVariance: 0,
      strikeVariance: ownVariance ?? input.strikeEstimateVariance,
      ...ownTail,
    }
  const venues = { strikeDollars: input.strikeDollars, own: false, strikeVariance: 0 }
  if (input.spotIsIndex === true) return { ...venues, basisVariance: 0 }
  const basisVariance = (basisMeasured ?? p.basis.variance) + noise.basis
  if (input.ownStrikeDollars !== undefined && ownVariance !== undefined && ownVariance < basisVariance)
    return {
      strikeDollars: input.ownStrikeDollars,
      own: true,
      basisVariance: 0,
      strikeVariance: ownVariance,
      ...ownTail,
    }
  const basisTail =
    basisMeasured === undefined || venuePool?.basisTail === undefined
      ? {}
      : { levelTail: { tail: venuePool.basisTail, measured: basisMeasured } }
  return { ...venues, basisVariance, ...basisTail }
}

/** How a reading's basis is estimated: the main fit's, with the decay its venue's pool fitted. */
export function basisOptionsOf(input: Pick<ModelInputs, 'venue'>, p: ModelV2Params): BasisOptions {
  const decay = input.venue === 'polymarket' ? p.venuePools?.polymarket?.basisDecay : undefined
  return decay === undefined ? p.basis : { ...p.basis, decay }
}

/**
 * What two closes standing in for a minute's own mean add (squared log units) on top of the measured
 * errors, which are the means' own: to the basis estimate, from its samples the feed did not see
 * whole, and to an estimated strike from closes. Each such mean is off by a twelfth of its minute's
 * variance (`level` the volatility level the reading is priced at).
 */
export function closeNoiseOf(
  input: Pick<
    ModelInputs,
    'venue' | 'basisSamples' | 'spotObservedAt' | 'opensAt' | 'strikeEstimateFromCloses'
  >,
  p: ModelV2Params,
  level: number,
): { basis: number; strike: number } {
  const minuteNoise = (opensAt: number): number => closeMeanNoise(p, level, opensAt)
  return {
    basis: basisCloseNoise(input.basisSamples, input.spotObservedAt, basisOptionsOf(input, p), minuteNoise),
    strike: input.strikeEstimateFromCloses ? minuteNoise(input.opensAt) : 0,
  }
}

/**
 * The variance (squared log units) of the mean of the minute before `opensAt` guessed from its two
 * closes: a twelfth of the minute's variance (a Brownian bridge's mean against its ends' average).
 */
export function closeMeanNoise(p: ModelV2Params, level: number, opensAt: number): number {
  return (p.sigmaBar * p.sigmaBar * level * seasonalVariance(p.seasonal, opensAt - MINUTE_MS, opensAt)) / 12
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
    modelAloneAtSpots: (input, spots) => settlementMeanAloneAt(input, p, spots),
    // the venue's own pool where it has one; else the main pool's or the one-minute pool's, whichever
    // a reading's feed picks (pooledWithBook)
    readsCrowdLag: (venue) =>
      venue === 'polymarket' && p.venuePools?.polymarket
        ? p.venuePools.polymarket.book.lagShift === true
        : p.book.lagShift === true ||
          p.returnsOnlyPool?.book.lagShift === true ||
          (p.bookRead !== undefined && p.bookReadAtLag === true),
  }
}
