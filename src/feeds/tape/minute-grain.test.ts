// Tests of minute-grained history on a tape: each record, read back by the live adapter's own
// parsers, says what the minute's history said, and stands only from the instant it was known.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  kalshiCandleBookRecord,
  kalshiSettledMarketRecords,
  minuteCloseRecord,
} from '../../tape/minute-grain.ts'
import { MINUTE_GRAIN, parseHeader, parseRecord, type TapeHeader } from '../../tape/tape-format.ts'
import { parseMarket } from '../kalshi/market.ts'
import { phaseForStatus } from '../kalshi/market-status.ts'
import { asksFromOrderbook } from '../kalshi/orderbook.ts'
import { settlementOf } from '../kalshi/settlement.ts'
import { createMinuteBook } from '../spot/minute-book.ts'

const MIN = 60_000
const at = (iso: string): number => Date.parse(iso)

describe('minuteCloseRecord', () => {
  it('stands 1 ms before its minute ends: the close of its own minute, seen by the next boundary', () => {
    const start = at('2026-11-20T10:04:00Z')
    const r = minuteCloseRecord('coinbase', start, 91234.5)
    assert.deepEqual(r, { t: start + MIN - 1, k: 'spot', src: 'coinbase', px: 91234.5, xt: start + MIN - 1 })
    assert.ok(r.t < start + MIN, 'visible at the boundary that ends the minute')
    assert.ok(r.t >= start, 'never before its own minute')
    const book = createMinuteBook({ keepMinutes: 5 })
    book.recordLive(r.t, r.px as number)
    assert.equal(book.closeOf(start), 91234.5)
    assert.equal(book.closeOf(start + MIN), undefined)
    assert.deepEqual(parseRecord(JSON.parse(JSON.stringify(r))), r)
  })

  it('refuses a start that is not a whole minute and a price that is not positive', () => {
    assert.throws(() => minuteCloseRecord('coinbase', at('2026-11-20T10:04:30Z'), 1), /whole minute/)
    assert.throws(() => minuteCloseRecord('coinbase', at('2026-11-20T10:04:00Z'), 0), /positive price/)
    assert.throws(
      () => minuteCloseRecord('coinbase', at('2026-11-20T10:04:00Z'), Number.NaN),
      /positive price/,
    )
  })
})

describe('kalshiCandleBookRecord', () => {
  const end = at('2026-11-20T10:05:00Z')

  it('is the book standing at the candle end: the adapter reads back its YES bid and ask', () => {
    const r = kalshiCandleBookRecord('KXBTC15M-X', end, 0.54, 0.55)
    assert.equal(r.t, end)
    assert.deepEqual(r.ob, {
      orderbook_fp: { yes_dollars: [['0.5400', '1.00']], no_dollars: [['0.4500', '1.00']] },
    })
    // YES ask = 1 − best NO bid; NO ask = 1 − best YES bid
    assert.deepEqual(asksFromOrderbook(r.ob), { ok: true, value: { upAskCents: 55, downAskCents: 46 } })
  })

  it('keeps sub-cent ticks exactly (the tapered grid near the extremes)', () => {
    const r = kalshiCandleBookRecord('KXBTC15M-X', end, 0.998, 0.999)
    assert.deepEqual(asksFromOrderbook(r.ob), { ok: true, value: { upAskCents: 99.9, downAskCents: 0.2 } })
    const odd = kalshiCandleBookRecord('KXBTC15M-X', end, 0.123456, null)
    assert.deepEqual(odd.ob, { orderbook_fp: { yes_dollars: [['0.123456', '1.00']], no_dollars: [] } })
  })

  it('leaves a side without a quote empty, so that side has no ask', () => {
    const noAsk = kalshiCandleBookRecord('KXBTC15M-X', end, 0.999, null)
    assert.deepEqual(asksFromOrderbook(noAsk.ob), {
      ok: true,
      value: { upAskCents: null, downAskCents: 0.1 },
    })
    const none = kalshiCandleBookRecord('KXBTC15M-X', end, null, null)
    assert.deepEqual(asksFromOrderbook(none.ob), {
      ok: true,
      value: { upAskCents: null, downAskCents: null },
    })
  })

  it('refuses a quote outside 0–1 dollars', () => {
    assert.throws(() => kalshiCandleBookRecord('KXBTC15M-X', end, 54, 55), /between 0 and 1/)
    assert.throws(() => kalshiCandleBookRecord('KXBTC15M-X', end, 0.5, Number.NaN), /YES ask/)
  })
})

