// Minutes that raised no reading (decisions §8, §11). The engine retries a minute every tick until
// its reading is raised or its inputs are late, so a minute is counted once, when it is given up,
// with the reason that kept it from being raised — not the first failed attempt's, and not at all
// when a retry raised it. Each reason is logged once per contest, so retries never flood the log.
import type { Logger } from '../ports/logger.ts'
import type { SkipReason } from './reading.ts'

export type SkipObserver = (reason: SkipReason) => void

export type SkippedReadings = {
  /** a failed attempt at the reading of `minute` */
  record(ticker: string, minute: number, reason: SkipReason): void
  /** `minute` raised its reading: its failed attempts were no skip */
  raised(ticker: string, minute: number): void
  /** counts the minutes still being retried: of `ticker` (it left the live state), or of every contest */
  flush(ticker?: string): void
  /**
   * A minute's last attempt failed for want of an input a moment may bring (a book, a spot): a
   * replay, which ticks only when something changes, ticks again soon as live would.
   */
  retryDue(): boolean
}

/** Contests remembered at once; far more than are ever live together. */
const REMEMBERED_CONTESTS = 256

/** Attempts that failed only because an input was not there yet: the next tick may have it. */
const WAITING_FOR_INPUT: ReadonlySet<SkipReason> = new Set(['no-book', 'no-quote', 'no-spot', 'few-sources'])

type Pending = {
  minute: number
  /** the last reason that says why the minute cannot be read (not `late`, not a book unanswered) */
  because: SkipReason | null
  last: SkipReason
}

export function createSkippedReadings(logger: Pick<Logger, 'warn'>, observe?: SkipObserver): SkippedReadings {
  // ticker → the minute being retried and reasons already logged; oldest contests forgotten first
  const seen = new Map<string, { pending: Pending | null; reasons: Set<SkipReason> }>()

  // a book never had within the limit is a late minute (decisions §11: "after a venue timeout")
  const giveUp = (entry: { pending: Pending | null }): void => {
    if (entry.pending) observe?.(entry.pending.because ?? 'late')
    entry.pending = null
  }

  const entryOf = (ticker: string) => {
    let entry = seen.get(ticker)
    if (!entry) {
      if (seen.size >= REMEMBERED_CONTESTS) {
        const [oldest, kept] = seen.entries().next().value as [string, { pending: Pending | null }]
        giveUp(kept)
        seen.delete(oldest)
      }
      entry = { pending: null, reasons: new Set() }
      seen.set(ticker, entry)
    }
    return entry
  }

  return {
    record(ticker, minute, reason) {
      const entry = entryOf(ticker)
      if (entry.pending && entry.pending.minute !== minute) giveUp(entry)
      entry.pending ??= { minute, because: null, last: reason }
      entry.pending.last = reason
      if (reason !== 'late' && reason !== 'no-book') entry.pending.because = reason
      // the retries of a minute already explained (paused, no strike…) end late: that is no new
      // reason, and a `late` line would tell the operator a paused minute's inputs came too slowly
      const explained = reason === 'late' && entry.pending.because !== null
      if (!explained && !entry.reasons.has(reason)) {
        entry.reasons.add(reason)
        logger.warn({ ticker, minute, reason }, `no reading: ${REASON_TEXT[reason]}`)
      }
    },
    raised(ticker, minute) {
      const entry = seen.get(ticker)
      if (!entry?.pending) return
      if (entry.pending.minute === minute) entry.pending = null
      else giveUp(entry)
    },
    flush(ticker) {
      if (ticker === undefined) {
        for (const entry of seen.values()) giveUp(entry)
        return
      }
      const entry = seen.get(ticker)
      if (entry) giveUp(entry)
    },
    retryDue() {
      for (const entry of seen.values())
        if (entry.pending && WAITING_FOR_INPUT.has(entry.pending.last)) return true
      return false
    },
  }
}

const REASON_TEXT: Record<SkipReason, string> = {
  'no-strike': 'the venue has not set the strike yet',
  'no-quote': 'neither side has an ask on the venue',
  'no-book': 'the venue’s order book did not come back (an error, a timeout or an unreadable body)',
  'no-spot': 'no spot source is fresh',
  'few-sources': 'fewer than 2 spot sources are fresh',
  'short-history': "the model's minimum price history is not there yet",
  late: 'its inputs could not be had within READING_MAX_LATE_S of the minute',
  paused: 'the exchange has paused trading',
}
