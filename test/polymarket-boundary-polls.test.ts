// The Polymarket adapter polls again just after a window's start (decisions §14), as Kalshi's does: a
// window is live from its `eventStartTime` by the venue's own times, but whether it takes orders is
// the venue's word (`acceptingOrders`, `active`), which may turn true only at the start. A venue that
// opens late is asked a few times more, and never more often than docs/venues.md's budget allows. The
// adapter's clock and its poll loop's waits are the test's (manual-sleep.ts).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { BOUNDARY_RETRY_MS } from '../src/feeds/venue-http/boundary-polls.ts'
import { FINAL_PRICE, makeGammaEvent, PRICE_TO_BEAT } from './fixtures/polymarket-bodies.ts'
import { createManualClock } from './support/manual-clock.ts'
import { createManualSleep } from './support/manual-sleep.ts'
import { startPolymarketVenueWorld } from './support/polymarket-venue-world.ts'

/** A window start, Unix s: 2026-09-25 19:00Z. */
const S = 1_790_362_800
const Q = S * 1000
const SERIES = 'btc-updown-15m'
const WINDOW_MS = 900_000
const POLL_MS = 5_000
const HOUR_MS = 3_600_000
/** Resolution and both prices are in this long after a window's end (docs/venues.md: "about a third
 * of the time" a poll also reads the just-ended window, 5 of each 15 minutes). */
const RESULT_AFTER_MS = 5 * 60_000

/** What Gamma shows of the window starting at `startS` at `t`, when it takes orders `lateMs` after its start. */
function eventAt(startS: number, t: number, lateMs: number): Record<string, unknown> & { slug: string } {
  const start = startS * 1000
  const end = start + WINDOW_MS
  if (t < end) return makeGammaEvent({ startS, acceptingOrders: t >= start + lateMs })
  if (t < end + RESULT_AFTER_MS) return makeGammaEvent({ startS, closed: true })
  return makeGammaEvent({
    startS,
    closed: true,
    umaResolutionStatus: 'resolved',
    outcomePrices: { up: '1', down: '0' },
    eventMetadata: { priceToBeat: PRICE_TO_BEAT, finalPrice: FINAL_PRICE },
  })
}

/** A Polymarket venue on a manual clock from `start`, its windows starting from Q − 30 min to `lastStart`. */
async function budgetWorld(start: number, lastStart: number, lateMs: number) {
  const clock = createManualClock(start)
  const sleep = createManualSleep(clock)
  const starts: number[] = []
  for (let t = Q - 2 * WINDOW_MS; t <= lastStart; t += WINDOW_MS) starts.push(t / 1000)
  const w = await startPolymarketVenueWorld({
    seed: (pm) => {
      for (const startS of starts) pm.putEvent(eventAt(startS, start, lateMs))
    },
    venue: {
      wallClock: clock,
      pollMs: POLL_MS,
      pollSleep: sleep.sleep,
      gammaRequestsPerSec: 1_000_000,
      clobRequestsPerSec: 1_000_000,
    },
  })
  return {
    ...w,
    /** the instant of the loop's next poll; Gamma is set to what it shows then, and the poll runs */
    async pollAt(): Promise<number> {
      const at = await sleep.next()
      for (const startS of starts) w.pm.updateEvent(`${SERIES}-${startS}`, () => eventAt(startS, at, lateMs))
      sleep.fire()
      // the poll is done once the loop waits again
      await sleep.next()
      return at
    },
  }
}

describe('Polymarket venue › polls at boundaries', () => {
  it('takes a window the venue opens for orders at its start as trading in the poll just after it', async () => {
    const clock = createManualClock(Q - 2_000)
    const sleep = createManualSleep(clock)
    const w = await startPolymarketVenueWorld({
      seed: (pm) => {
        pm.putEvent(makeGammaEvent({ startS: S - 900 }))
        pm.putEvent(makeGammaEvent({ startS: S, acceptingOrders: false }))
      },
      venue: { wallClock: clock, pollMs: 5_000, pollSleep: sleep.sleep },
    })
    try {
      const at = await sleep.next()
      assert.ok(at >= Q && at <= Q + 250, `polled at Q${at - Q >= 0 ? '+' : ''}${at - Q} ms`)
      w.pm.updateEvent(`${SERIES}-${S}`, () => makeGammaEvent({ startS: S }))
      sleep.fire()
      await sleep.next()
      const live = await w.venue.marketAt(SERIES, clock.now())
      assert.equal(live?.ticker, `${SERIES}-${S}`)
      assert.equal(live?.phase, 'trading')
    } finally {
      await w.close()
    }
  })
})

