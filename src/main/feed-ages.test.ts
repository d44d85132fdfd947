// cs_spot_source_age_seconds is the age of each source's last price on the clock its freshness is
// judged on (SPOT_MAX_AGE_S): the simulator's virtual clock, the wall clock with real exchanges. The
// venue's poll age stays on the wall clock. Both clocks are in the test's hands.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { loadConfig } from '../config/config.ts'
import { SIM_PARAMS } from '../feeds/sim/sim-params.ts'
import { createMetrics } from '../metrics/metrics.ts'
import type { Clock } from '../ports/clock.ts'
import type { PriceFeed, SpotSourceStatus, Venue } from '../ports/venue.ts'
import { watchFeedAges } from './feed-ages.ts'
import { createFeeds } from './feeds.ts'
import { createVirtualClock } from './service-clock.ts'

const SEED = 7
// in this seed's sandbox bitstamp has sent nothing for 34 s here (it went stale), the others are live
const BITSTAMP_STALE = Date.parse('2026-11-20T15:57:10Z')
const quiet = { info() {}, warn() {}, error() {}, debug() {} }

function manualClock(start: number): Clock & { advance(ms: number): void } {
  let t = start
  return {
    now: () => t,
    advance: (ms) => {
      t += ms
    },
  }
}

async function ages(
  metrics: ReturnType<typeof createMetrics>,
  name: string,
): Promise<Record<string, number>> {
  const { values } = await metrics.registry.getSingleMetric(name)!.get()
  return Object.fromEntries(values.map((v) => [String(Object.values(v.labels)[0]), v.value]))
}

/** The simulator's feeds, as `serve` builds them, on a virtual clock `speed` times the wall clock. */
async function simulator(opts: { wallAt: number; virtualAt: number; speed: number }) {
  const wallClock = manualClock(opts.wallAt)
  const clock = createVirtualClock(wallClock, {
    wall0: opts.wallAt,
    virtual0: opts.virtualAt,
    speed: opts.speed,
  })
  const feeds = await createFeeds(loadConfig({ VENUE: 'sim', SIM_SPEED: String(opts.speed) }), {
    wallClock,
    clock,
    logger: quiet,
    sim: { seed: SEED, params: SIM_PARAMS },
  })
  const metrics = createMetrics({ role: 'engine' })
  watchFeedAges(metrics, feeds, { wallClock, clock })
  return { wallClock, clock, feeds, metrics }
}

describe('feed ages in metrics', () => {
  it('under the simulator at SIM_SPEED 60: each source’s age on the virtual clock, a stale one’s too', async () => {
    // the virtual clock runs ahead of the wall clock (its timeline started in the past, or SIM_START)
    const sim = await simulator({
      wallAt: Date.parse('2026-12-01T12:00:00Z'),
      virtualAt: BITSTAMP_STALE - 60_000,
      speed: 60,
    })
    // the engine's reading a minute before
    await sim.feeds.feed.spotAt(sim.clock.now())
    sim.wallClock.advance(1_000) // one virtual minute later, no reading since
    assert.equal(sim.clock.now(), BITSTAMP_STALE)
    const age = await ages(sim.metrics, 'cs_spot_source_age_seconds')
    assert.ok(age.coinbase! >= 0 && age.coinbase! <= 1, `coinbase ${age.coinbase}`)
    assert.ok(age.kraken! >= 0 && age.kraken! <= 1, `kraken ${age.kraken}`)
    assert.equal(age.bitstamp, 34, 'the stale source shows its silence, past SPOT_MAX_AGE_S')
    const fresh = sim.feeds.feed.sources().map((s) => [s.name, s.fresh])
    assert.deepEqual(fresh, [
      ['coinbase', true],
      ['kraken', true],
      ['bitstamp', false],
    ])
    assert.deepEqual(await ages(sim.metrics, 'cs_venue_last_poll_age_seconds'), { sim: 0 })
  })

  it('under the simulator at SIM_SPEED 1: the age does not climb between the engine’s readings', async () => {
    const start = BITSTAMP_STALE - 10 * 60_000
    const sim = await simulator({ wallAt: start, virtualAt: start, speed: 1 })
    await sim.feeds.feed.spotAt(sim.clock.now())
    for (const step of [15_000, 15_000, 25_000]) {
      sim.wallClock.advance(step)
      const age = await ages(sim.metrics, 'cs_spot_source_age_seconds')
      for (const [source, seconds] of Object.entries(age))
        assert.ok(seconds >= 0 && seconds <= 1, `${source}: ${seconds} s at ${sim.clock.now() - start} ms`)
    }
  })

  it('with real exchanges: the age on the wall clock, as before', async () => {
    const wallClock = manualClock(1_000_000)
    const source = (name: string, midAt: number | null): SpotSourceStatus => ({
      name,
      state: 'ok',
      lastOkAt: midAt,
      midDollars: midAt === null ? null : 100_000,
      midAt,
      fresh: midAt !== null,
    })
    const feed = {
      sources: () => [source('coinbase', 997_500), source('kraken', null)],
    } as unknown as PriceFeed
    const venue = {
      statuses: () => [{ name: 'kalshi', state: 'ok', lastOkAt: 999_000 }],
    } as unknown as Venue
    const metrics = createMetrics({ role: 'engine' })
    // with a real venue the service clock is the wall clock itself (runtime.ts)
    watchFeedAges(metrics, { venue, feed }, { wallClock, clock: wallClock })
    assert.deepEqual(await ages(metrics, 'cs_spot_source_age_seconds'), {
      coinbase: 2.5,
      kraken: Number.POSITIVE_INFINITY,
    })
    wallClock.advance(10_000)
    assert.deepEqual(await ages(metrics, 'cs_spot_source_age_seconds'), {
      coinbase: 12.5,
      kraken: Number.POSITIVE_INFINITY,
    })
    assert.deepEqual(await ages(metrics, 'cs_venue_last_poll_age_seconds'), { kalshi: 11 })
  })
})
