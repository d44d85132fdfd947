// Unit tests of the venue ticker shape: Eastern time with DST, day boundaries, round trips.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { formatTicker, parseTicker, QUARTER_MS, quarterStart } from './ticker.ts'

const at = (iso: string): number => Date.parse(iso)
const SHAPE = /^KXBTC15M-\d{2}(JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC)\d{6}-(00|15|30|45)$/

describe('formatTicker', () => {
  it('writes the close time in EST (UTC−5) in winter', () => {
    assert.equal(formatTicker('KXBTC15M', at('2026-11-22T19:15:00Z')), 'KXBTC15M-26NOV221415-15')
    assert.equal(formatTicker('KXBTC15M', at('2026-01-15T17:00:00Z')), 'KXBTC15M-26JAN151200-00')
  })

  it('writes the close time in EDT (UTC−4) in summer', () => {
    assert.equal(formatTicker('KXBTC15M', at('2026-09-25T19:15:00Z')), 'KXBTC15M-26SEP251515-15')
    assert.equal(formatTicker('KXBTC15M', at('2026-07-04T04:45:00Z')), 'KXBTC15M-26JUL040045-45')
  })

  it('uses the Eastern calendar day, which can differ from the UTC day (and year)', () => {
    assert.equal(formatTicker('KXBTC15M', at('2026-03-01T02:00:00Z')), 'KXBTC15M-26FEB282100-00')
    assert.equal(formatTicker('KXBTC15M', at('2027-01-01T03:30:00Z')), 'KXBTC15M-26DEC312230-30')
  })

  it('follows the switch to daylight time', () => {
    assert.equal(formatTicker('KXBTC15M', at('2026-03-08T06:45:00Z')), 'KXBTC15M-26MAR080145-45')
    assert.equal(formatTicker('KXBTC15M', at('2026-03-08T07:00:00Z')), 'KXBTC15M-26MAR080300-00')
  })

  it('keeps tickers unique through the hour repeated when daylight time ends', () => {
    assert.equal(formatTicker('KXBTC15M', at('2026-11-01T05:15:00Z')), 'KXBTC15M-26NOV010115-15')
    assert.equal(formatTicker('KXBTC15M', at('2026-11-01T06:15:00Z')), 'KXBTC15M-26NOV010115-15B')
    assert.equal(formatTicker('KXBTC15M', at('2026-11-01T07:00:00Z')), 'KXBTC15M-26NOV010200-00')
    const seen = new Set<string>()
    for (let t = at('2026-10-31T12:00:00Z'); t < at('2026-11-02T12:00:00Z'); t += QUARTER_MS) {
      seen.add(formatTicker('KXBTC15M', t))
    }
    assert.equal(seen.size, 48 * 4)
  })

  it('agrees with a direct Intl rendering of any instant from 2020 to 2040', () => {
    const direct = new Intl.DateTimeFormat('en-US', {
      timeZone: 'America/New_York',
      year: '2-digit',
      month: 'short',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
    fc.assert(
      fc.property(fc.integer({ min: at('2020-01-01T00:00:00Z'), max: at('2040-01-01T00:00:00Z') }), (t) => {
        const p: Record<string, string> = {}
        for (const part of direct.formatToParts(t)) p[part.type] = part.value
        const stamp = `${p.year}${p.month?.toUpperCase()}${p.day}${p.hour}${p.minute}`
        assert.ok(formatTicker('S', t).startsWith(`S-${stamp}-${p.minute}`))
      }),
      { numRuns: 5_000 },
    )
  })

  it('has the venue shape for every quarter of a year (outside the repeated hour)', () => {
    let marked = 0
    for (let t = at('2026-01-01T00:00:00Z'); t < at('2027-01-01T00:00:00Z'); t += QUARTER_MS) {
      const ticker = formatTicker('KXBTC15M', t)
      if (ticker.endsWith('B')) marked++
      else assert.match(ticker, SHAPE)
    }
    assert.equal(marked, 4)
  })
})

describe('parseTicker', () => {
  it('inverts formatTicker for every quarter of a year', () => {
    for (let t = at('2026-01-01T00:00:00Z'); t < at('2027-01-01T00:00:00Z'); t += QUARTER_MS) {
      for (const series of ['KXBTC15M', 'KX-ETH.15M']) {
        assert.deepEqual(parseTicker(formatTicker(series, t)), { series, expiresAt: t })
      }
    }
  })

  it('rejects anything formatTicker would not produce', () => {
    for (const bad of [
      'KXBTC15M',
      'KXBTC15M-26NOV221415',
      'KXBTC15M-26NOV221415-1',
      'KXBTC15M-26NOV221415-30',
      'KXBTC15M-26XYZ221415-15',
      'KXBTC15M-26nov221415-15',
      'KXBTC15M-26NOV221415-15B',
      'KXBTC15M-26MAR080215-15',
      '-26NOV221415-15',
    ]) {
      assert.equal(parseTicker(bad), null, bad)
    }
  })
})

describe('quarterStart', () => {
  it('floors to the quarter hour', () => {
    assert.equal(quarterStart(at('2026-11-22T19:29:59.999Z')), at('2026-11-22T19:15:00Z'))
    assert.equal(quarterStart(at('2026-11-22T19:30:00Z')), at('2026-11-22T19:30:00Z'))
  })
})
