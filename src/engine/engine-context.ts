// What every engine step needs, and the one way a step announces a committed write.

import type { StoredEvent } from '../domain/events.ts'
import type { BasisSample } from '../domain/price-history.ts'
import type { ReadingModel } from '../domain/reading-model.ts'
import type { EventNotifier } from '../ports/event-notifier.ts'
import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'
import type { PriceFeed, Venue } from '../ports/venue.ts'
import type { CrowdLags } from './reading.ts'
import type { SkippedReadings } from './skipped-readings.ts'

export type StepContext = {
  store: Store
  venue: Venue
  feed: PriceFeed
  notifier: EventNotifier
  logger: Logger
  skips: SkippedReadings
  model: ReadingModel
  /** READING_MAX_LATE_S in ms (decisions §11) */
  maxLateMs: number
  basisCache: Map<string, BasisSample | null>
  /** each series' crowd lag, measured by the readings (crowd-lag.ts) */
  crowdLags: CrowdLags
}

/**
 * Wakes the api processes after a write. The write is already committed and the log is the source
 * of truth (followers also poll), so a failed wake-up is logged and otherwise ignored.
 */
export async function notifyCommitted(ctx: StepContext, seq: number): Promise<void> {
  try {
    await ctx.notifier.notify(seq)
  } catch (err) {
    ctx.logger.warn({ err, seq }, 'event notification failed')
  }
}

/** Notifies for a write's event; false when the write changed nothing (the store returned null). */
export async function published(ctx: StepContext, event: StoredEvent | null): Promise<boolean> {
  if (!event) return false
  await notifyCommitted(ctx, event.seq)
  return true
}
