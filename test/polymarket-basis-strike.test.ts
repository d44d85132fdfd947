// Polymarket's strikes for the model, against the fixture Gamma: the previous window's final price
// (= this window's price to beat) is taken as soon as it is published mid-window, and earlier
// windows are found by their open (`marketOpenedAt`), so they feed the basis as Kalshi's do.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { slugForStart, windowStartS } from '../src/feeds/polymarket/window-slug.ts'
import { makeGammaEvent, resolvedGammaEvent } from './fixtures/polymarket-bodies.ts'
import { startPolymarketVenueWorld } from './support/polymarket-venue-world.ts'
import { eventually } from './support/wait.ts'

const MINUTE = 60_000
const S = windowStartS(Date.now())
const SHIFT = S * 1000 + 7 * MINUTE - Date.now()
const CURRENT = slugForStart(S)
const PREVIOUS = slugForStart(S - 900)
const SERIES = 'btc-updown-15m'

describe('Polymarket › strikes for the basis and the live window', () => {
  it('takes the previous window’s final price as the strike when it arrives mid-window', async () => {
    const w = await startPolymarketVenueWorld({
      shiftMs: SHIFT,
      seed: (pm) => {
        // the previous window not resolved yet; nothing published for the live one
        pm.putEvent(makeGammaEvent({ startS: S - 900, eventMetadata: { priceToBeat: 83_900.5 } }))
        pm.putEvent(makeGammaEvent({ startS: S }))
        pm.putEvent(makeGammaEvent({ startS: S + 900 }))
      },
    })
    try {
      assert.equal((await w.venue.marketAt(SERIES, w.now()))?.strikePriceDollars, null)
      // an earlier window, by its open: its strike feeds the basis
      const earlier = await w.venue.marketOpenedAt(SERIES, (S - 900) * 1000)
      assert.deepEqual([earlier?.ticker, earlier?.strikePriceDollars], [PREVIOUS, 83_900.5])
      assert.equal(await w.venue.marketOpenedAt(SERIES, (S - 900) * 1000 + 1), null)

      w.pm.putEvent(resolvedGammaEvent(S - 900, 'up', { priceToBeat: 83_900.5, finalPrice: 83_962.48113709 }))
      // the next poll reads it (and, the window settled, stops asking)
      const live = await eventually(
        () => w.venue.marketAt(SERIES, w.now()),
        (m) => m?.strikePriceDollars !== null,
      )
      assert.deepEqual([live?.ticker, live?.strikePriceDollars], [CURRENT, 83_962.48])
      assert.equal((await w.venue.market(CURRENT, w.now()))?.strikePriceDollars, 83_962.48)
    } finally {
      await w.close()
    }
  })
})
