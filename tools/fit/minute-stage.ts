// Stage E of model v2's fit: the pool for readings priced from the closes' returns alone — one-minute
// history, where no minute has a range — on tapes of such history from a real venue (`history import`,
// or the real-data tapes built at run time). A minute close says less than a live feed and a real
// book more than a sandbox crowd, so these readings get a pool of their own (params.returnsOnlyPool);
// the dynamics that price them stay the main fit's. Only the outcomes and the book are read.
import { pricedFromRanges } from '../../src/model/dynamics.ts'
import type { FittedPool, ModelV2Params } from '../../src/model/params.ts'
import type { FitSource } from './fit-source.ts'
import { type FitObservation, fitPool, modelProbability, pricedObservation } from './stages.ts'

/** The pool fitted on `source`'s returns-only readings of the default venue, priced with `params`. */
export async function fitReturnsOnlyPool(
  source: FitSource,
  params: ModelV2Params,
  log: (msg: string) => void,
): Promise<FittedPool | string> {
  const obs: FitObservation[] = []
  const contests = new Set<string>()
  let passedOver = 0
  await source.forEachReading((r) => {
    if (r.settledSide === null) return
    // a ranged reading, or another venue's (its own pool wins there), is not what this pool prices
    if (
      r.inputs.venue === 'polymarket' ||
      pricedFromRanges(r.inputs.closes, r.inputs.spotObservedAt, params)
    ) {
      passedOver++
      return
    }
    contests.add(r.ticker)
    obs.push(pricedObservation({ ...r, settledSide: r.settledSide }, params).obs)
  })
  if (passedOver > 0)
    log(`stage E: ${passedOver} readings priced from ranges or of another venue passed over`)
  if (obs.length === 0)
    return 'no settled reading priced from one-minute closes alone: stage E needs one-minute history'
  log(`stage E: ${obs.length} readings of ${contests.size} settled contests priced from their returns alone`)
  const fitted = fitPool(
    obs,
    (o) => modelProbability(o, params.basis.variance + (o.noise ?? 0), params, false),
    log,
  )
  return { pool: fitted.pool, book: fitted.book, training: source.training(obs.length, contests.size) }
}
