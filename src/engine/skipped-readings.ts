// Minutes that raised no reading (decisions §8): each contest minute is counted once, on its first
// failed attempt, and each reason is logged once per contest, so an engine that retries every tick
// neither floods the log nor inflates the count.
import type { Logger } from '../ports/logger.ts'
import type { SkipReason } from './reading.ts'

export type SkipObserver = (reason: SkipReason) => void

export type SkippedReadings = {
  record(ticker: string, minute: number, reason: SkipReason): void
}

/** Contests remembered at once; far more than are ever live together. */
const REMEMBERED_CONTESTS = 256

export function createSkippedReadings(logger: Pick<Logger, 'warn'>, observe?: SkipObserver): SkippedReadings {
  // ticker → minutes already counted and reasons already logged; oldest contests forgotten first
  const seen = new Map<string, { minutes: Set<number>; reasons: Set<SkipReason> }>()
  return {
    record(ticker, minute, reason) {
      let entry = seen.get(ticker)
      if (!entry) {
        if (seen.size >= REMEMBERED_CONTESTS) seen.delete(seen.keys().next().value as string)
        entry = { minutes: new Set(), reasons: new Set() }
        seen.set(ticker, entry)
      }
      if (!entry.minutes.has(minute)) {
        entry.minutes.add(minute)
        observe?.(reason)
      }
      if (!entry.reasons.has(reason)) {
        entry.reasons.add(reason)
        logger.warn({ ticker, minute, reason }, `no reading: ${REASON_TEXT[reason]}`)
      }
    },
  }
}

const REASON_TEXT: Record<SkipReason, string> = {
  'no-strike': 'the venue has not set the strike yet',
  'no-quote': 'neither side has an ask on the venue',
  'no-spot': 'no spot source is fresh',
  'few-sources': 'fewer than 2 spot sources are fresh',
  'short-history': "the model's minimum price history is not there yet",
  late: 'its inputs could not be had within READING_MAX_LATE_S of the minute',
  paused: 'the exchange has paused trading',
}
