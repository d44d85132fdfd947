// Stage R of `fit:model` (--book-read): the crowd's map from P(up) to its book, one per minutes left,
// for reading the index from the book (src/model/index-read.ts), and the main pool refitted on the
// read. The map is fitted on the training readings' mids and the model's own prices at its doubt's
// hypotheses — observables only, never the index or an outcome — and the pool, as stage C's, on the
// outcomes.
import { type BookEvidence, bookWeight, logitOf } from '../../src/model/book-pool.ts'
import {
  type CrowdMap,
  ERROR_NODES,
  ERROR_WEIGHTS,
  READ_EDGE,
  readFromBook,
} from '../../src/model/index-read.ts'
import type { ModelV2Params } from '../../src/model/params.ts'
import { crowdMapsOf, READ_MAX_SPREAD } from '../book-index-read.ts'
import { fitPool, modelProbability, type PoolFit, type PricedObservation, round } from './stages.ts'

/** The engine's doubt about a reading's index (sd, log units): the basis error's and its closes noise. */
function doubtOf(o: PricedObservation, params: ModelV2Params): number {
  return Math.sqrt(params.basis.variance + (o.noise ?? 0))
}

/** The model alone on the index at hypothesis x of its error: the index at the estimate times e^−x. */
function pricedAt(o: PricedObservation, params: ModelV2Params, x: number): number {
  return modelProbability({ centre: o.centre - x, v: o.vRanged ?? o.v }, 0, params, o.vRanged !== undefined)
}

/** The model alone as stage C prices it: the basis error and closes noise in its variance. */
function aloneOf(o: PricedObservation, params: ModelV2Params): number {
  return modelProbability(
    { centre: o.centre, v: o.vRanged ?? o.v },
    params.basis.variance + (o.noise ?? 0),
    params,
    o.vRanged !== undefined,
  )
}

/**
 * The model alone on the index at hypothesis x as the crowd priced it: with `atLag`, at the spot the
 * crowd was measured to quote from (the model's `bookReadAtLag`; at the reading's spot where that is
 * unknown).
 */
function quotedAt(o: PricedObservation, params: ModelV2Params, x: number, atLag: boolean): number {
  if (!atLag || o.centreAtLag === undefined) return pricedAt(o, params, x)
  return pricedAt({ ...o, centre: o.centreAtLag }, params, x)
}

/**
 * The mid a training reading's book gives the map's fit, or null where it is not read whole: two-sided,
 * no wider than the diagnostic reads, its mid where the model reads a book fully (READ_EDGE.inner in).
 */
function mapMid(b: BookEvidence | null): number | null {
  if (!b || b.lower <= 0 || b.upper >= 1 || b.spread > READ_MAX_SPREAD) return null
  const mid = (b.lower + b.upper) / 2
  return mid >= READ_EDGE.inner && mid <= 1 - READ_EDGE.inner ? mid : null
}

/** The crowd's maps on stage C's readings under `params` (its stages A–C), by minutes left. */
export function fitCrowdMaps(
  obs: readonly PricedObservation[],
  params: ModelV2Params,
  atLag = false,
): CrowdMap[] {
  const rows = obs.map((o) => ({ o, minutesLeft: o.left, mid: mapMid(o.book) }))
  const maps = crowdMapsOf(rows, ERROR_WEIGHTS, ({ o }) => {
    const doubt = doubtOf(o, params)
    return ERROR_NODES.map((z) => logitOf(quotedAt(o, params, doubt * z, atLag)))
  })
  return [...maps.entries()]
    .sort(([a], [b]) => a - b)
    .map(([minutesLeft, m]) => ({
      minutesLeft,
      intercept: round(m.intercept, 4),
      slope: round(m.slope, 4),
      // a noise that rounds to 0 would be a crowd read as certain
      noise: Math.max(1e-4, round(m.noise, 4)),
    }))
}

/** A training reading's P(up) with the index read from its book, as the model reads it. */
export function readOf(
  o: PricedObservation,
  params: ModelV2Params,
  maps: readonly CrowdMap[],
  atLag = false,
): number {
  const alone = aloneOf(o, params)
  const map = maps.find((m) => m.minutesLeft === o.left)
  if (!o.book || !map) return alone
  return readFromBook(
    alone,
    doubtOf(o, params),
    (x) => pricedAt(o, params, x),
    o.book,
    map,
    bookWeight(o.book, params.book),
    (x) => quotedAt(o, params, x, atLag),
  )
}

/**
 * Stage R: the maps, then the main pool refitted with the read as the model's P(up). The read weighs
 * the book as the pool does, so each book weighting the pool's fit tries is tried on the read made
 * with it.
 */
export function fitBookRead(
  obs: readonly PricedObservation[],
  params: ModelV2Params,
  log: (msg: string) => void,
  atLag = false,
): { bookRead: CrowdMap[]; pooled: PoolFit } {
  const bookRead = fitCrowdMaps(obs, params, atLag)
  for (const m of bookRead)
    log(
      `stage R: ${m.minutesLeft} min left, logit(quote) = ${m.intercept.toFixed(4)} + ${m.slope.toFixed(4)}·logit(P) ± ${Math.sqrt(m.noise).toFixed(4)}`,
    )
  const pooled = fitPool(
    obs,
    (o) => readOf(o, params, bookRead, atLag),
    (msg) => log(`stage R ${msg}`),
    [0],
    (o, book) => readOf(o, { ...params, book }, bookRead, atLag),
  )
  return { bookRead, pooled }
}
