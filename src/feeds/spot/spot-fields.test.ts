// Tests of the strict JSON readers shared by the exchange parsers.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseRfc3339, SpotParseError, sortedCloses, toNumber, toPrice } from './spot-fields.ts'

describe('parseRfc3339', () => {
  it('reads nine fractional digits that Date.parse cannot be trusted with', () => {
    const ms = parseRfc3339('2026-03-02T21:29:58.016274911Z', 't')
    assert.equal(Math.floor(ms), Date.UTC(2026, 2, 2, 21, 29, 58, 16))
    assert.ok(Math.abs(ms - Math.floor(ms) - 0.274911) < 1e-3)
  })

  it('reads six digits, no fraction, and numeric offsets', () => {
    assert.equal(
      Math.round(parseRfc3339('2026-03-02T21:29:58.467935Z', 't')),
      Date.UTC(2026, 2, 2, 21, 29, 58, 468),
    )
    assert.equal(parseRfc3339('2026-03-02T21:29:58Z', 't'), Date.UTC(2026, 2, 2, 21, 29, 58))
    assert.equal(parseRfc3339('2026-03-02T16:29:58-05:00', 't'), Date.UTC(2026, 2, 2, 21, 29, 58))
  })

  it('rejects other strings naming the field', () => {
    for (const bad of ['2026-03-02', '2026-13-02T00:00:00Z', '2026-03-02T21:29:58.1234567890Z', 7]) {
      assert.throws(
        () => parseRfc3339(bad, 'ticker.time'),
        (e: unknown) => {
          return e instanceof SpotParseError && e.field === 'ticker.time'
        },
      )
    }
  })
})

describe('toNumber and toPrice', () => {
  it('accept decimal strings and finite numbers', () => {
    assert.equal(toNumber('68433.10', 'x'), 68433.1)
    assert.equal(toNumber(68433.1, 'x'), 68433.1)
  })

  it('reject blanks, words, infinities and non-positive prices', () => {
    for (const bad of ['', 'abc', '1,000.5', Number.POSITIVE_INFINITY, null, undefined, {}])
      assert.throws(() => toNumber(bad, 'bid'), /bid: not a number/)
    assert.throws(() => toPrice('0', 'ask'), /ask: not a positive price/)
    assert.throws(() => toPrice(-3, 'ask'), /ask: not a positive price/)
  })
})

describe('sortedCloses', () => {
  it('orders by bucket start and keeps one close per bucket', () => {
    const got = sortedCloses([
      { minuteStart: 120_000, close: 3 },
      { minuteStart: 0, close: 1 },
      { minuteStart: 60_000, close: 2 },
      { minuteStart: 0, close: 1.5 },
    ])
    assert.deepEqual(got, [
      { minuteStart: 0, close: 1.5 },
      { minuteStart: 60_000, close: 2 },
      { minuteStart: 120_000, close: 3 },
    ])
  })
})
