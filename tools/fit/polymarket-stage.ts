// Stage D of model v2's fit: Polymarket's own pool with its book, and the error of the engine's own
// strike estimate, both from that venue's readings (a Polymarket tape: the sandbox's, or recorded).
// Nothing here needs a hidden truth (decisions §15): the strike error is measured at window edges,
// where the venue's final price of a window (the next window's price to beat, finalPrice(N) =
// priceToBeat(N + 1)) meets the proxy's own mean over the same seconds — the estimate the engine
// makes while the strike is unpublished.
import { MINUTE_MS } from '../../src/domain/contest.ts'
import { basisCloseNoise, estimateBasis } from '../../src/model/basis.ts'
import { pricingParams } from '../../src/model/dynamics.ts'
import type { ModelV2Params, VenuePool } from '../../src/model/params.ts'
import { closeMeanNoise, type StrikeInputs, strikeToPrice } from '../../src/model/settlement-mean-model.ts'
import type { FitSource } from './fit-source.ts'
import { fitLevelHours, type TimedError } from './level-hours-fit.ts'
import { fitLevelTail } from './level-tail-fit.ts'
import {
  type BasisError,
  basisErrorOf,
  basisErrorVariance,
  type FitObservation,
  fitBook,
  fitPool,
  modelProbability,
  unscaledPricing,
} from './stages.ts'

/**
 * A strike of the venue beside the proxy's own mean over its window: one window edge; `run` tells
 * apart tape sets on the same dates (unionFitSource), whose edges are never neighbours.
 */
export type StrikeEdge = {
  opensAt: number
  strikeDollars: number
  proxyMeanDollars: number
  /** the variance of that proxy mean as a measurement: 0 from the minute's own mean, more from two closes */
  noise?: number
  run?: number
}

/** An edge's place: its tape set and its open. */
const edgeKey = (run: number | undefined, opensAt: number): string => `${run ?? 0}@${opensAt}`

/**
 * The variance (relative, squared log units) of the engine's strike estimate that does not cancel:
 * at each edge e = ln(proxy mean / published strike) holds the proxy's basis plus the estimate's own
 * error. Priced against its own strike, the model takes the proxy's move from the window's start to
 * its end for the index's, so it errs by the change of e from the start's edge to the end's — the
 * next window's start: the mean squared change of e between consecutive edges. The same error, on
 * the same footing, as the basis estimate's against the settlement (`basisVariance`), so the model's
 * choice between the two strikes weighs like with like. Null with no two consecutive edges.
 */
export function strikeEstimateVariance(edges: readonly StrikeEdge[], spanMs: number): number | null {
  const changes = strikeEdgeChanges(edges, spanMs)
  if (changes.length === 0) return null
  const mean = (f: (c: BasisError) => number) => changes.reduce((a, c) => a + f(c), 0) / changes.length
  // the measurements' own noise is no error of the estimate's: the model prices it apart
  return Math.max(0, mean((c) => c.squared) - mean((c) => c.noise))
}

/**
 * The squared change of e between each pair of consecutive edges, with the noise of the two proxy
 * means that measured it and the open of the window they bound: the samples strikeEstimateVariance
 * averages, and its tail and its hours are measured on.
 */
export function strikeEdgeChanges(edges: readonly StrikeEdge[], spanMs: number): TimedError[] {
  const byOpen = new Map<string, { run: number | undefined; opensAt: number; e: number; noise: number }>()
  for (const edge of edges)
    if (edge.strikeDollars > 0 && edge.proxyMeanDollars > 0)
      byOpen.set(edgeKey(edge.run, edge.opensAt), {
        run: edge.run,
        opensAt: edge.opensAt,
        e: Math.log(edge.proxyMeanDollars / edge.strikeDollars),
        noise: edge.noise ?? 0,
      })
  const changes: TimedError[] = []
  for (const { run, opensAt, e, noise } of byOpen.values()) {
    const before = byOpen.get(edgeKey(run, opensAt - spanMs))
    if (before !== undefined)
      changes.push({ squared: (e - before.e) ** 2, noise: noise + before.noise, opensAt: before.opensAt })
  }
  return changes
}

