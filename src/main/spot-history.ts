// How many minutes of closes a spot feed keeps for the engine: what its model's readings look back at
// (decisions §11), live and in a replay alike, so a replay never reads a shorter history than the
// sandbox or a long-running live engine does.
import { MINUTE_MS } from '../domain/contest.ts'
import type { ReadingModel } from '../domain/reading-model.ts'
import { readingLookbackMs } from '../engine/reading.ts'

/** A reading comes up to a minute after its window's open, and a close is for a whole minute. */
const SLACK_MINUTES = 5

export function spotKeepMinutes(model: Pick<ReadingModel, 'historyMinutes'>): number {
  return Math.ceil(readingLookbackMs(model) / MINUTE_MS) + SLACK_MINUTES
}