describe('Polymarket venue › boundary polls within the request budget', () => {
  // docs/venues.md's per-poll arithmetic: each poll reads the current window and the next, and the
  // just-ended one until its result and prices are in (RESULT_AFTER_MS here), the poll that finds them
  // included; nothing else while every event is found (no listing fallback, no overdue window)
  const perPollMax = 3
  const perWindow = (WINDOW_MS / POLL_MS) * 2 + (RESULT_AFTER_MS / POLL_MS + 1)
  // one boundary instant a window (its start is the previous one's end): a boundary poll, then at
  // most one re-poll per wait while the venue lags, each of at most 3 requests
  const extraPollsPerWindow = 1 + BOUNDARY_RETRY_MS.length
  const extraPerWindow = extraPollsPerWindow * perPollMax
  const windows = HOUR_MS / WINDOW_MS
  const hourWithout = windows * perWindow
  const hourBudget = hourWithout + windows * extraPerWindow
  const pollBudget = HOUR_MS / POLL_MS + windows * extraPollsPerWindow

  it('has the documented arithmetic: about 420 Gamma requests a window, at most 12 more, under 3 %', () => {
    assert.ok(Math.abs(perWindow - 420) <= 1, `${perWindow} a window`)
    assert.equal(extraPerWindow, 12)
    assert.ok(extraPerWindow / perWindow < 0.03)
  })

  for (const lateMs of [0, 10_000])
    it(`asks Gamma at most ${extraPerWindow} more times a window over an hour, the venue ${lateMs / 1000} s late`, async (t) => {
      const start = Q + 62_000
      const end = start + HOUR_MS
      const w = await budgetWorld(start, end + WINDOW_MS, lateMs)
      try {
        const count = (re: RegExp) => w.pm.requests.filter((r) => re.test(r.path)).length
        const SLUG = /^\/gamma\/events\/slug\//
        const LISTING = /^\/gamma\/events$/
        const CLOB = /^\/clob\//
        const from = { slug: count(SLUG), listing: count(LISTING), clob: count(CLOB) }
        let polls = 0
        let slugLookups = 0
        for (;;) {
          const before = w.pm.requests.length
          const at = await w.pollAt()
          const made = w.pm.requests.length - before
          assert.ok(made <= perPollMax, `${made} requests in the poll at ${new Date(at).toISOString()}`)
          // the poll that began past the hour is not counted
          if (at >= end) break
          polls++
          slugLookups += made
          // checked as it goes, so polls that run away fail here rather than loop on
          assert.ok(polls <= pollBudget, `over ${pollBudget} polls by ${new Date(at).toISOString()}`)
          // each window takes orders in the adapter's view within a poll of the venue opening it
          const open = Math.floor(at / WINDOW_MS) * WINDOW_MS
          if (at >= open + lateMs + POLL_MS)
            assert.equal((await w.venue.marketAt(SERIES, at))?.phase, 'trading', new Date(at).toISOString())
        }
        // by endpoint: slug lookups only (every event is found: no listing; books are the engine's)
        assert.equal(count(LISTING) - from.listing, 0, 'listing requests')
        assert.equal(count(CLOB) - from.clob, 0, 'CLOB requests')
        assert.ok(
          slugLookups <= hourBudget,
          `${slugLookups} Gamma requests in an hour (venue ${lateMs} ms late), over ${hourBudget}`,
        )
        assert.ok(slugLookups / hourWithout < 1.03, `${slugLookups} against ${hourWithout}: 3 % more or over`)
        t.diagnostic(
          `${polls} polls, ${slugLookups} slug lookups (budget ${hourBudget}, ${hourWithout} without)`,
        )
      } finally {
        await w.close()
      }
    })
})
