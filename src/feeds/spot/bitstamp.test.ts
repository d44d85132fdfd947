// Tests of the Bitstamp frame, REST ticker and OHLC parsers on the shapes of venue facts §4.3.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseBitstampCandles, parseBitstampMessage, parseBitstampTicker } from './bitstamp.ts'

// the constructed order_book_btcusd message of venue facts §4.3, with a deeper ask listed out of order
const BOOK = {
  data: {
    timestamp: '1772486998',
    microtimestamp: '1772486998812345',
    bids: [
      ['68432.00', '0.15000000'],
      ['68431.00', '0.42000000'],
    ],
    asks: [
      ['68434.00', '1.20000000'],
      ['68433.00', '0.08000000'],
    ],
  },
  channel: 'order_book_btcusd',
  event: 'data',
}

describe('parseBitstampMessage', () => {
  it('takes the mid of the best bid and the best ask of the order book, with the microsecond time', () => {
    assert.deepEqual(parseBitstampMessage(JSON.stringify(BOOK)), {
      kind: 'price',
      price: { mid: 68432.5, exchangeAt: 1772486998812.345 },
    })
  })

  it('takes a trade as a sign of life, never as a price', () => {
    const trade = { data: { price_str: '68433' }, channel: 'live_trades_btcusd', event: 'trade' }
    assert.equal(parseBitstampMessage(JSON.stringify(trade)).kind, 'alive')
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

  it('rejects malformed books naming the field', () => {
    assert.throws(
      () => parseBitstampMessage(JSON.stringify({ ...BOOK, data: { ...BOOK.data, bids: [['abc', '1']] } })),
      /book\.data\.bids\[0\]\[0\]/,
    )
    assert.throws(
      () => parseBitstampMessage(JSON.stringify({ ...BOOK, data: { ...BOOK.data, asks: [] } })),
      /book\.data\.asks: empty side/,
    )
    assert.throws(
      () => parseBitstampMessage(JSON.stringify({ ...BOOK, data: 'x' })),
      /book\.data: not an object/,
    )
    assert.throws(
      () => parseBitstampMessage(JSON.stringify({ ...BOOK, channel: 'order_book_ethusd' })),
      /book\.channel/,
    )
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
