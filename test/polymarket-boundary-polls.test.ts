// The Polymarket adapter polls again just after a window's start (decisions §14), as Kalshi's does: a
// window is live from its `eventStartTime` by the venue's own times, but whether it takes orders is
// the venue's word (`acceptingOrders`, `active`), which may turn true only at the start. The adapter's
// clock and its poll loop's waits are the test's (manual-sleep.ts).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { makeGammaEvent } from './fixtures/polymarket-bodies.ts'
import { createManualClock } from './support/manual-clock.ts'
import { createManualSleep } from './support/manual-sleep.ts'
import { startPolymarketVenueWorld } from './support/polymarket-venue-world.ts'

/** A window start, Unix s: 2026-09-25 19:00Z. */
const S = 1_790_362_800
const Q = S * 1000
const SERIES = 'btc-updown-15m'

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
