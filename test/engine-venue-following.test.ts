// Tests of how the engine follows a real venue's market (decisions §8): a strike set after the open,
// a moved close, a market the venue closes early, one-sided books, and minutes that raise nothing.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MINUTE_MS, type Settlement } from '../src/domain/contest.ts'
import type { SkipReason } from '../src/engine/reading.ts'
import type { Venue, VenueMarket, VenueQuote } from '../src/ports/venue.ts'
import { createEngineWorld, type EngineWorld } from './support/engine-world.ts'

const SERIES = 'KXBTC15M'
const OPEN = Date.parse('2026-11-22T19:00:00Z')
const TICKER = 'KXBTC15M-26NOV221415-15'

type ScriptedVenue = Venue & {
  market$: VenueMarket
  quote$: VenueQuote | null
  result$: Settlement | null
}

/** A venue whose one market, quote and result the test sets directly, as a poller's cache would hold them. */
function scriptedVenue(): ScriptedVenue {
  const v: ScriptedVenue = {
    name: 'scripted',
    supportsHistory: false,
    market$: {
      ticker: TICKER,
      series: SERIES,
      opensAt: OPEN,
      expiresAt: OPEN + 15 * MINUTE_MS,
      strikePriceDollars: null,
      phase: 'trading',
      venue: { name: 'kalshi', refs: { marketTicker: TICKER, eventTicker: null } },
    },
    quote$: { upAskCents: 40, downAskCents: 62 },
    result$: null,
    async marketAt(series, at) {
      const m = v.market$
      const open = m.phase === 'trading' || m.phase === 'paused'
      return series === SERIES && open && at >= m.opensAt && at < m.expiresAt ? { ...m } : null
    },
    async marketOpenedAt(series, opensAt) {
      const m = v.market$
      return series === SERIES && m.opensAt === opensAt ? { ...m } : null
    },
    async market(ticker) {
      return ticker === TICKER ? { ...v.market$ } : null
    },
    async quote(ticker) {
      return ticker === TICKER && v.market$.phase === 'trading' ? v.quote$ : null
    },
    async result(ticker) {
      return ticker === TICKER ? v.result$ : null
    },
    status: () => ({ name: 'scripted', state: 'ok', lastOkAt: null }),
    statuses: () => [{ name: 'scripted', state: 'ok', lastOkAt: null }],
    tradingPaused: () => false,
    start: async () => {},
    close: async () => {},
  }
  return v
}

async function world(): Promise<{ w: EngineWorld; venue: ScriptedVenue; skips: SkipReason[] }> {
  const w = await createEngineWorld({ seed: 5, start: OPEN + 30_000 })
  return { w, venue: scriptedVenue(), skips: [] }
}

async function types(w: EngineWorld): Promise<string[]> {
  return (await w.store.eventsAfter(0, 1000)).map((e) => e.type)
}