/** The decays of the basis estimate the fit weighs, from the plain mean to the newest strike alone. */
export const BASIS_DECAYS = [1, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0] as const

/**
 * The decay whose basis estimate erred least against the settlements (`errors[i]` made with
 * BASIS_DECAYS[i]), with its place in BASIS_DECAYS and that error's variance; the plain mean on a
 * tie. Null with no settlement.
 */
export function bestBasisDecay(
  errors: readonly (readonly BasisError[])[],
): { decay: number; index: number; variance: number } | null {
  let best: { decay: number; index: number; variance: number } | null = null
  BASIS_DECAYS.forEach((decay, index) => {
    const variance = basisErrorVariance(errors[index] ?? [])
    if (variance !== null && (best === null || variance < best.variance)) best = { decay, index, variance }
  })
  return best
}

/**
 * The mid's fading power Polymarket's pool is fitted with: chosen on validation seeds over the 0.25
 * the training fit takes from CERTAINTY_POWERS (why, and the figures: docs/model.md, "Training data
 * and fitted parameters").
 * `--polymarket-certainty-powers` gives the fit the grid back.
 */
export const POLYMARKET_CERTAINTY_POWERS: readonly number[] = [0.5]

/** A Polymarket reading as its pool's fit sees it: stage C's, plus what its strike adds and how it is priced. */
export type PolymarketObservation = FitObservation & { extra: number; ranged: boolean }

/**
 * Polymarket's own pool: the model priced with the price stages fitted on the main source (the
 * bitcoin path is one; the crowd and the rule are the venue's), its own strike-estimate error while
 * a strike is unpublished, then the pool and the book weight fitted on its readings alone.
 */
export async function fitPolymarket(
  source: FitSource,
  params: ModelV2Params,
  log: (msg: string) => void,
  certaintyPowers: readonly number[] = POLYMARKET_CERTAINTY_POWERS,
  // the level error's measured shapes into the file: a candidate not adopted (docs/model.md, "The
  // level error's tail"), so only on request; the fit logs them either way
  levelTails = false,
): Promise<VenuePool> {
  const { obs, measuredPool, contests } = await polymarketObservations(source, params, log)
  const modelP = (o: PolymarketObservation) => modelProbability(o, o.extra, params, o.ranged)
  const pooled = fitPool(obs, modelP, (msg) => log(`polymarket ${msg}`), certaintyPowers)
  const { strikeEstimateVariance: measured, basisVariance, basisDecay, strikeTail, basisTail } = measuredPool
  const { strikeEstimateVarianceByHour, basisVarianceByHour } = measuredPool
  return {
    pool: pooled.pool,
    // read with the crowd's measured lag undone (crowd-lag.ts): the pool's coefficients are fitted
    // on the books as quoted, the shift added on top (docs/model.md, "A crowd that quotes late")
    book: { ...pooled.book, lagShift: true },
    ...(measured === undefined ? {} : { strikeEstimateVariance: Number(measured.toPrecision(3)) }),
    ...(basisVariance === undefined ? {} : { basisVariance }),
    ...(basisDecay === undefined ? {} : { basisDecay }),
    ...(levelTails && strikeTail !== undefined ? { strikeTail } : {}),
    ...(levelTails && basisTail !== undefined ? { basisTail } : {}),
    ...(strikeEstimateVarianceByHour === undefined ? {} : { strikeEstimateVarianceByHour }),
    ...(basisVarianceByHour === undefined ? {} : { basisVarianceByHour }),
    training: source.training(obs.length, contests),
  }
}

/**
 * Polymarket's graded readings priced as the model would with `params` (the main fit's), and the
 * errors measured on them that the model's choice of strike weighs.
 */
