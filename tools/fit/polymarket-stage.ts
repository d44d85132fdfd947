// Stage D of model v2's fit: Polymarket's own pool with its book, and the error of the engine's own
// strike estimate, both from that venue's readings (a Polymarket tape: the sandbox's, or recorded).
// Nothing here needs a hidden truth (decisions §15): the strike error is measured at window edges,
// where the venue's final price of a window (the next window's price to beat, finalPrice(N) =
// priceToBeat(N + 1)) meets the proxy's own mean over the same seconds — the estimate the engine
// makes while the strike is unpublished.
import { MINUTE_MS } from '../../src/domain/contest.ts'
import { estimateBasis } from '../../src/model/basis.ts'
import { pricingParams } from '../../src/model/dynamics.ts'
import type { ModelV2Params, VenuePool } from '../../src/model/params.ts'
import type { FitSource } from './fit-source.ts'
import {
  type BasisError,
  basisErrorOf,
  basisErrorVariance,
  type FitObservation,
  fitBook,
  fitPool,
  modelProbability,
  unscaledVariance,
} from './stages.ts'

/**
 * A strike of the venue beside the proxy's own mean over its window: one window edge; `run` tells
 * apart tape sets on the same dates (unionFitSource), whose edges are never neighbours.
 */
export type StrikeEdge = { opensAt: number; strikeDollars: number; proxyMeanDollars: number; run?: number }

/** An edge's place: its tape set and its open. */
const edgeKey = (run: number | undefined, opensAt: number): string => `${run ?? 0}@${opensAt}`

/**
 * The variance (relative, squared log units) of the engine's strike estimate that does not cancel:
 * at each edge e = ln(proxy mean / published strike) holds the proxy's basis plus the estimate's own
 * error. The basis is common to the estimate and the spot, so it cancels; what is left is the
 * estimate's error and the basis's drift within a window: half the mean squared change of e between
 * consecutive edges. Null with no two consecutive edges.
 */
export function strikeEstimateVariance(edges: readonly StrikeEdge[], spanMs: number): number | null {
  const byOpen = new Map<string, { run: number | undefined; opensAt: number; e: number }>()
  for (const edge of edges)
    if (edge.strikeDollars > 0 && edge.proxyMeanDollars > 0)
      byOpen.set(edgeKey(edge.run, edge.opensAt), {
        run: edge.run,
        opensAt: edge.opensAt,
        e: Math.log(edge.proxyMeanDollars / edge.strikeDollars),
      })
  let sum = 0
  let n = 0
  for (const { run, opensAt, e } of byOpen.values()) {
    const before = byOpen.get(edgeKey(run, opensAt - spanMs))?.e
    if (before === undefined) continue
    sum += (e - before) ** 2
    n++
  }
  return n === 0 ? null : sum / n / 2
}

/**
 * Polymarket's own pool: the model priced with the price stages fitted on the main source (the
 * bitcoin path is one; the crowd and the rule are the venue's), its own strike-estimate error while
 * a strike is unpublished, then the pool and the book weight fitted on its readings alone.
 */
export async function fitPolymarket(
  source: FitSource,
  params: ModelV2Params,
  log: (msg: string) => void,
): Promise<VenuePool> {
  // what the pool needs of a reading, not the reading (a day of closes each would not fit in memory),
  // and the variance its strike or its basis adds, known only once every reading has been seen:
  // an estimated strike's error (the reading's own prior where none is measured), the basis
  // estimate's error against a published strike, or none on the settlement index itself
  type Pending = {
    obs: FitObservation
    adds: { estimatePrior: number } | 'basis' | null
    /** priced with the ranged dynamics, as the engine would (dynamics.ts) */
    ranged: boolean
  }
  const pending: Pending[] = []
  const edges = new Map<string, StrikeEdge>()
  const basisErrors: BasisError[] = []
  const contests = new Set<string>()
  let spanMs = 15 * MINUTE_MS
  await source.forEachReading((r) => {
    if (r.settledSide === null) return
    const at = r.inputs.spotObservedAt
    spanMs = r.expiresAt - r.inputs.opensAt
    const q = pricingParams(r.inputs.closes, at, params)
    const v = unscaledVariance(r, q)
    const basis = r.inputs.spotIsIndex ? 0 : estimateBasis(r.inputs.basisSamples, at, params.basis)
    const edge = (e: StrikeEdge) => edges.set(edgeKey(r.run, e.opensAt), { ...e, run: r.run })
    for (const sample of r.inputs.basisSamples) edge(sample)
    // the window's final price is the next window's price to beat: an edge at the close, beside the
    // proxy's mean over the same minute — the estimate the engine makes of the next strike
    if (r.realisedBasis !== null && r.settledPriceDollars !== null)
      edge({
        opensAt: r.expiresAt,
        strikeDollars: r.settledPriceDollars,
        proxyMeanDollars: r.settledPriceDollars + r.realisedBasis,
      })
    // the basis against this venue's own settlement price (its oracle, not Kalshi's index): the
    // estimate at the last reading against the basis the settlement showed, as stage C measures Kalshi's
    const error = r.inputs.spotIsIndex ? null : basisErrorOf(r, basis)
    if (error) basisErrors.push(error)
    contests.add(`${r.run ?? 0}:${r.ticker}`)
    // as the model prices it: an estimated strike is the proxy's own mean, so the basis cancels
    const prior = r.inputs.strikeEstimateVariance
    const strike = prior !== undefined ? r.inputs.strikeDollars - basis : r.inputs.strikeDollars
    pending.push({
      obs: {
        centre: Math.log((r.inputs.spotDollars - basis) / (strike - 0.005)),
        v,
        book: fitBook(r),
        y: r.settledSide === 'up' ? 1 : 0,
        left: Math.ceil((r.expiresAt - at) / MINUTE_MS - 1e-9),
      },
      adds: prior !== undefined ? { estimatePrior: prior } : r.inputs.spotIsIndex ? null : 'basis',
      ranged: q !== params,
    })
  })
  if (pending.length === 0) throw new Error('--polymarket-tapes: no graded Polymarket reading to fit on')
  const measured = strikeEstimateVariance([...edges.values()], spanMs)
  const basisVariance = basisErrorVariance(basisErrors)
  log(
    `polymarket: ${pending.length} readings of ${contests.size} contests; strike estimate error variance ${measured ?? 'not measured (no two consecutive edges)'}; basis error variance ${basisVariance ?? 'not measured (no settlement)'} over ${basisErrors.length} settlements`,
  )
  const extraOf = (adds: Pending['adds']): number =>
    adds === null
      ? 0
      : adds === 'basis'
        ? (basisVariance ?? params.basis.variance)
        : (measured ?? adds.estimatePrior)
  const obs = pending.map(({ obs, adds, ranged }) => ({ ...obs, extra: extraOf(adds), ranged }))
  const modelP = (o: (typeof obs)[number]) => modelProbability(o, o.extra, params, o.ranged)
  const pooled = fitPool(obs, modelP, (msg) => log(`polymarket ${msg}`))
  return {
    pool: pooled.pool,
    book: pooled.book,
    ...(measured === null ? {} : { strikeEstimateVariance: Number(measured.toPrecision(3)) }),
    ...(basisVariance === null ? {} : { basisVariance }),
    training: source.training(obs.length, contests.size),
  }
}
