// Tests of one model reading (decisions §11): inputs observed at the reading's instant with their own
// instants, the time left from the spot's, the late, thin-history and thin-source skips, and the side
// never chosen by the probability's bound.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MINUTE_MS } from '../src/domain/contest.ts'
import { chooseSide, gbmEwma1Model } from '../src/domain/model.ts'
import type { MinuteClose } from '../src/domain/price-history.ts'
import { liveContestFor } from '../src/engine/contest-steps.ts'
import {
  DEFAULT_READING_MAX_LATE_MS,
  isSkipped,
  observeReadingInputs,
  type ReadingDeps,
  takeReading,
} from '../src/engine/reading.ts'
import { createSimPriceFeed, type SimPriceFeed } from '../src/feeds/sim/sim-price-feed.ts'
import { createSimVenue } from '../src/feeds/sim/sim-venue.ts'
import { sharedSimWorld } from '../src/feeds/sim/sim-world.ts'
import { createVenueSet } from '../src/feeds/venue-set/venue-set.ts'
import { createReadingModel, DEFAULT_MODEL, MODEL_NAMES } from '../src/model/models.ts'
import { NO_ANSWER, type PriceFeed, type SpotSourceStatus, type Venue } from '../src/ports/venue.ts'
import { ENGINE_WORLD_PARAMS } from './support/engine-world.ts'

const SERIES = 'KXBTC15M'
const OPEN = Date.parse('2026-11-22T19:00:00Z')

async function setup(model = createReadingModel(DEFAULT_MODEL)) {
  // both sides quoted every minute (one-sided books near the extremes are the pool's business)
  const world = sharedSimWorld(21, ENGINE_WORLD_PARAMS)
  const feed = createSimPriceFeed({ seed: 21, world })
  const venue = createSimVenue({ seed: 21, world, feed, series: [SERIES] })
  const market = await venue.marketAt(SERIES, OPEN)
  assert.ok(market)
  const deps: ReadingDeps = { feed, venue, model, maxLateMs: DEFAULT_READING_MAX_LATE_MS }
  return { feed, venue, deps, contest: liveContestFor(market) }
}

const source = (name: string, fresh: boolean): SpotSourceStatus => ({
  name,
  state: 'ok',
  lastOkAt: null,
  midDollars: null,
  midAt: null,
  fresh,
})

/** A three-source feed over the simulator's prices whose observations a test scripts. */
function scriptedFeed(
  sim: SimPriceFeed,
  script: {
    spotFrom?: number
    observedLagMs?: number
    freshSources?: number
    closes?: (at: number, count: number) => MinuteClose[]
  },
): PriceFeed {
  const fresh = script.freshSources ?? 3
  return {
    ...sim,
    sources: () => [source('a', fresh >= 1), source('b', fresh >= 2), source('c', fresh >= 3)],
    observeSpot: async (at) => {
      const price = sim.spotAtSync(at)
      if (price === null || (script.spotFrom !== undefined && at < script.spotFrom)) return null
      return { priceDollars: price, observedAt: at - (script.observedLagMs ?? 0), freshSources: fresh }
    },
    stampedClosesBefore: async (at, count) =>
      script.closes ? script.closes(at, count) : (sim.stampedClosesBefore?.(at, count) ?? []),
  }
}

