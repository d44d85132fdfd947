// Tests of the Bitstamp frame, REST ticker and OHLC parsers on the reference's shapes.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseBitstampCandles, parseBitstampMessage, parseBitstampTicker } from './bitstamp.ts'

const TRADE = {
  data: {
    id: 351234567,
    timestamp: '1772486998',
    amount: 0.0125,
    amount_str: '0.01250000',
    price: 68433,
    price_str: '68433',
    type: 0,
    microtimestamp: '1772486998745000',
    buy_order_id: 1900000000000001,
    sell_order_id: 1900000000000002,
  },
  channel: 'live_trades_btcusd',
  event: 'trade',
}

describe('parseBitstampMessage', () => {
  it('takes the trade price as the mid, with the microsecond time', () => {
    assert.deepEqual(parseBitstampMessage(JSON.stringify(TRADE)), {
      kind: 'price',
      price: { mid: 68433, exchangeAt: 1772486998745 },
    })
    const noStr = { ...TRADE, data: { ...TRADE.data, price_str: undefined, price: 68434.5 } }
    const ev = parseBitstampMessage(JSON.stringify(noStr))
    assert.equal(ev.kind === 'price' && ev.price.mid, 68434.5)
  })

  it('asks for a reconnect on bts:request_reconnect and treats acks as signs of life', () => {
    assert.deepEqual(parseBitstampMessage('{"event":"bts:request_reconnect","channel":"","data":""}'), {
      kind: 'reconnect',
    })
    assert.equal(
      parseBitstampMessage('{"event":"bts:subscription_succeeded","channel":"live_trades_btcusd","data":{}}')
        .kind,
      'alive',
    )
    assert.equal(
      parseBitstampMessage('{"event":"bts:error","data":{"message":"bad channel"}}').kind,
      'rejected',
    )
  })

  it('rejects malformed trades naming the field', () => {
    assert.throws(
      () => parseBitstampMessage(JSON.stringify({ ...TRADE, data: { ...TRADE.data, price_str: 'abc' } })),
      /trade\.data\.price_str/,
    )
    assert.throws(
      () => parseBitstampMessage(JSON.stringify({ ...TRADE, data: 'x' })),
      /trade\.data: not an object/,
    )
    assert.throws(
      () => parseBitstampMessage(JSON.stringify({ ...TRADE, channel: 'live_trades_ethusd' })),
      /trade\.channel/,
    )
    assert.throws(() => parseBitstampMessage('[]'), /message: not an object/)
  })
})

describe('parseBitstampTicker', () => {
  it('reads the all-string ticker', () => {
    const body = {
      timestamp: '1772486998',
      last: '68433.00',
      bid: '68432.00',
      ask: '68433.00',
      market_type: 'SPOT',
    }
    assert.deepEqual(parseBitstampTicker(body), { mid: 68432.5, exchangeAt: 1772486998_000 })
    assert.throws(() => parseBitstampTicker({ ...body, ask: '' }), /ticker\.ask/)
  })
})

describe('parseBitstampCandles', () => {
  it('accepts string or number values in either order and sorts by timestamp', () => {
    const body = {
      data: {
        pair: 'BTC/USD',
        ohlc: [
          { timestamp: 1772486940, open: 68425, high: 68440, low: 68421.5, close: 68433.1, volume: 3.9 },
          {
            timestamp: '1772486880',
            open: '68401.9',
            high: '68431.7',
            low: '68398.2',
            close: '68425.0',
            volume: '5',
          },
        ],
      },
    }
    assert.deepEqual(parseBitstampCandles(body), [
      { minuteStart: 1772486880_000, close: 68425.0 },
      { minuteStart: 1772486940_000, close: 68433.1 },
    ])
    assert.throws(() => parseBitstampCandles({ data: { ohlc: [{ timestamp: '1' }] } }), /ohlc\[0\]\.close/)
    assert.throws(() => parseBitstampCandles({ code: 'E' }), /ohlc\.data: not an object/)
  })
})