describe('engine › following a real venue', () => {
  it('opens without a strike, skips its minutes, and reads once the venue sets the strike', async () => {
    const { w, venue, skips } = await world()
    try {
      const engine = w.engine({ venue, onSkippedReading: (r) => skips.push(r) })
      await engine.tick()
      assert.equal((await w.store.getContest(TICKER))?.strikePriceDollars, null)

      // minute 1 and 2, several ticks each within READING_MAX_LATE_S: warned once per contest;
      // minute 1 counted once, when minute 2 gave it up; minute 2 still being retried
      for (const at of [1, 1.05, 1.15, 2, 2.05]) {
        w.time.set(OPEN + at * MINUTE_MS)
        await engine.tick()
      }
      assert.deepEqual(skips, ['no-strike'])
      assert.equal(w.logger.warnings.length, 1)
      assert.deepEqual((await w.store.getContest(TICKER))?.signals, [])

      venue.market$ = { ...venue.market$, strikePriceDollars: 68_421.37 }
      w.time.set(OPEN + 2.15 * MINUTE_MS)
      await engine.tick()
      const contest = await w.store.getContest(TICKER)
      assert.equal(contest?.strikePriceDollars, 68_421.37)
      assert.deepEqual(
        contest?.signals.map((s) => s.minute),
        [2],
      )
      engine.flushSkipped()
      assert.deepEqual(skips, ['no-strike'], 'minute 2 was raised on a retry: no skip')
      assert.deepEqual(await types(w), ['contest.opened', 'contest.revised', 'signal.emitted'])
      const emitted = (await w.store.eventsAfter(0, 10)).find((e) => e.type === 'signal.emitted')
      assert.equal(JSON.parse(emitted!.data).contest.strike_price_dollars, 68_421.37)
    } finally {
      await w.close()
    }
  })

  it('never replaces a strike once set, but follows a moved close and expires at the new one', async () => {
    const { w, venue } = await world()
    try {
      venue.market$ = { ...venue.market$, strikePriceDollars: 100 }
      const engine = w.engine({ venue })
      await engine.tick()
      const movedClose = OPEN + 10 * MINUTE_MS
      venue.market$ = { ...venue.market$, strikePriceDollars: 200, expiresAt: movedClose }
      w.time.set(OPEN + 3 * MINUTE_MS)
      await engine.tick()
      const revised = await w.store.getContest(TICKER)
      assert.equal(revised?.strikePriceDollars, 100)
      assert.equal(revised?.expiresAt, movedClose)
      assert.equal(revised?.state, 'live')

      w.time.set(movedClose)
      await engine.tick()
      assert.equal((await w.store.getContest(TICKER))?.state, 'expired')
    } finally {
      await w.close()
    }
  })

  it('expires a market the venue closed before its close time, and voids it on a void result', async () => {
    const { w, venue } = await world()
    try {
      venue.market$ = { ...venue.market$, strikePriceDollars: 100 }
      const engine = w.engine({ venue })
      w.time.set(OPEN + 4 * MINUTE_MS + 500)
      await engine.tick()
      assert.equal((await w.store.getContest(TICKER))?.signals.length, 1)

      venue.market$ = { ...venue.market$, phase: 'closed' }
      w.time.set(OPEN + 5 * MINUTE_MS + 500)
      await engine.tick()
      const expired = await w.store.getContest(TICKER)
      assert.equal(expired?.state, 'expired')
      assert.equal(expired?.signals.length, 1, 'no reading after the venue closed it')

      venue.result$ = { kind: 'void', priceDollars: null }
      await engine.tick()
      const settled = await w.store.getContest(TICKER)
      assert.equal(settled?.state, 'settled')
      assert.equal(settled?.settledSide, null)
      assert.deepEqual(
        settled?.signals.map((s) => s.outcome),
        ['void'],
      )
    } finally {
      await w.close()
    }
  })

  it('reads on the only side with an ask, and skips a paused market or an empty book', async () => {
    const { w, venue, skips } = await world()
    try {
      // a strike at the spot, so neither side is decided
      venue.market$ = {
        ...venue.market$,
        strikePriceDollars: (await w.feed.spotAt(OPEN + MINUTE_MS)) as number,
      }
      venue.quote$ = { upAskCents: null, downAskCents: 3.5 }
      const engine = w.engine({ venue, onSkippedReading: (r) => skips.push(r) })
      w.time.set(OPEN + MINUTE_MS + 100)
      await engine.tick()
      const [signal] = (await w.store.getContest(TICKER))!.signals
      assert.equal(signal?.side, 'down')
      assert.equal(signal?.entryPriceCents, 3.5)

      venue.market$ = { ...venue.market$, phase: 'paused' }
      w.time.set(OPEN + 2 * MINUTE_MS + 100)
      await engine.tick()
      venue.market$ = { ...venue.market$, phase: 'trading' }
      venue.quote$ = { upAskCents: null, downAskCents: null }
      w.time.set(OPEN + 3 * MINUTE_MS + 100)
      await engine.tick()
      engine.flushSkipped()
      // a halted market is a pause (decisions §8), not a book without asks
      assert.deepEqual(skips, ['paused', 'no-quote'])
      const contest = await w.store.getContest(TICKER)
      assert.equal(contest?.state, 'live', 'a paused market stays live')
      assert.equal(contest?.signals.length, 1)
    } finally {
      await w.close()
    }
  })
})
