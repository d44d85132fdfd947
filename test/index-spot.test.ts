// The settlement index (BRTI) as the spot, live and replayed: the print that stood at a reading’s
// instant, fresh by the index’s own time, and a recorded print replayed as the live feed saw it.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type IndexSource, withSettlementIndex } from '../src/feeds/kalshi/index-spot.ts'
import type { ReceivedIndexPrint } from '../src/feeds/kalshi/kalshi-socket.ts'
import { createReplayClock } from '../src/feeds/tape/replay-clock.ts'
import { withRecordedIndex } from '../src/feeds/tape/tape-index-feed.ts'
import type { PriceFeed, SpotObservation } from '../src/ports/venue.ts'

const MEDIAN: SpotObservation = { priceDollars: 68_000, observedAt: 0, freshSources: 3 }

/** the exchange median the index falls back on: it answers for whatever instant it is asked */
const proxy = {
  name: 'spot',
  observeSpot: async (at: number) => ({ ...MEDIAN, observedAt: at }),
  sources: () => [],
} as unknown as PriceFeed

function indexFeed(now: { t: number }) {
  const handlers: ((p: ReceivedIndexPrint) => void)[] = []
  const index: IndexSource = { onIndex: (h) => handlers.push(h) }
  const feed = withSettlementIndex({ proxy, index, maxAgeMs: 800, wallClock: { now: () => now.t } })
  const print = (value: number, at: number, receivedAt: number) => {
    for (const h of handlers) h({ id: 'BRTI', value, at, receivedAt })
  }
  return { feed, print }
}

describe('BRTI as the model’s spot', () => {
  it('observes the print that stood at a reading’s instant, fresh by its own time then', async () => {
    const now = { t: 2_500 }
    const { feed, print } = indexFeed(now)
    print(70_000, 990, 1_000)
    print(70_050, 1_995, 2_000)
    assert.deepEqual(await feed.observeSpot(1_500), {
      priceDollars: 70_000,
      observedAt: 990,
      freshSources: 1,
      index: 'BRTI',
    })
    assert.equal((await feed.observeSpot(2_500))?.priceDollars, 70_050, 'the print received since')
    // before the first print was received: the exchange median
    assert.deepEqual(await feed.observeSpot(900), { ...MEDIAN, observedAt: 900 })
    // the print that stood at 1 990 was printed 1 000 ms before: stale then, whatever came after
    assert.deepEqual(await feed.observeSpot(1_990), { ...MEDIAN, observedAt: 1_990 })
  })

  it('replays a recorded print at its own time, received at its record’s `t` (as live)', async () => {
    const clock = createReplayClock(1_000)
    const live = indexFeed({ t: 1_300 })
    const replayed = withRecordedIndex(proxy, { maxAgeMs: 800, clock })
    live.print(70_000, 950, 1_200)
    replayed.takeIndex({ t: 1_200, k: 'index', id: 'BRTI', v: 70_000, xt: 950 })
    clock.advanceTo(1_300)
    const seen = await live.feed.observeSpot(1_300)
    assert.equal(seen?.observedAt, 950)
    assert.deepEqual(await replayed.observeSpot(1_300), seen)
    // a recording made before the index's own time was kept: the print is as old as its receipt
    replayed.takeIndex({ t: 1_250, k: 'index', id: 'BRTI', v: 70_010 })
    assert.equal((await replayed.observeSpot(1_300))?.observedAt, 1_250)
  })
})
