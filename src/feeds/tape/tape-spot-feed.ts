// The spot side of a replay (decisions §12): each source's latest recorded price, as received at its
// `t`, feeds the live feed's own median, freshness and minute-close code (spotFeedOver), on the
// replay's clock. A source's minute closes are built from its records exactly as live prices build them.
import { createRecentHistory, HELD_MS } from '../../domain/recent-history.ts'
import type { Logger } from '../../ports/logger.ts'
import type { PriceFeed } from '../../ports/venue.ts'
import type { ClosesRecord, SpotRecord } from '../../tape/tape-format.ts'
import { createMinuteBook } from '../spot/minute-book.ts'
import { type FeedSource, spotFeedOver } from '../spot/spot-feed.ts'
import { midOf } from '../spot/spot-fields.ts'
import { DEFAULT_SPOT_SOURCE_TIMING } from '../spot/spot-source.ts'
import type { ReplayClock } from './replay-clock.ts'

export type TapeSpotFeed = PriceFeed & {
  /** Takes one spot or closes record; false when its source is not one the tape's header names. */
  take(record: SpotRecord | ClosesRecord): boolean
}

type TapeSource = FeedSource & {
  observe(at: number, mid: number, exchangeAt: number | null): void
  loadCloses(closes: ClosesRecord['c']): void
}

function createTapeSource(name: string, keepMinutes: number): TapeSource {
  const book = createMinuteBook({ keepMinutes })
  let startedAt: number | null = null
  // as a live source keeps them (spot-source.ts): a reading asks for the instant its book came
  const prices = createRecentHistory<{ mid: number; midAt: number; exchangeAt: number | null }>(HELD_MS)
  return {
    name,
    observe(at, price, xt) {
      startedAt ??= at
      prices.add({ mid: price, midAt: at, exchangeAt: xt }, at)
      book.recordLive(at, price)
    },
    loadCloses(closes) {
      book.loadCandles(closes.map(([minuteStart, close]) => ({ minuteStart, close })))
    },
    // a tape has no exchange status: maintenance shows, as it did live, only as prices left out
    snapshot: (at) => {
      const held = at === undefined ? prices.latest() : prices.asOf(at)
      const lastOkAt = prices.latest()?.midAt ?? null
      return { startedAt, lastOkAt, mid: null, midAt: null, exchangeAt: null, ...held, maintenance: false }
    },
    closeOf: (minuteStart) => book.closeOf(minuteStart),
    wholeMinuteOf: (minuteStart) => book.wholeMinuteOf(minuteStart),
    stampOf: (minuteStart) => book.stampOf(minuteStart),
    start: async () => {},
    close: async () => {},
  }
}

export function createTapeSpotFeed(opts: {
  sources: readonly string[]
  maxAgeMs: number
  clock: ReplayClock
  logger: Logger
  /** minutes of closes kept per source: at least what the replayed model reads (default: as live) */
  keepMinutes?: number
}): TapeSpotFeed {
  const keepMinutes = Math.max(opts.keepMinutes ?? 0, DEFAULT_SPOT_SOURCE_TIMING.keepMinutes)
  const sources = new Map<string, TapeSource>()
  for (const name of new Set(opts.sources)) sources.set(name, createTapeSource(name, keepMinutes))
  const feed = spotFeedOver([...sources.values()], {
    maxAgeMs: opts.maxAgeMs,
    wallClock: opts.clock,
    logger: opts.logger,
  })
  const unknown = new Set<string>()
  return {
    ...feed,
    take(record) {
      const source = sources.get(record.src)
      if (!source) {
        if (!unknown.has(record.src)) {
          unknown.add(record.src)
          opts.logger.warn(
            { source: record.src },
            'spot records of a source the tape header does not name; skipped',
          )
        }
        return false
      }
      if (record.k === 'closes') {
        source.loadCloses(record.c)
        return true
      }
      const price = record.px ?? midOf(record.bid as number, record.ask as number)
      source.observe(record.t, price, record.xt ?? null)
      return true
    },
  }
}
