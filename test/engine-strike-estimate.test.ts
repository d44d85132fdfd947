// A reading while the venue has not published the strike (decisions §14): on a market that states
// its settlement rule, the engine prices against its own estimate — the proxy's mean over the rule's
// window before the open — with that estimate's uncertainty in the model's variance, and never stores
// it; on a venue that states no rule (Kalshi), no strike still means no reading.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MINUTE_MS } from '../src/domain/contest.ts'
import { spanMeanOfCloses } from '../src/domain/price-history.ts'
import type { ModelInputs } from '../src/domain/reading-model.ts'
import { liveContestFor } from '../src/engine/contest-steps.ts'
import {
  DEFAULT_READING_MAX_LATE_MS,
  isSkipped,
  type ReadingDeps,
  STRIKE_ESTIMATE_SD,
  takeReading,
} from '../src/engine/reading.ts'
import { createSimPriceFeed } from '../src/feeds/sim/sim-price-feed.ts'
import { createSimVenue } from '../src/feeds/sim/sim-venue.ts'
import { createReadingModel, DEFAULT_MODEL, MODEL_NAMES } from '../src/model/models.ts'
import type { PriceFeed, Venue } from '../src/ports/venue.ts'

const SERIES = 'KXBTC15M'
const OPEN = Date.parse('2026-11-22T19:00:00Z')

/** The proxy's mean over [from, to] from its minutes, as every reading takes it. */
async function proxyMean(feed: PriceFeed, from: number, to: number): Promise<number> {
  const closes = await feed.stampedClosesBefore(to, Math.ceil((to - from) / MINUTE_MS) + 1)
  return spanMeanOfCloses(closes, from, to)!.dollars
}

async function setup(averagingS: number | null, modelName = DEFAULT_MODEL) {
  const feed = createSimPriceFeed({ seed: 21 })
  const sim = createSimVenue({ seed: 21, feed, series: [SERIES] })
  const market = await sim.marketAt(SERIES, OPEN)
  assert.ok(market)
  // the same market as a venue that publishes its strike late and states its rule would show it
  const venue: Venue = {
    ...sim,
    market: async (ticker, at) => {
      const m = await sim.market(ticker, at)
      return (
        m && {
          ...m,
          strikePriceDollars: null,
          ...(averagingS === null ? {} : { settlementRule: { averagingS } }),
        }
      )
    },
  }
  const seen: ModelInputs[] = []
  const model = createReadingModel(modelName)
  const spy = {
    ...model,
    probabilityUp: (input: ModelInputs) => {
      seen.push(input)
      return model.probabilityUp(input)
    },
  }
  const deps: ReadingDeps = { feed, venue, model: spy, maxLateMs: DEFAULT_READING_MAX_LATE_MS }
  const strike = market.strikePriceDollars
  return { feed, deps, seen, contest: { ...liveContestFor(market), strikePriceDollars: null }, model, strike }
}

