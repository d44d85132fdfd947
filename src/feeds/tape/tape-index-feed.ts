// The settlement index on replay (decisions §12, issue 29): a keyed recording's `index` records are
// the BRTI prints the live engine priced from, so a replay prices from them too, through the live
// wrapper (withSettlementIndex) on the replay's clock. A tape without index records replays exactly as
// before: until the first print the feed is the exchange proxy alone, its sources included.
import type { PriceFeed } from '../../ports/venue.ts'
import type { IndexRecord } from '../../tape/tape-format.ts'
import { type IndexSource, withSettlementIndex } from '../kalshi/index-spot.ts'
import type { ReceivedIndexPrint } from '../kalshi/kalshi-socket.ts'
import type { ReplayClock } from './replay-clock.ts'

export type TapeIndexFeed = PriceFeed & {
  /** Takes one `index` record: the print as received at its `t`. */
  takeIndex(record: IndexRecord): void
}

export function withRecordedIndex(
  proxy: PriceFeed,
  opts: { maxAgeMs: number; clock: ReplayClock },
): TapeIndexFeed {
  const handlers: ((print: ReceivedIndexPrint) => void)[] = []
  const source: IndexSource = { onIndex: (handler) => handlers.push(handler) }
  const indexed = withSettlementIndex({
    proxy,
    index: source,
    maxAgeMs: opts.maxAgeMs,
    wallClock: opts.clock,
  })
  let seen = false
  return {
    ...indexed,
    // the index's health row only once the tape has shown it: a proxy-only tape keeps its source count
    sources: () => (seen ? indexed.sources() : proxy.sources()),
    takeIndex(record) {
      seen = true
      // received at the record's `t`, printed at its `xt` (a recording before `xt` was kept: at `t`)
      const print = { id: record.id, value: record.v, at: record.xt ?? record.t, receivedAt: record.t }
      for (const h of handlers) h(print)
    },
  }
}
