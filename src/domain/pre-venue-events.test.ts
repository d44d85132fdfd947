import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { withVenueMembers } from './pre-venue-events.ts'

const OLD_VIEW = {
  ticker: 'btc-updown-15m-1790362800',
  state: 'live',
  settled_price_dollars: null,
  signals: [],
}

describe('withVenueMembers', () => {
  it('gives a snapshot written before the venue columns the venue of its series and no references', () => {
    const opened = JSON.parse(withVenueMembers('contest.opened', 'btc-updown-15m', JSON.stringify(OLD_VIEW)))
    assert.deepEqual(opened, { ...OLD_VIEW, venue: 'polymarket', venue_refs: null, signals: [] })
    assert.deepEqual(Object.keys(opened).slice(-3), ['venue', 'venue_refs', 'signals'])
    const emitted = JSON.parse(
      withVenueMembers('signal.emitted', 'SIMSERIES', JSON.stringify({ signal: {}, contest: OLD_VIEW })),
    )
    assert.deepEqual(emitted.contest, { ...OLD_VIEW, venue: null, venue_refs: null })
  })

  it('returns what it was given when the members are recorded, or when the event holds no contest', () => {
    const recorded = JSON.stringify({ ...OLD_VIEW, venue: 'polymarket', venue_refs: null })
    assert.equal(withVenueMembers('contest.settled', 'btc-updown-15m', recorded), recorded)
    const key = JSON.stringify({ id: 'k1' })
    assert.equal(withVenueMembers('key.changed', '', key), key)
  })
})
