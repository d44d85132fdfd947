// Gamma's optional fields read leniently against the fixture venue: a finished window whose
// `outcomePrices` carry 40 decimals, whose resolution source is on an unknown host and whose price to
// beat does not parse still settles; what could not be read is null, counted once and warned once.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { slugForStart, windowStartS } from '../src/feeds/polymarket/window-slug.ts'
import { makeGammaEvent, resolvedGammaEvent } from './fixtures/polymarket-bodies.ts'
import { startPolymarketVenueWorld } from './support/polymarket-venue-world.ts'

const S = windowStartS(Date.now())
const SHIFT = S * 1000 + 7 * 60_000 - Date.now()
const PREVIOUS = slugForStart(S - 900)

describe('Polymarket › optional Gamma fields read leniently', () => {
  it('settles a finished window with odd optional fields, counting each unreadable one once', async () => {
    const odd = resolvedGammaEvent(S - 900, 'up', { priceToBeat: '8.4e4.1', finalPrice: 83_988.9 })
    const [m] = odd.markets as Array<Record<string, unknown>>
    m!.outcomePrices = `["1.${'0'.repeat(40)}", "0.${'0'.repeat(40)}"]`
    m!.resolutionSource = 'https://prices.example.org/btc'
    const w = await startPolymarketVenueWorld({
      shiftMs: SHIFT,
      seed: (pm) => {
        pm.putEvent(odd)
        pm.putEvent(makeGammaEvent({ startS: S }))
        pm.putEvent(makeGammaEvent({ startS: S + 900 }))
      },
      venue: { metadataGraceMs: 60_000 },
    })
    try {
      await w.venue.result(PREVIOUS, w.now())
      await w.lookups(PREVIOUS, 3)
      // the price to beat could not be read: the result waits the grace for published prices, as for
      // one not published (the outcome is the venue's either way)
      assert.equal(await w.venue.result(PREVIOUS, w.now()), null)
      w.shift(60_000)
      assert.deepEqual(await w.venue.result(PREVIOUS, w.now()), {
        kind: 'settled',
        side: 'up',
        priceDollars: 83_988.9,
      })
      assert.deepEqual(
        w.rejected
          .filter((r) => r.endpoint === 'event')
          .map((r) => r.field)
          .sort(),
        ['eventMetadata.priceToBeat', 'resolutionSource'],
        'each unreadable field counted once over several polls',
      )
      assert.equal(
        w.logs.filter((l) => l.msg === 'polymarket event field unreadable; read as null').length,
        2,
      )
    } finally {
      await w.close()
    }
  })
})