export async function polymarketObservations(
  source: FitSource,
  params: ModelV2Params,
  log: (msg: string) => void,
): Promise<{ obs: PolymarketObservation[]; measuredPool: VenuePool; contests: number }> {
  // what the pool needs of a reading, not the reading (a day of closes each would not fit in memory):
  // what the model's choice of strike reads (strikeToPrice), decided only once every reading has
  // been seen and the errors it weighs are measured
  type Pending = {
    obs: Omit<FitObservation, 'centre'>
    strikeInputs: StrikeInputs
    spotDollars: number
    /** the basis estimate under each of BASIS_DECAYS */
    bases: number[]
    level: number
    /** priced with the ranged dynamics, as the engine would (dynamics.ts) */
    ranged: boolean
  }
  const pending: Pending[] = []
  const edges = new Map<string, StrikeEdge>()
  // the basis estimate's errors against the settlements, one list for each of BASIS_DECAYS
  const basisErrors: TimedError[][] = BASIS_DECAYS.map(() => [])
  const contests = new Set<string>()
  let spanMs = 15 * MINUTE_MS
  await source.forEachReading((r) => {
    if (r.settledSide === null) return
    const at = r.inputs.spotObservedAt
    spanMs = r.expiresAt - r.inputs.opensAt
    const q = pricingParams(r.inputs.closes, at, params)
    const { v, level } = unscaledPricing(r, q)
    // the basis under each decay the fit weighs; the reading is priced with the one chosen
    const bases = BASIS_DECAYS.map((decay) =>
      r.inputs.spotIsIndex ? 0 : estimateBasis(r.inputs.basisSamples, at, { ...params.basis, decay }),
    )
    // a proxy mean from two closes is off by a twelfth of its minute's variance
    const closeNoise = (opensAt: number) => closeMeanNoise(q, level, opensAt)
    const edge = (e: StrikeEdge) => edges.set(edgeKey(r.run, e.opensAt), { ...e, run: r.run })
    for (const sample of r.inputs.basisSamples)
      edge({ ...sample, noise: sample.fromCloses ? closeNoise(sample.opensAt) : 0 })
    // the window's final price is the next window's price to beat: an edge at the close, beside the
    // proxy's mean over the same minute — the estimate the engine makes of the next strike
    if (r.realisedBasis !== null && r.settledPriceDollars !== null)
      edge({
        opensAt: r.expiresAt,
        strikeDollars: r.settledPriceDollars,
        proxyMeanDollars: r.settledPriceDollars + r.realisedBasis,
        noise: r.realisedBasisNoise ?? 0,
      })
    // the basis against this venue's own settlement price (its oracle, not Kalshi's index): the
    // estimate at the last reading against the basis the settlement showed, as stage C measures Kalshi's
    if (!r.inputs.spotIsIndex)
      BASIS_DECAYS.forEach((decay, i) => {
        const estimateNoise = basisCloseNoise(
          r.inputs.basisSamples,
          at,
          { ...params.basis, decay },
          closeNoise,
        )
        const error = basisErrorOf(r, bases[i] as number, estimateNoise)
        if (error) basisErrors[i]?.push({ ...error, opensAt: r.inputs.opensAt })
      })
    contests.add(`${r.run ?? 0}:${r.ticker}`)
    // all the model's choice of strike reads: the inputs without their day of closes
    const { closes: _, ...strikeInputs } = r.inputs
    pending.push({
      obs: {
        v,
        book: fitBook(r),
        y: r.settledSide === 'up' ? 1 : 0,
        left: Math.ceil((r.expiresAt - at) / MINUTE_MS - 1e-9),
      },
      strikeInputs,
      spotDollars: r.inputs.spotDollars,
      bases,
      level,
      ranged: q !== params,
    })
  })
  if (pending.length === 0) throw new Error('--polymarket-tapes: no graded Polymarket reading to fit on')
  const measured = strikeEstimateVariance([...edges.values()], spanMs)
  const best = bestBasisDecay(basisErrors)
  // the shape of each error, at the mean just measured (its tail: level-tail-fit.ts)
  const changes = strikeEdgeChanges([...edges.values()], spanMs)
  const chosenErrors = best === null ? [] : (basisErrors[best.index] ?? [])
  const strikeTail = measured === null ? null : fitLevelTail(changes, measured)
  const basisTail = best === null ? null : fitLevelTail(chosenErrors, best.variance)
  const basisVariance = best?.variance ?? null
  // decay 1 is the main fit's plain mean: the file says so by saying nothing
  const decay = best === null || best.decay === 1 ? undefined : best.decay
  // the plain mean (index 0) where no settlement chose
  const decayIndex = best?.index ?? 0
  const tailText = (t: typeof strikeTail, n: number) =>
    `${t === null ? 'none (one normal)' : `${t.tail.share} of errors × ${t.tail.wide} (log likelihood +${t.gain.toFixed(1)})`} over ${n} errors`
  log(
    `polymarket: level error tails: strike ${tailText(strikeTail, changes.length)}; basis ${tailText(basisTail, chosenErrors.length)}`,
  )
  log(
    `polymarket: ${pending.length} readings of ${contests.size} contests; strike estimate error variance ${measured ?? 'not measured (no two consecutive edges)'}; basis error variance by decay ${BASIS_DECAYS.map((d, i) => `${d}: ${basisErrorVariance(basisErrors[i] ?? [])}`).join(', ')} over ${basisErrors[0]?.length ?? 0} settlements; decay ${best?.decay ?? 'not measured'} kept`,
  )
  // each error's variance by the hour its window opens in, at the mean just measured
  const strikeHours = measured === null ? null : fitLevelHours(changes, measured)
  const basisHours = best === null ? null : fitLevelHours(chosenErrors, best.variance)
  const hoursText = (h: typeof strikeHours, pooled: number | null | undefined) =>
    h === null
      ? 'the pooled variance at every hour (the hours differ by no more than their sampling error)'
      : `${h.byHour.map((v, hour) => `${hour}h ${(v / (pooled ?? 1)).toFixed(2)}`).join(' ')} × the pooled variance (hours' spread sd ${Math.sqrt(h.spread).toPrecision(3)})`
  log(
    `polymarket: level error by UTC hour of the window's open: strike ${hoursText(strikeHours, measured)}; basis ${hoursText(basisHours, best?.variance)}`,
  )
  const hours = {
    ...(strikeHours === null ? {} : { strikeEstimateVarianceByHour: strikeHours.byHour }),
    ...(basisHours === null ? {} : { basisVarianceByHour: basisHours.byHour }),
  }
  // the model's own choice of strike and its variances, with the errors just measured
  const measuredPool: VenuePool = {
    pool: [],
    book: params.book,
    training: params.training,
    ...(measured === null ? {} : { strikeEstimateVariance: measured }),
    ...(basisVariance === null ? {} : { basisVariance }),
    ...(decay === undefined ? {} : { basisDecay: decay }),
    ...(strikeTail === null ? {} : { strikeTail: strikeTail.tail }),
    ...(basisTail === null ? {} : { basisTail: basisTail.tail }),
    ...hours,
  }
  const priced = { ...params, venuePools: { ...params.venuePools, polymarket: measuredPool } }
  let own = 0
  const obs = pending.map((p): PolymarketObservation => {
    const choice = strikeToPrice(p.strikeInputs, priced, p.level)
    if (choice.own) own++
    const basis = p.bases[decayIndex] as number
    const strike = choice.own ? choice.strikeDollars - basis : choice.strikeDollars
    const centre = Math.log((p.spotDollars - basis) / (strike - 0.005))
    return { ...p.obs, centre, extra: choice.basisVariance + choice.strikeVariance, ranged: p.ranged }
  })
  log(`polymarket: ${own} of ${obs.length} readings priced against the proxy's own strike`)
  return { obs, measuredPool, contests: contests.size }
}
