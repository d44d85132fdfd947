import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type ContestVenue, decodeContestVenue, encodeVenueRefs, venueRefsLine } from './venue-refs.ts'

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

describe('the line the dashboard shows under a contest', () => {
  it('names the venue and every reference in full', () => {
    assert.equal(
      venueRefsLine('kalshi', {
        market_ticker: 'KXBTC15M-26SEP251515-15',
        event_ticker: 'KXBTC15M-26SEP251515',
      }),
      'Kalshi · market KXBTC15M-26SEP251515-15 · event KXBTC15M-26SEP251515',
    )
    assert.equal(
      venueRefsLine('polymarket', {
        slug: 's',
        condition_id: '0xab',
        up_token_id: '12',
        down_token_id: '34',
      }),
      'Polymarket · condition 0xab · Up token 12 · Down token 34',
    )
  })

  it('says what is missing rather than leaving a blank', () => {
    assert.equal(venueRefsLine('kalshi', null), 'Kalshi · references not recorded')
    assert.equal(venueRefsLine(null, null), 'venue not recorded')
  })
})
