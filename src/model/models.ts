// The models MODEL can name (decisions §3): v2, the settlement-mean model with its fitted parameter
// file, and v1, kept selectable for comparison. The one place that maps a name to a model.
import { gbmEwma1Model, MODEL_VERSION as V1_VERSION } from '../domain/model.ts'
import type { ReadingModel } from '../domain/reading-model.ts'
import fitted from './params/settle-mean-t-2.json' with { type: 'json' }
import { checkModelV2Params } from './params.ts'
import { createSettlementMeanModel } from './settlement-mean-model.ts'

export const V2_PARAMS = checkModelV2Params(fitted)

export const MODEL_NAMES = [V2_PARAMS.model, V1_VERSION] as const
export const DEFAULT_MODEL = V2_PARAMS.model

export function isModelName(name: string): boolean {
  return (MODEL_NAMES as readonly string[]).includes(name)
}

export function createReadingModel(name: string): ReadingModel {
  if (name === V1_VERSION) return gbmEwma1Model
  if (name === V2_PARAMS.model) return createSettlementMeanModel(V2_PARAMS)
  throw new RangeError(`unknown model ${JSON.stringify(name)} (known: ${MODEL_NAMES.join(', ')})`)
}
