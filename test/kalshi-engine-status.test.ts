// Kalshi's per-engine status (venue facts §1.13): KXBTC15M trades on matching engine 2 ("Crypto"), so
// that engine's own pause pauses readings and another engine's does not, against the fixture venue.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { makeMarket } from './fixtures/kalshi-fixture.ts'
import { MINUTE, SERIES, startKalshiVenueWorld } from './support/kalshi-venue-world.ts'
import { eventually } from './support/wait.ts'

const NOW = Math.floor(Date.now() / MINUTE) * MINUTE
/** A Monday noon in New York (no pause scheduled), running on from there at the wall clock's pace. */
const mondayNoon = () => {
  const offset = Date.parse('2026-03-02T17:00:00Z') - Date.now()
  return { now: () => Date.now() + offset }
}
const live = makeMarket({
  openTime: NOW - 3 * MINUTE,
  closeTime: NOW + 12 * MINUTE,
  status: 'active',
  floorStrike: 68_000,
})

describe('Kalshi › one status per matching engine', () => {
  it('pauses on the crypto engine’s pause alone, and not on another engine’s', async () => {
    const w = await startKalshiVenueWorld({
      seed: (k) => k.addMarket(live),
      venue: { wallClock: mondayNoon() },
    })
    try {
      const paused = () => w.venue.tradingPaused(Date.now(), SERIES)
      w.kalshi.setExchangeStatus({
        exchange_active: true,
        trading_active: true,
        exchange_index_statuses: [
          { exchange_index: 1, exchange_active: true, trading_active: true },
          { exchange_index: 2, exchange_active: true, trading_active: false },
        ],
      })
      await w.polls(2)
      assert.equal(paused(), true, 'the crypto engine stopped though the exchange as a whole trades')
      const status = w.venue.status()
      assert.deepEqual([status.check, status.scheduledPause], ['paused', false])

      w.kalshi.setExchangeStatus({
        exchange_active: true,
        trading_active: false,
        exchange_index_statuses: [
          { exchange_index: 1, exchange_active: true, trading_active: false },
          { exchange_index: 2, exchange_active: true, trading_active: true },
        ],
      })
      await w.polls(2)
      assert.equal(paused(), false, 'another engine’s pause leaves KXBTC15M trading')
      assert.equal(w.venue.status().check, 'ok')
    } finally {
      await w.close()
    }
  })
})

describe('Kalshi › a schedule it cannot fully read', () => {
  it('calls an outage an outage and says so once, whatever the schedule’s odd sessions', async () => {
    const allWeek = (sessions: unknown[]) =>
      Object.fromEntries(
        ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'].map((d) => [
          d,
          sessions,
        ]),
      )
    const w = await startKalshiVenueWorld({
      seed: (k) => {
        k.addMarket(live)
        k.setSchedule({
          standard_hours: [
            // crossing midnight and closing at 00:00: open at Monday noon
            {
              start_time: '2026-01-01T00:00:00Z',
              end_time: '2026-06-01T00:00:00Z',
              ...allWeek([
                { open_time: '08:00', close_time: '02:00' },
                { open_time: '02:30', close_time: '00:00' },
              ]),
            },
            {
              start_time: '2026-06-01T00:00:00Z',
              end_time: '2027-12-31T00:00:00Z',
              ...allWeek([{ open_time: 'nine' }]),
            },
          ],
          maintenance_windows: [],
        })
      },
      venue: { wallClock: mondayNoon(), downAfterMs: 300, maxAttempts: 1, scheduleEveryMs: 0 },
    })
    try {
      await w.polls(3)
      assert.ok(w.requestsTo('/exchange/schedule').length >= 3)
      w.kalshi.answerAll({ status: 502, body: 'Bad Gateway' })
      const status = await eventually(
        () => w.venue.status(),
        (s) => s.state === 'down',
      )
      assert.deepEqual([status.check, status.scheduledPause], ['unreachable', false])
      const warned = w.logs.filter((l) => l.level === 'warn' && /schedule has sessions/.test(l.msg))
      assert.equal(warned.length, 1)
    } finally {
      await w.close()
    }
  })
})