describe('takeReading', () => {
  it('prices what was observed at the reading instant and stores those inputs with the reading', async () => {
    const { deps, venue, contest } = await setup()
    const now = OPEN + 6 * MINUTE_MS + 1_234
    const signal = await takeReading(deps, contest, 6, now)
    const quote = await venue.quote(contest.ticker, now)
    assert.ok(!isSkipped(signal) && quote && quote !== NO_ANSWER && signal.inputs)
    assert.equal(signal.raisedAt, now)
    assert.equal(signal.modelVersion, deps.model.version)
    assert.equal(signal.inputs.spotObservedAt, now)
    assert.equal(signal.inputs.bookObservedAt, now)
    assert.equal(signal.inputs.upAskCents, quote.upAskCents)
    assert.equal(signal.inputs.downAskCents, quote.downAskCents)
    // the side is the larger edge at the model's own probability (decisions §11)
    const observed = await observeReadingInputs(deps, contest, 6, now)
    assert.ok(!('skipped' in observed))
    const out = deps.model.probabilityUp(observed.model)
    assert.equal(out.probabilityUp, signal.inputs.probabilityUp)
    const expected = chooseSide(out.probabilityUp, quote)
    assert.deepEqual(
      {
        side: signal.side,
        confidence: signal.confidence,
        entryPriceCents: signal.entryPriceCents,
        edgeCents: signal.edgeCents,
      },
      expected,
    )
    assert.ok(Math.abs(signal.edgeCents - (signal.confidence - signal.entryPriceCents)) < 1e-9)
  })

  it('is made when its last input came: a book fetched after the start stamps it, and may make it late', async () => {
    const { venue, deps, contest } = await setup()
    const boundary = OPEN + 4 * MINUTE_MS
    const bookAt = (observedAt: number): Venue => ({
      ...venue,
      quote: async (ticker, at) => {
        const q = await venue.quote(ticker, at)
        return q === null || q === NO_ANSWER ? q : { ...q, observedAt }
      },
    })
    const signal = await takeReading({ ...deps, venue: bookAt(boundary + 4_000) }, contest, 4, boundary + 100)
    assert.ok(!isSkipped(signal) && signal.inputs)
    assert.equal(signal.raisedAt, boundary + 4_000, 'raised once the book came, not when it was asked for')
    assert.equal(signal.inputs.bookObservedAt, boundary + 4_000)
    // the spot as it stood then, as a replay sees it at the book record's instant (decisions §12)
    assert.equal(signal.inputs.spotObservedAt, boundary + 4_000, 'the spot asked for when the book came')
    const observed = await observeReadingInputs(
      { ...deps, venue: bookAt(boundary + 4_000) },
      contest,
      4,
      boundary + 100,
    )
    assert.ok(!('skipped' in observed))
    assert.equal(observed.model.book?.ageMs, 0, 'a book that came last is no older than the reading')
    // asked for in time, answered past READING_MAX_LATE_S
    assert.deepEqual(
      await takeReading({ ...deps, venue: bookAt(boundary + 10_001) }, contest, 4, boundary + 100),
      { skipped: 'late' },
    )
    assert.ok(
      !isSkipped(
        await takeReading({ ...deps, venue: bookAt(boundary + 10_000) }, contest, 4, boundary + 100),
      ),
      'the limit itself is in time',
    )
  })

  it('counts the time left from the instant the spot was observed, not from the boundary', async () => {
    const { feed, deps, contest } = await setup(gbmEwma1Model)
    const observed = scriptedFeed(feed, { observedLagMs: 0 })
    const boundary = OPEN + 14 * MINUTE_MS
    const signal = await takeReading({ ...deps, feed: observed }, contest, 14, boundary + 8_000)
    assert.ok(!isSkipped(signal) && signal.inputs)
    assert.equal(signal.inputs.spotObservedAt, boundary + 8_000)
    // 52 s of the last minute remain, not 60
    assert.ok(Math.abs(signal.inputs.effectiveMinutes - 52 / 60) < 1e-12)
  })

  it('skips a minute whose spot comes back 20 s after the boundary (late), and reads one back in time', async () => {
    const { feed, deps, contest } = await setup()
    const boundary = OPEN + 5 * MINUTE_MS
    const gap = scriptedFeed(feed, { spotFrom: boundary + 9_000 })
    assert.deepEqual(await takeReading({ ...deps, feed: gap }, contest, 5, boundary + 500), {
      skipped: 'no-spot',
    })
    assert.ok(!isSkipped(await takeReading({ ...deps, feed: gap }, contest, 5, boundary + 9_500)))
    const longGap = scriptedFeed(feed, { spotFrom: boundary + 20_000 })
    assert.deepEqual(await takeReading({ ...deps, feed: longGap }, contest, 5, boundary + 20_000), {
      skipped: 'late',
    })
    // READING_MAX_LATE_S is a setting
    assert.ok(
      !isSkipped(
        await takeReading({ ...deps, feed: longGap, maxLateMs: 30_000 }, contest, 5, boundary + 20_000),
      ),
    )
  })

  it('raises nothing on a cold start until the model has its minimum history', async () => {
    for (const name of MODEL_NAMES) {
      const { feed, deps, contest } = await setup(createReadingModel(name))
      const at = OPEN + 3 * MINUTE_MS
      const history = (await feed.stampedClosesBefore?.(at, 120)) ?? []
      assert.ok(history.length > 60)
      const withCloses = (n: number) =>
        scriptedFeed(feed, { closes: () => (n === 0 ? [] : history.slice(-n)) })
      assert.deepEqual(await takeReading({ ...deps, feed: withCloses(0) }, contest, 3, at), {
        skipped: 'short-history',
      })
      const min = deps.model.minHistoryCloses
      assert.deepEqual(await takeReading({ ...deps, feed: withCloses(min - 1) }, contest, 3, at), {
        skipped: 'short-history',
      })
      const first = await takeReading({ ...deps, feed: withCloses(min) }, contest, 3, at)
      assert.ok(!isSkipped(first), name)
      assert.ok(first.confidence > 0.05 && first.confidence < 99.95, `${name}: ${first.confidence}`)
    }
  })

  it('needs at least 2 fresh spot sources', async () => {
    const { feed, deps, contest } = await setup()
    const at = OPEN + 2 * MINUTE_MS
    const one = scriptedFeed(feed, { freshSources: 1 })
    assert.deepEqual(await takeReading({ ...deps, feed: one }, contest, 2, at), { skipped: 'few-sources' })
    const two = scriptedFeed(feed, { freshSources: 2 })
    assert.ok(!isSkipped(await takeReading({ ...deps, feed: two }, contest, 2, at)))
  })

  it('takes the settlement index alone as the spot: it is no median that a second source protects', async () => {
    const { feed, deps, contest } = await setup()
    const at = OPEN + 2 * MINUTE_MS
    const one = scriptedFeed(feed, { freshSources: 1 })
    const index: PriceFeed = {
      ...one,
      observeSpot: async (t) => {
        const o = await one.observeSpot?.(t)
        return o ? { ...o, index: 'BRTI' } : null
      },
    }
    assert.ok(!isSkipped(await takeReading({ ...deps, feed: index }, contest, 2, at)))
  })

  it('raises nothing while the exchange has paused trading, whatever the market says', async () => {
    const { venue, deps, contest } = await setup()
    const at = OPEN + 2 * MINUTE_MS
    const pausedAt = new Set<number>()
    const pausing: Venue = { ...venue, tradingPaused: (t) => pausedAt.has(t) }
    assert.ok(!isSkipped(await takeReading({ ...deps, venue: pausing }, contest, 2, at)))
    pausedAt.add(at)
    assert.deepEqual(await takeReading({ ...deps, venue: pausing }, contest, 2, at), { skipped: 'paused' })
  })

  it('with several venues, holds only the readings of the venue whose exchange paused (decisions §14)', async () => {
    const OTHER = 'KXBTC15MB'
    const feed = createSimPriceFeed({ seed: 21 })
    const sim = createSimVenue({ seed: 21, feed, series: [SERIES, OTHER] })
    const at = OPEN + 2 * MINUTE_MS
    // one venue in its weekly pause, the other trading: each series on its own
    const paused: Venue = { ...sim, name: 'paused', tradingPaused: () => true }
    const trading: Venue = { ...sim, name: 'trading', tradingPaused: () => false }
    const set = createVenueSet([
      { venue: paused, series: [SERIES] },
      { venue: trading, series: [OTHER] },
    ])
    const deps: ReadingDeps = {
      feed,
      venue: set,
      model: createReadingModel(DEFAULT_MODEL),
      maxLateMs: DEFAULT_READING_MAX_LATE_MS,
    }
    const contestOf = async (series: string) => liveContestFor((await set.marketAt(series, OPEN))!)
    assert.deepEqual(await takeReading(deps, await contestOf(SERIES), 2, at), { skipped: 'paused' })
    const other = await takeReading(deps, await contestOf(OTHER), 2, at)
    assert.ok(!isSkipped(other), 'the other venue still reads')
    assert.equal(other.ticker.startsWith(`${OTHER}-`), true)
  })

  it('skips the minute without a strike, a quote or a fresh spot, and says which', async () => {
    const { feed, venue, deps, contest } = await setup()
    const at = OPEN + 2 * MINUTE_MS
    assert.deepEqual(await takeReading(deps, { ...contest, strikePriceDollars: null }, 2, at), {
      skipped: 'no-strike',
    })
    assert.deepEqual(await takeReading(deps, { ...contest, ticker: 'UNKNOWN-1' }, 2, at), {
      skipped: 'no-quote',
    })
    const bookless: Venue = { ...venue, quote: async () => ({ upAskCents: null, downAskCents: null }) }
    assert.deepEqual(await takeReading({ ...deps, venue: bookless }, contest, 2, at), { skipped: 'no-quote' })
    // a book request with no answer says nothing of the asks: not `no-quote`
    const unanswered: Venue = { ...venue, quote: async () => NO_ANSWER }
    assert.deepEqual(await takeReading({ ...deps, venue: unanswered }, contest, 2, at), {
      skipped: 'no-book',
    })
    const stale: PriceFeed = { ...feed, spotAt: async () => null, observeSpot: async () => null }
    assert.deepEqual(await takeReading({ ...deps, feed: stale }, contest, 2, at), { skipped: 'no-spot' })
  })

  it('never reads "down" off a decided 99.4/99.6 book, whichever the model', async () => {
    for (const name of MODEL_NAMES) {
      const { venue, deps, contest } = await setup(createReadingModel(name))
      // a contest whose strike is far below the spot: up is decided
      const decided = {
        ...contest,
        strikePriceDollars: Math.round((contest.strikePriceDollars as number) * 0.97),
      }
      const book: Venue = { ...venue, quote: async () => ({ upAskCents: 99.6, downAskCents: 0.6 }) }
      for (let minute = 1; minute <= 14; minute++) {
        const r = await takeReading(
          { ...deps, venue: book },
          decided,
          minute,
          OPEN + minute * MINUTE_MS + 300,
        )
        assert.ok(!isSkipped(r))
        assert.equal(r.side, 'up', `${name} minute ${minute}`)
      }
    }
  })

  it('reads on the only side that has an ask', async () => {
    const { venue, deps, contest } = await setup()
    const upOnly: Venue = { ...venue, quote: async () => ({ upAskCents: 99.5, downAskCents: null }) }
    const reading = await takeReading({ ...deps, venue: upOnly }, contest, 4, OPEN + 4 * MINUTE_MS)
    assert.ok(!isSkipped(reading))
    assert.equal(reading.side, 'up')
    assert.equal(reading.entryPriceCents, 99.5)
  })

  it('reads a one-sided book even on the side the model rules out: a side with an ask is a quote', async () => {
    // the real contests' case (issue 29): up decided, only a 0.1 ¢ down ask left on the book
    for (const name of MODEL_NAMES) {
      const { venue, deps, contest } = await setup(createReadingModel(name))
      const decided = {
        ...contest,
        strikePriceDollars: Math.round((contest.strikePriceDollars as number) * 0.97),
      }
      const downOnly: Venue = { ...venue, quote: async () => ({ upAskCents: null, downAskCents: 0.1 }) }
      const at = OPEN + 13 * MINUTE_MS
      const reading = await takeReading({ ...deps, venue: downOnly }, decided, 13, at)
      assert.ok(!isSkipped(reading), `${name}: ${JSON.stringify(reading)}`)
      assert.deepEqual(
        { side: reading.side, confidence: reading.confidence, entry: reading.entryPriceCents },
        { side: 'down', confidence: 0.1, entry: 0.1 },
        name,
      )
      assert.equal(reading.edgeCents, 0, 'the bound claims no edge')
      assert.equal(reading.inputs?.upAskCents, null)
      assert.equal(reading.inputs?.downAskCents, 0.1)
      const observed = await observeReadingInputs({ ...deps, venue: downOnly }, decided, 13, at)
      assert.ok(!('skipped' in observed))
      assert.equal(observed.model.midProbability, null, 'a one-sided book has no mid')
      assert.deepEqual(observed.model.book, { upAskCents: null, downAskCents: 0.1, ageMs: 0 })
    }
  })

  it('tells the model the book’s age and whether the spot is the settlement index', async () => {
    const { feed, venue, deps, contest } = await setup()
    const at = OPEN + 3 * MINUTE_MS + 2_000
    const old: Venue = {
      ...venue,
      quote: async () => ({ upAskCents: 52, downAskCents: 50, observedAt: at - 7_000 }),
    }
    const proxy = await observeReadingInputs({ ...deps, venue: old }, contest, 3, at)
    assert.ok(!('skipped' in proxy))
    assert.deepEqual(proxy.model.book, { upAskCents: 52, downAskCents: 50, ageMs: 7_000 })
    assert.equal(proxy.model.spotIsIndex, false)
    assert.equal(proxy.model.venue, 'kalshi')
    const one = scriptedFeed(feed, { freshSources: 1 })
    const index: PriceFeed = {
      ...one,
      observeSpot: async (t) => {
        const o = await one.observeSpot?.(t)
        return o ? { ...o, index: 'BRTI' } : null
      },
    }
    const onIndex = await observeReadingInputs({ ...deps, feed: index }, contest, 3, at)
    assert.ok(!('skipped' in onIndex))
    assert.equal(onIndex.model.spotIsIndex, true)
  })
})
