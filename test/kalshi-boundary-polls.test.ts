// The Kalshi adapter polls again just after a boundary it knows (decisions §8): the venue turns a
// market `active` at its open_time, and the engine, which wakes at that instant, must see it then,
// not a KALSHI_POLL_S later. The venue's status decides; a venue that opens late is asked a few
// times more, backing off, and never more often than the documented budget allows. The adapter's
// clock and its poll loop's waits are the test's (manual-sleep.ts): each wait is moved to its due
// instant by hand, and the fixture is set to what the venue shows at that instant first.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { QUARTER_MS } from '../src/domain/ticker.ts'
import { fixtureTicker, makeMarket } from './fixtures/kalshi-fixture.ts'
import { createEngineWorld } from './support/engine-world.ts'
import { SERIES, startKalshiVenueWorld } from './support/kalshi-venue-world.ts'
import { createManualClock } from './support/manual-clock.ts'
import { createManualSleep } from './support/manual-sleep.ts'

/** A quarter hour: the window [Q, Q + 15 min) opens here. */
const Q = Date.parse('2026-11-22T19:00:00Z')
const POLL_MS = 5_000
const HOUR_MS = 3_600_000

/** The venue's status of the window opening at `open`, at `t`, when it opens `lateMs` after its open_time. */
function statusAt(open: number, t: number, lateMs: number): Record<string, unknown> {
  if (t < open + lateMs) return { status: 'initialized' }
  if (t < open + QUARTER_MS) return { status: 'active', floor_strike: 68_000 }
  if (t < open + QUARTER_MS + 11_000) return { status: 'closed', floor_strike: 68_000 }
  return {
    status: 'finalized',
    floor_strike: 68_000,
    result: 'yes',
    expiration_value: '68100.00',
    settlement_value_dollars: '1.0000',
  }
}

/** A Kalshi venue on a manual clock starting at `start`, over windows opening from Q − 15 min to `lastOpen`. */
async function boundaryWorld(
  start: number,
  lastOpen: number,
  lateMs: number,
  clock = createManualClock(start),
) {
  const sleep = createManualSleep(clock)
  const opens: number[] = []
  for (let open = Q - QUARTER_MS; open <= lastOpen; open += QUARTER_MS) opens.push(open)
  const w = await startKalshiVenueWorld({
    seed: (k) => {
      for (const open of opens)
        k.addMarket(
          makeMarket({ openTime: open, closeTime: open + QUARTER_MS, ...statusAt(open, start, lateMs) }),
        )
    },
    venue: { wallClock: clock, pollMs: POLL_MS, pollSleep: sleep.sleep, maxRequestsPerSec: 1_000_000 },
  })
  return {
    ...w,
    clock,
    /** the instant of the loop's next poll; the venue is set to what it shows then, and the poll runs */
    async pollAt(): Promise<number> {
      const at = await sleep.next()
      for (const open of opens)
        w.kalshi.updateMarket(fixtureTicker(SERIES, open + QUARTER_MS), statusAt(open, at, lateMs))
      sleep.fire()
      // the poll is done once the loop waits again
      await sleep.next()
      return at
    },
    /** REST requests so far (order books are the engine's, not the poll's) */
    requests: () => w.kalshi.requests.filter((r) => !r.path.endsWith('/orderbook')).length,
  }
}

describe('Kalshi venue › polls at boundaries', () => {
  it('sees a market the venue opens at its open_time in the poll just after it, not a KALSHI_POLL_S later', async () => {
    const w = await boundaryWorld(Q - 2_000, Q, 0)
    try {
      assert.equal(await w.venue.marketAt(SERIES, Q), null, 'not open before the boundary')
      const at = await w.pollAt()
      assert.ok(at >= Q && at <= Q + 250, `polled at Q${at - Q >= 0 ? '+' : ''}${at - Q} ms`)
      const live = await w.venue.marketAt(SERIES, w.clock.now())
      assert.equal(live?.ticker, fixtureTicker(SERIES, Q + QUARTER_MS))
      assert.equal(live?.phase, 'trading')
    } finally {
      await w.close()
    }
  })

  it('opens the contest in the engine, which woke at the boundary, on that poll', async () => {
    const e = await createEngineWorld({ seed: 4, start: Q - 2_000 })
    const w = await boundaryWorld(Q - 2_000, Q, 0, e.time)
    try {
      const engine = e.engine({ venue: w.venue })
      const ticker = fixtureTicker(SERIES, Q + QUARTER_MS)
      e.time.set(Q)
      await engine.tick()
      assert.equal(await e.store.getContest(ticker), null, 'the venue has not been asked since it opened')
      const at = await w.pollAt()
      assert.ok(at <= Q + 250, `the venue was asked again at Q+${at - Q} ms`)
      await engine.tick()
      const contest = await e.store.getContest(ticker)
      assert.equal(contest?.state, 'live')
      assert.equal(contest?.opensAt, Q)
    } finally {
      await w.close()
      await e.close()
    }
  })

  it('asks a venue that opens late a few times more, backing off, then keeps its cadence', async () => {
    // the venue shows the market `initialized` until 10 s past its open_time
    const w = await boundaryWorld(Q - 2_000, Q, 10_000)
    try {
      const at: number[] = []
      for (let i = 0; i < 6; i++) at.push((await w.pollAt()) - Q)
      // just after the boundary, then 0.5 s, 1 s and 2 s after each, then every KALSHI_POLL_S again
      assert.deepEqual(at, [250, 750, 1_750, 3_750, 8_750, 13_750])
      assert.equal(
        (await w.venue.marketAt(SERIES, w.clock.now()))?.phase,
        'trading',
        'open once the venue says so',
      )
    } finally {
      await w.close()
    }
  })

  it('stays within the documented request budget over an hour: 1,449 on time, 1,473 when the venue opens late', async () => {
    for (const [lateMs, budget] of [
      [0, 1_449],
      [10_000, 1_473],
    ] as const) {
      const w = await boundaryWorld(Q + 62_000, Q + HOUR_MS + QUARTER_MS, lateMs)
      try {
        const from = w.requests()
        const end = Q + 62_000 + HOUR_MS
        let lastAt = 0
        while (lastAt < end) {
          lastAt = await w.pollAt()
          // each window is open in the venue within one boundary poll of the venue opening it
          const open = Math.floor(lastAt / QUARTER_MS) * QUARTER_MS
          if (lastAt >= open + lateMs + 250 && lastAt < open + QUARTER_MS && lastAt < end)
            assert.ok(await w.venue.marketAt(SERIES, lastAt), `open at ${new Date(lastAt).toISOString()}`)
        }
        // the poll that began past the hour is not counted
        const inHour = w.requests() - from - 2
        assert.ok(inHour <= budget, `${inHour} requests in an hour (venue ${lateMs} ms late), over ${budget}`)
      } finally {
        await w.close()
      }
    }
  })
})
