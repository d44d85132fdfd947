// Tests of the slug arithmetic (venue facts §3.1.2): the venue facts' table of windows across both DST
// changes and day boundaries, the DST night whose titles repeat, and slugs of other families refused.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { slugForStart, slugsAround, startOfSlug, windowStartS } from './window-slug.ts'

// slug, window start (UTC), as in the venue facts' table
const TABLE: Array<[string, string]> = [
  ['btc-updown-15m-1769405400', '2026-01-26T05:30:00Z'], // 12:30AM EST: the ET day is the previous one's night
  ['btc-updown-15m-1772486100', '2026-03-02T21:15:00Z'], // EST
  ['btc-updown-15m-1773639900', '2026-03-16T05:45:00Z'], // EDT, 1:45AM-2:00AM
  ['btc-updown-15m-1774278900', '2026-03-23T15:15:00Z'],
  ['btc-updown-15m-1775660400', '2026-04-08T15:00:00Z'],
  ['btc-updown-15m-1790362800', '2026-09-25T19:00:00Z'],
]

describe('window slugs', () => {
  it('name the start of the window in Unix seconds UTC, whatever the ET offset', () => {
    for (const [slug, start] of TABLE) {
      const startMs = Date.parse(start)
      assert.equal(slugForStart(windowStartS(startMs)), slug, start)
      assert.equal(slugForStart(windowStartS(startMs + 899_999)), slug, `${start}: last ms of the window`)
      assert.equal(startOfSlug(slug), startMs / 1000)
    }
  })

  it('computes the just-ended, current and next windows, across the day boundary', () => {
    const at = Date.parse('2026-09-25T23:59:59.999Z')
    assert.deepEqual(slugsAround(at), {
      previous: `btc-updown-15m-${Date.parse('2026-09-25T23:30:00Z') / 1000}`,
      current: `btc-updown-15m-${Date.parse('2026-09-25T23:45:00Z') / 1000}`,
      next: `btc-updown-15m-${Date.parse('2026-09-26T00:00:00Z') / 1000}`,
    })
    assert.equal(slugsAround(Date.parse('2026-09-26T00:00:00Z')).current, 'btc-updown-15m-1790380800')
  })

  it('keeps the two windows titled 1:00AM-1:15AM ET on the night DST ends apart (2026-11-01)', () => {
    const first = windowStartS(Date.parse('2026-11-01T05:00:00Z'))
    const second = windowStartS(Date.parse('2026-11-01T06:00:00Z'))
    assert.equal(slugForStart(first), 'btc-updown-15m-1793509200')
    assert.equal(slugForStart(second), 'btc-updown-15m-1793512800')
    // the night DST starts (2026-03-08), 06:45Z-07:00Z is a plain 15 minutes in UTC
    const spring = windowStartS(Date.parse('2026-03-08T06:52:00Z'))
    assert.equal(spring * 1000, Date.parse('2026-03-08T06:45:00Z'))
    assert.equal(slugsAround(spring * 1000).next, `btc-updown-15m-${spring + 900}`)
  })

  it('refuses slugs of other families and starts off the 900 s grid', () => {
    assert.equal(startOfSlug('btc-updown-5m-1790362800'), null)
    assert.equal(startOfSlug('eth-updown-15m-1790362800'), null)
    assert.equal(startOfSlug('btc-updown-4h-1790362800'), null)
    assert.equal(startOfSlug('btc-updown-15m-1790362801'), null)
    assert.equal(startOfSlug('btc-updown-15m-'), null)
    assert.equal(startOfSlug('bitcoin-up-or-down-september-25-2026-3pm-et'), null)
    assert.equal(startOfSlug('btc-updown-15m-1790362800x'), null)
  })
})