describe('a reading without the venue’s strike', () => {
  it('prices against the proxy’s mean over the rule’s window before the open, with its variance', async () => {
    const { feed, deps, seen, contest } = await setup(60)
    const at = OPEN + 5 * MINUTE_MS
    const reading = await takeReading(deps, contest, 5, at)
    assert.ok(!isSkipped(reading), JSON.stringify(reading))
    const [input] = seen
    assert.equal(input!.strikeDollars, await proxyMean(feed, OPEN - 60_000, OPEN))
    assert.equal(input!.strikeEstimateVariance, STRIKE_ESTIMATE_SD ** 2)
    assert.equal(input!.averagingS, 60)
    assert.equal(contest.strikePriceDollars, null, 'the estimate is never the contest’s strike')
  })

  it('takes the strike as a basis sample once the venue publishes it, though an earlier reading found none', async () => {
    const { deps, seen, contest, strike } = await setup(60)
    // the engine's basis cache, shared by every reading: it must not remember a strike as missing
    const cached = { ...deps, basisCache: new Map() }
    assert.ok(!isSkipped(await takeReading(cached, contest, 5, OPEN + 5 * MINUTE_MS)))
    assert.equal(
      seen[0]!.basisSamples.find((s) => s.opensAt === OPEN),
      undefined,
      'not published yet',
    )
    const published = { ...contest, strikePriceDollars: strike }
    assert.ok(!isSkipped(await takeReading(cached, published, 6, OPEN + 6 * MINUTE_MS)))
    assert.equal(seen[1]!.basisSamples.find((s) => s.opensAt === OPEN)?.strikeDollars, strike)
  })

  it('takes the feed’s own mean of the minute where it saw the minute whole, and says when it had only two closes', async () => {
    const { feed, deps, seen, contest } = await setup(60)
    const [minute] = await feed.stampedClosesBefore(OPEN, 1)
    assert.ok(minute?.meanDollars !== undefined, 'the sandbox feed saw the minute before the open whole')
    await takeReading(deps, contest, 5, OPEN + 5 * MINUTE_MS)
    assert.equal(seen[0]!.strikeDollars, minute.meanDollars)
    assert.equal(seen[0]!.strikeEstimateFromCloses, undefined)
    assert.ok(seen[0]!.basisSamples.length > 0 && seen[0]!.basisSamples.every((b) => !b.fromCloses))
    // a feed that kept closes only (one-minute history): the closes' guess, marked as such
    const closesOnly: PriceFeed = {
      ...feed,
      stampedClosesBefore: async (at, count) =>
        (await feed.stampedClosesBefore(at, count)).map((c) => ({ at: c.at, priceDollars: c.priceDollars })),
    }
    await takeReading({ ...deps, feed: closesOnly }, contest, 5, OPEN + 5 * MINUTE_MS)
    const guessed = seen[1]!
    const [before, at] = await closesOnly.stampedClosesBefore(OPEN, 2)
    assert.equal(guessed.strikeDollars, (before!.priceDollars + at!.priceDollars) / 2)
    assert.equal(guessed.strikeEstimateFromCloses, true)
    assert.ok(guessed.basisSamples.length > 0 && guessed.basisSamples.every((b) => b.fromCloses === true))
  })

  it('keeps the proxy’s own strike beside the venue’s once published, where the market states its rule', async () => {
    const { feed, deps, seen, contest, strike } = await setup(60)
    const published = { ...contest, strikePriceDollars: strike }
    assert.ok(!isSkipped(await takeReading(deps, published, 6, OPEN + 6 * MINUTE_MS)))
    assert.equal(seen[0]!.strikeDollars, strike)
    assert.equal(seen[0]!.strikeEstimateVariance, undefined, 'the venue’s strike, not an estimate')
    assert.equal(seen[0]!.ownStrikeDollars, await proxyMean(feed, OPEN - 60_000, OPEN))
    // a market that states no rule (Kalshi's): no strike of the engine's own
    const kalshi = await setup(null)
    const kalshiPublished = { ...kalshi.contest, strikePriceDollars: kalshi.strike }
    assert.ok(!isSkipped(await takeReading(kalshi.deps, kalshiPublished, 6, OPEN + 6 * MINUTE_MS)))
    assert.equal(kalshi.seen[0]!.ownStrikeDollars, undefined)
  })

  it('reads a point-price rule from the proxy at the open', async () => {
    const { feed, deps, seen, contest } = await setup(0)
    await takeReading(deps, contest, 5, OPEN + 5 * MINUTE_MS)
    assert.equal(seen[0]!.strikeDollars, await proxyMean(feed, OPEN, OPEN), 'the close at the open')
    assert.equal(seen[0]!.averagingS, 0)
  })

  for (const name of MODEL_NAMES) {
    it(`is less sure than the same reading with the strike known exactly (${name})`, async () => {
      const { deps, seen, contest, model } = await setup(60, name)
      const reading = await takeReading(deps, contest, 12, OPEN + 12 * MINUTE_MS)
      assert.ok(!isSkipped(reading))
      const estimated = seen[0]!
      const exact = { ...estimated, strikeEstimateVariance: 0 }
      const pEstimated = model.probabilityUp(estimated).probabilityUp
      const pExact = model.probabilityUp(exact).probabilityUp
      assert.notEqual(pEstimated, pExact)
      assert.ok(Math.abs(pEstimated - 0.5) < Math.abs(pExact - 0.5), `${pEstimated} vs ${pExact}`)
      assert.ok(model.probabilityUp(estimated).effectiveMinutes > model.probabilityUp(exact).effectiveMinutes)
    })
  }

  it('raises nothing on a venue that states no rule: no strike, no reading', async () => {
    const { deps, contest } = await setup(null)
    assert.deepEqual(await takeReading(deps, contest, 5, OPEN + 5 * MINUTE_MS), { skipped: 'no-strike' })
  })
})