describe('kalshiSettledMarketRecords', () => {
  // the shape of the historical endpoint's answer (reference: history-endpoints §1.4), values invented
  const settled = {
    ticker: 'KXBTC15M-26NOV200515-15',
    event_ticker: 'KXBTC15M-26NOV200515',
    status: 'finalized',
    result: 'no',
    open_time: '2026-11-20T10:00:00Z',
    close_time: '2026-11-20T10:15:00Z',
    settlement_ts: '2026-11-20T10:15:08.412907Z',
    strike_type: 'greater_or_equal',
    floor_strike: 91000.5,
    expiration_value: '90990.25',
    settlement_value_dollars: '0.0000',
  }

  it('opens trading with the strike and no result, closes without one, settles as returned', () => {
    const [open, close, done] = kalshiSettledMarketRecords(settled)
    assert.ok(open && close && done)
    assert.deepEqual(
      [open.t, close.t, done.t],
      [at('2026-11-20T10:00:00Z'), at('2026-11-20T10:15:00Z'), at('2026-11-20T10:15:08.412Z')],
    )
    const views = [open, close, done].map((r) => {
      const p = parseMarket(r.m)
      assert.ok(p.ok, JSON.stringify(p))
      return p.market
    })
    const [o, c, d] = views as [NonNullable<(typeof views)[0]>, (typeof views)[0], (typeof views)[0]]
    assert.equal(phaseForStatus(o.status), 'trading')
    assert.equal(o.floorStrike, 91000.5)
    assert.deepEqual([o.result, o.expirationValue, settlementOf(o)], ['', null, null])
    assert.ok(!('settlement_ts' in (open.m as object)) && !('settlement_value_dollars' in (open.m as object)))
    assert.equal(phaseForStatus(c.status), 'closed')
    assert.equal(settlementOf(c), null)
    assert.equal(done.m, settled)
    assert.deepEqual(settlementOf(d), { kind: 'settled', side: 'down', priceDollars: 90990.25 })
  })

  it('settles a minute after the close when the venue gives no settlement instant', () => {
    const { settlement_ts: _, ...noTs } = settled
    const times = kalshiSettledMarketRecords(noTs).map((r) => r.t)
    assert.equal(times[2], at('2026-11-20T10:16:00Z'))
  })

  it('refuses a market without usable times in one line that names it', () => {
    assert.throws(
      () => kalshiSettledMarketRecords({ ...settled, open_time: 'soon' }),
      /KXBTC15M-26NOV200515-15: "open_time" is not a date-time/,
    )
    assert.throws(
      () => kalshiSettledMarketRecords({ ...settled, close_time: settled.open_time }),
      /"close_time" is not after "open_time"/,
    )
  })
})

describe('the header grain', () => {
  const header: TapeHeader = {
    tape: 1,
    venue: 'kalshi',
    series: ['KXBTC15M'],
    sources: ['coinbase'],
    from: '2026-11-20T00:00:00Z',
    to: '2026-11-21T00:00:00Z',
    origin: 'imported',
  }
  it('reads "1m", leaves it absent on a tape recorded at full grain, and refuses any other', () => {
    assert.deepEqual(parseHeader({ ...header, grain: MINUTE_GRAIN }), { ...header, grain: '1m' })
    assert.deepEqual(parseHeader(header), header)
    assert.ok(!('grain' in (parseHeader(header) as object)))
    assert.deepEqual(parseHeader({ ...header, grain: '1s' }), {
      problem: 'unsupported grain "1s" (this program reads "1m" or none)',
    })
  })
})
