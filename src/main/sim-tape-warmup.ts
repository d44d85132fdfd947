// How much of the sandbox a sim tape writes before its first contest (decisions §11, §12): what a
// reading at that contest's first minute looks back at, for every model MODEL can name, so a replay
// of the tape gives the first contests the history the sandbox's own backfill gives them.
import { readingLookbackMs } from '../engine/reading.ts'
import { createReadingModel, MODEL_NAMES } from '../model/models.ts'

/** Beyond the lookback: every exchange has spoken (fresh) and a whole minute has closed before it. */
const SLACK_MS = 5 * 60_000

export function simTapeWarmupMs(): number {
  return Math.max(...MODEL_NAMES.map((name) => readingLookbackMs(createReadingModel(name)))) + SLACK_MS
}
