// Tests of market validation: the fields the adapter relies on, lenient about everything else.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseExpirationValue, parseMarket, parseRfc3339 } from './market.ts'

const raw = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  ticker: 'KXBTC15M-26MAR021630-30',
  event_ticker: 'KXBTC15M-26MAR021630',
  market_type: 'binary',
  status: 'active',
  open_time: '2026-03-02T21:15:00Z',
  close_time: '2026-03-02T21:30:00Z',
  floor_strike: 68421.37,
  strike_type: 'greater_or_equal',
  yes_bid_dollars: '0.3400',
  result: '',
  expiration_value: '',
  ...overrides,
})

describe('parseMarket', () => {
  it('reads the fields the adapter uses', () => {
    assert.deepEqual(parseMarket(raw()), {
      ok: true,
      market: {
        ticker: 'KXBTC15M-26MAR021630-30',
        eventTicker: 'KXBTC15M-26MAR021630',
        status: 'active',
        openTime: Date.parse('2026-03-02T21:15:00Z'),
        closeTime: Date.parse('2026-03-02T21:30:00Z'),
        floorStrike: 68421.37,
        result: '',
        expirationValue: null,
        settlementValueMillionths: null,
        strikeType: 'greater_or_equal',
      },
    })
  })

  it('tolerates missing optional fields and ignores unknown ones', () => {
    const r = parseMarket({
      ticker: 'T-1',
      status: 'initialized',
      open_time: '2026-03-02T21:15:00Z',
      close_time: '2026-03-02T21:30:00Z',
      brand_new_field: { anything: true },
    })
    assert.ok(r.ok)
    assert.equal(r.market.eventTicker, null)
    assert.equal(r.market.floorStrike, null)
    assert.equal(r.market.result, '')
    assert.equal(r.market.expirationValue, null)
    const nullStrike = parseMarket(raw({ floor_strike: null }))
    assert.ok(nullStrike.ok)
    assert.equal(nullStrike.market.floorStrike, null)
  })

  it('reads a finalized market with a comma in its expiration value', () => {
    const r = parseMarket(raw({ status: 'finalized', result: 'yes', expiration_value: '79,604.96' }))
    assert.ok(r.ok)
    assert.equal(r.market.expirationValue, 79604.96)
    assert.equal(r.market.result, 'yes')
  })

  it('reads an expiration value of 0 or below as not reported (no index value is)', () => {
    for (const value of ['0', '0.0000', '-1', '-79,604.96', 0, -3]) {
      const r = parseMarket(raw({ status: 'finalized', result: 'no', expiration_value: value }))
      assert.ok(r.ok, String(value))
      assert.equal(r.market.expirationValue, null, String(value))
    }
  })

  it('keeps a status word it does not know (the phase mapping decides what it means)', () => {
    const r = parseMarket(raw({ status: 'halted' }))
    assert.ok(r.ok)
    assert.equal(r.market.status, 'halted')
  })

  it('reads the payout and the strike type', () => {
    const r = parseMarket(raw({ status: 'finalized', result: 'no', settlement_value_dollars: '0.0000' }))
    assert.ok(r.ok)
    assert.equal(r.market.settlementValueMillionths, 0)
    assert.equal(r.market.strikeType, 'greater_or_equal')
  })

  it('names the offending field, and the ticker when there is one', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ticker: 42 }, 'ticker'],
      [{ ticker: '' }, 'ticker'],
      [{ event_ticker: 7 }, 'event_ticker'],
      [{ status: 7 }, 'status'],
      [{ status: '' }, 'status'],
      [{ status: undefined }, 'status'],
      [{ settlement_value_dollars: 'one' }, 'settlement_value_dollars'],
      [{ strike_type: 3 }, 'strike_type'],
      [{ open_time: '2026-03-02 21:15:00' }, 'open_time'],
      [{ open_time: 1772486100 }, 'open_time'],
      [{ close_time: 'soon' }, 'close_time'],
      [{ close_time: '2026-03-02T21:15:00Z' }, 'close_time'],
      [{ floor_strike: '68421.37' }, 'floor_strike'],
      [{ result: false }, 'result'],
      [{ expiration_value: 'n/a' }, 'expiration_value'],
      [{ expiration_value: {} }, 'expiration_value'],
    ]
    for (const [overrides, field] of cases) {
      const r = parseMarket(raw(overrides))
      const ticker = field === 'ticker' ? null : 'KXBTC15M-26MAR021630-30'
      assert.deepEqual(r, { ok: false, field, ticker }, JSON.stringify(overrides))
    }
    assert.deepEqual(parseMarket('KXBTC15M'), { ok: false, field: 'market', ticker: null })
    assert.deepEqual(parseMarket(null), { ok: false, field: 'market', ticker: null })
  })
})

describe('parseRfc3339', () => {
  it('reads UTC and offset times, with or without fractions up to microseconds', () => {
    assert.equal(parseRfc3339('2026-03-02T21:30:08.135664Z'), Date.parse('2026-03-02T21:30:08.135Z'))
    assert.equal(parseRfc3339('2026-03-02T21:30:08Z'), Date.parse('2026-03-02T21:30:08Z'))
    assert.equal(parseRfc3339('2026-03-02T16:30:00-05:00'), Date.parse('2026-03-02T21:30:00Z'))
    assert.equal(parseRfc3339('2026-03-02T21:30:08.1Z'), Date.parse('2026-03-02T21:30:08.100Z'))
  })

  it('refuses other shapes and impossible dates', () => {
    for (const bad of [
      '2026-03-02',
      '2026-03-02T21:30:08',
      '2026-13-02T21:30:08Z',
      '1772486100',
      '',
      null,
      0,
    ])
      assert.equal(parseRfc3339(bad), null, String(bad))
  })
})

describe('parseExpirationValue', () => {
  it('strips thousands separators and treats empty as unreported', () => {
    assert.equal(parseExpirationValue('79,604.96'), 79604.96)
    assert.equal(parseExpirationValue('1,079,604.96'), 1079604.96)
    assert.equal(parseExpirationValue('83955.99'), 83955.99)
    assert.equal(parseExpirationValue(83955.99), 83955.99)
    assert.equal(parseExpirationValue(''), null)
    assert.equal(parseExpirationValue(undefined), null)
    assert.equal(parseExpirationValue(null), null)
    for (const bad of ['TBD', '1e5', '12.', ' ', true])
      assert.equal(parseExpirationValue(bad), undefined, String(bad))
  })
})
