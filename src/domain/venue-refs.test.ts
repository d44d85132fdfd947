import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type ContestVenue, decodeContestVenue, encodeVenueRefs } from './venue-refs.ts'

describe('venue references as stored', () => {
  it('reads back what was written, for either venue', () => {
    const venues: ContestVenue[] = [
      {
        name: 'kalshi',
        refs: { marketTicker: 'KXBTC15M-26SEP251515-15', eventTicker: 'KXBTC15M-26SEP251515' },
      },
      {
        name: 'polymarket',
        refs: { slug: 'btc-updown-15m-1790362800', conditionId: null, upTokenId: '1', downTokenId: '2' },
      },
      { name: 'polymarket', refs: null },
    ]
    for (const venue of venues)
      assert.deepEqual(decodeContestVenue(venue.name, encodeVenueRefs(venue), 'ignored'), venue)
  })

  it('gives a contest stored before the venue was recorded the venue its series names, without refs', () => {
    assert.deepEqual(decodeContestVenue(null, null, 'KXBTC15M'), { name: 'kalshi', refs: null })
    assert.deepEqual(decodeContestVenue(null, null, 'btc-updown-15m'), { name: 'polymarket', refs: null })
    assert.equal(decodeContestVenue(null, null, 'SIMSERIES'), null)
  })

  it('refuses a stored value it did not write', () => {
    assert.throws(() => decodeContestVenue('binance', null, 'KXBTC15M'), /venue: unexpected value/)
    assert.throws(
      () => decodeContestVenue('polymarket', JSON.stringify({ marketTicker: 'X', eventTicker: null }), 'x'),
      /venue_refs: not polymarket references/,
    )
  })
})
