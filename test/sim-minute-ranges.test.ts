// A minute's range (its highest and lowest proxy price), its mean over its 60 seconds (what a strike
// averages) and its seconds' moves (model v2's sharpest measure of volatility) must be the same
// whether the engine reads the sandbox directly or replays the sandbox's tape (decisions §12: a
// replay sees what live saw).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { MinuteClose } from '../src/domain/price-history.ts'
import { createSimPriceFeed } from '../src/feeds/sim/sim-price-feed.ts'
import { sharedSimWorld } from '../src/feeds/sim/sim-world.ts'
import { writeSimTape } from '../src/feeds/sim-tape/sim-tape.ts'
import { createReplayClock } from '../src/feeds/tape/replay-clock.ts'
import { createTapeSpotFeed } from '../src/feeds/tape/tape-spot-feed.ts'
import type { TapeRecord } from '../src/tape/tape-format.ts'
import { createRecordingLogger } from './support/engine-world.ts'

const SEED = 4_242
const FROM = Date.UTC(2026, 8, 7, 12)
const HOUR_MS = 3_600_000

describe('a minute’s range, mean and seconds', () => {
  it('is the same read from the sandbox and replayed from its tape, and known for nearly every minute', async () => {
    const world = sharedSimWorld(SEED)
    const records: TapeRecord[] = []
    await writeSimTape(
      { world, series: ['KXBTC15M'], from: FROM, days: 1 / 24, warmupMs: 2 * HOUR_MS, origin: 'test' },
      { write: (r) => records.push(r), buffered: () => 0, drainTo: async () => {} },
    )
    const replay = createTapeSpotFeed({
      sources: world.sources.names,
      maxAgeMs: 10_000,
      clock: createReplayClock(FROM - 2 * HOUR_MS),
      logger: createRecordingLogger(),
      keepMinutes: 240,
    })
    for (const r of records) if (r.k === 'spot' || r.k === 'closes') replay.take(r)

    const minutes = 150
    const fromTape: MinuteClose[] = await replay.stampedClosesBefore(FROM + HOUR_MS, minutes)
    const direct = await createSimPriceFeed({ seed: SEED }).stampedClosesBefore(FROM + HOUR_MS, minutes)
    // the tape's first minute has no price before it to open at; every later one is compared
    assert.deepEqual(fromTape.slice(1), direct.slice(direct.length - fromTape.length + 1))
    const ranged = direct.filter((c) => c.highDollars !== undefined && c.lowDollars !== undefined)
    assert.ok(ranged.length >= minutes - 5, `${ranged.length} of ${direct.length} minutes have a range`)
    for (const c of ranged) {
      assert.ok((c.lowDollars as number) <= c.priceDollars && c.priceDollars <= (c.highDollars as number))
      // the minute's own mean: inside its range, and known wherever the range is
      const mean = c.meanDollars as number
      assert.ok((c.lowDollars as number) <= mean && mean <= (c.highDollars as number), JSON.stringify(c))
      // its seconds, known wherever the range is: a largest move no larger than the range
      const seconds = c.seconds
      assert.ok(seconds && seconds.squares > 0, JSON.stringify(c))
      const range = Math.log((c.highDollars as number) / (c.lowDollars as number))
      assert.ok(Math.abs(seconds.largest) <= range + 1e-4 && seconds.largest ** 2 <= seconds.squares)
    }
  })
})
