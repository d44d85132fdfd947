// Polymarket's weekly matching-engine restart against the fixture CLOB: a minute in which the CLOB
// answers HTTP 425 pauses readings (health `paused`, scheduled: the venue said so), and so does the
// configured weekly window while the books still answer (post-only: their asks cannot be taken).

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { inWeeklyWindow, type WeeklyWindow } from '../src/domain/weekly-window.ts'
import { slugForStart, windowStartS } from '../src/feeds/polymarket/window-slug.ts'
import { NO_ANSWER } from '../src/ports/venue.ts'
import { DOWN_TOKEN, makeGammaEvent, UP_TOKEN } from './fixtures/polymarket-bodies.ts'
import type { PolymarketFixture } from './fixtures/polymarket-fixture.ts'
import { startPolymarketVenueWorld } from './support/polymarket-venue-world.ts'
import { asksOf } from './support/venue-quote.ts'

const MINUTE = 60_000
const S = windowStartS(Date.now())
const SHIFT = S * 1000 + 7 * MINUTE - Date.now()
const CURRENT = slugForStart(S)
const SERIES = 'btc-updown-15m'

function seed(pm: PolymarketFixture) {
  for (const start of [S - 900, S, S + 900]) pm.putEvent(makeGammaEvent({ startS: start }))
  pm.setBook(UP_TOKEN, [{ price: '0.40', size: '10' }], [{ price: '0.42', size: '10' }])
  pm.setBook(DOWN_TOKEN, [{ price: '0.57', size: '10' }], [{ price: '0.59', size: '10' }])
}

describe('Polymarket › the weekly matching-engine restart', () => {
  it('pauses the minute in which the CLOB answered 425, and only that minute', async () => {
    const w = await startPolymarketVenueWorld({ shiftMs: SHIFT, seed, venue: { weeklyRestart: null } })
    try {
      assert.equal(w.venue.tradingPaused(w.now(), SERIES), false)
      w.pm.failNext(2, 425, { path: /\/clob\/book/ })
      assert.equal(await w.venue.quote(CURRENT, w.now()), NO_ANSWER)
      assert.equal(w.venue.tradingPaused(w.now(), SERIES), true)
      const status = w.venue.status()
      assert.deepEqual([status.check, status.scheduledPause], ['paused', true])
      w.shift(MINUTE)
      await w.lookups(CURRENT, 1)
      assert.equal(w.venue.tradingPaused(w.now(), SERIES), false)
      assert.equal(w.venue.status().check, 'ok')
      assert.deepEqual(asksOf(await w.venue.quote(CURRENT, w.now())), { upAskCents: 42, downAskCents: 59 })
    } finally {
      await w.close()
    }
  })

  it('pauses through the configured weekly window though the books still answer', async () => {
    // a window starting this minute, New York time, whatever day the test runs
    const at = new Date(Date.now() + SHIFT)
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat('en-US', {
        timeZone: 'America/New_York',
        weekday: 'long',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      })
        .formatToParts(at)
        .map((p) => [p.type, p.value]),
    )
    const days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']
    const restart: WeeklyWindow = {
      weekday: days.indexOf(String(parts.weekday)),
      startMinute: Number(parts.hour) * 60 + Number(parts.minute),
      minutes: 3,
    }
    assert.ok(inWeeklyWindow(restart, at.getTime()))
    const w = await startPolymarketVenueWorld({ shiftMs: SHIFT, seed, venue: { weeklyRestart: restart } })
    try {
      assert.equal(w.venue.tradingPaused(w.now(), SERIES), true)
      assert.deepEqual([w.venue.status().check, w.venue.status().scheduledPause], ['paused', true])
      w.shift(3 * MINUTE)
      await w.lookups(CURRENT, 1)
      assert.equal(w.venue.tradingPaused(w.now(), SERIES), false)
      assert.equal(w.venue.status().check, 'ok')
    } finally {
      await w.close()
    }
  })
})
