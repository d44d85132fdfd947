// Tests of the Coinbase Exchange frame, ticker and candle parsers on the shapes of venue facts §4.1.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  coinbaseAdapter,
  parseCoinbaseCandles,
  parseCoinbaseMessage,
  parseCoinbaseTicker,
} from './coinbase.ts'

const TICKER = {
  type: 'ticker',
  sequence: 131402215877,
  product_id: 'BTC-USD',
  price: '68433.10',
  open_24h: '67920.4',
  volume_24h: '5120.44817302',
  low_24h: '67510.37',
  high_24h: '68557.01',
  volume_30d: '176342.90115544',
  best_bid: '68433.10',
  best_bid_size: '0.01250000',
  best_ask: '68433.11',
  best_ask_size: '0.20400000',
  side: 'sell',
  time: '2026-03-02T21:29:58.467935Z',
  trade_id: 1071220459,
  last_size: '0.00030000',
}

describe('parseCoinbaseMessage', () => {
  it('turns a ticker into the mid of best bid and best ask with the exchange time', () => {
    const ev = parseCoinbaseMessage(JSON.stringify(TICKER))
    assert.equal(ev.kind, 'price')
    if (ev.kind !== 'price') return
    assert.ok(Math.abs(ev.price.mid - 68433.105) < 1e-9)
    assert.equal(Math.round(ev.price.exchangeAt ?? 0), Date.UTC(2026, 2, 2, 21, 29, 58, 468))
  })

  it('treats heartbeats and the subscriptions ack as signs of life and reports errors', () => {
    const hb = {
      type: 'heartbeat',
      sequence: 1,
      last_trade_id: 2,
      product_id: 'BTC-USD',
      time: '2026-03-02T21:29:59.000000Z',
    }
    assert.deepEqual(parseCoinbaseMessage(JSON.stringify(hb)), { kind: 'alive', note: 'heartbeat' })
    assert.equal(parseCoinbaseMessage('{"type":"subscriptions","channels":[]}').kind, 'alive')
    assert.deepEqual(
      parseCoinbaseMessage('{"type":"error","message":"Failed to subscribe","reason":"YFI-USD is delisted"}'),
      { kind: 'rejected', reason: 'Failed to subscribe: YFI-USD is delisted' },
    )
  })

  it('rejects malformed tickers naming the field', () => {
    assert.throws(
      () => parseCoinbaseMessage(JSON.stringify({ ...TICKER, best_bid: 'x' })),
      /ticker\.best_bid/,
    )
    assert.throws(
      () => parseCoinbaseMessage(JSON.stringify({ ...TICKER, best_ask: undefined })),
      /ticker\.best_ask/,
    )
    assert.throws(() => parseCoinbaseMessage(JSON.stringify({ ...TICKER, time: 'soon' })), /ticker\.time/)
    assert.throws(
      () => parseCoinbaseMessage(JSON.stringify({ ...TICKER, product_id: 'ETH-USD' })),
      /product_id/,
    )
    assert.throws(() => parseCoinbaseMessage('{"no":"type"}'), /message\.type/)
    assert.throws(() => parseCoinbaseMessage('not json'), /message: not JSON/)
  })
})

describe('parseCoinbaseTicker', () => {
  it('reads the REST ticker strings', () => {
    const body = {
      ask: '68433.11',
      bid: '68433.10',
      volume: '5120.44817302',
      trade_id: 1071220458,
      price: '68433.10',
      size: '0.00412250',
      time: '2026-03-02T21:29:58.016274911Z',
      rfq_volume: '28.410337',
    }
    assert.ok(Math.abs(parseCoinbaseTicker(body).mid - 68433.105) < 1e-9)
    assert.throws(() => parseCoinbaseTicker({ ...body, bid: null }), /ticker\.bid/)
  })
})

describe('parseCoinbaseCandles', () => {
  it('takes time from index 0 and close from index 4 and returns them oldest first', () => {
    const body = [
      [1772486940, 68421.5, 68440.01, 68425.0, 68433.1, 3.91620374],
      [1772486880, 68398.2, 68431.77, 68401.93, 68425.0, 5.04418812],
    ]
    assert.deepEqual(parseCoinbaseCandles(body), [
      { minuteStart: 1772486880_000, close: 68425.0 },
      { minuteStart: 1772486940_000, close: 68433.1 },
    ])
    assert.throws(() => parseCoinbaseCandles([[1772486940, 1, 2, 3]]), /candles\[0\]\[4\] \(close\)/)
    assert.throws(() => parseCoinbaseCandles({ message: 'rate limited' }), /candles: not an array/)
  })

  it('asks for one-minute candles over the warm-up window', () => {
    const url = new URL(coinbaseAdapter.candlesUrl('https://x.test/', Date.UTC(2026, 2, 2, 12), 70))
    assert.equal(url.pathname, '/products/BTC-USD/candles')
    assert.equal(url.searchParams.get('granularity'), '60')
    assert.equal(url.searchParams.get('start'), '2026-03-02T10:50:00.000Z')
    assert.equal(url.searchParams.get('end'), '2026-03-02T12:00:00.000Z')
  })
})
