// Tests of the Kraken v2 frame, REST ticker and OHLC parsers on the shapes of venue facts §4.2.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseKrakenCandles, parseKrakenMessage, parseKrakenTicker } from './kraken.ts'

const ENTRY = {
  symbol: 'BTC/USD',
  bid: 68433.1,
  bid_qty: 0.51,
  ask: 68433.2,
  ask_qty: 1.25,
  last: 68433.1,
  volume: 2412.73601799,
  vwap: 67989.1,
  low: 67410.0,
  high: 68631.0,
  change: 512.3,
  change_pct: 0.75,
  timestamp: '2026-03-02T21:29:58.116787Z',
}

describe('parseKrakenMessage', () => {
  it('turns snapshot and update frames into mids', () => {
    for (const type of ['snapshot', 'update']) {
      const ev = parseKrakenMessage(JSON.stringify({ channel: 'ticker', type, data: [ENTRY] }))
      assert.equal(ev.kind, 'price')
      if (ev.kind === 'price') assert.ok(Math.abs(ev.price.mid - 68433.15) < 1e-9)
    }
  })

  it('treats heartbeat, status and the subscribe ack as signs of life and reports a failed subscribe', () => {
    assert.deepEqual(parseKrakenMessage('{"channel":"heartbeat"}'), { kind: 'alive', note: 'heartbeat' })
    assert.deepEqual(
      parseKrakenMessage('{"channel":"status","type":"update","data":[{"system":"online"}]}'),
      {
        kind: 'status',
        online: true,
        note: 'online',
      },
    )
    for (const system of ['maintenance', 'cancel_only', 'post_only'])
      assert.deepEqual(
        parseKrakenMessage(`{"channel":"status","type":"update","data":[{"system":"${system}"}]}`),
        { kind: 'status', online: false, note: system },
      )
    assert.equal(
      parseKrakenMessage('{"method":"subscribe","req_id":1,"success":true,"result":{}}').kind,
      'alive',
    )
    assert.deepEqual(
      parseKrakenMessage('{"method":"subscribe","success":false,"error":"Currency pair not supported"}'),
      {
        kind: 'rejected',
        reason: 'subscribe: Currency pair not supported',
      },
    )
  })

  it('rejects malformed frames naming the field', () => {
    const frame = (entry: object) => JSON.stringify({ channel: 'ticker', type: 'update', data: [entry] })
    assert.throws(() => parseKrakenMessage(frame({ ...ENTRY, bid: '68433.1x' })), /ticker\.data\[0\]\.bid/)
    assert.throws(() => parseKrakenMessage(frame({ ...ENTRY, ask: 0 })), /ticker\.data\[0\]\.ask/)
    assert.throws(
      () => parseKrakenMessage(frame({ ...ENTRY, symbol: 'ETH/USD' })),
      /ticker\.data: no BTC\/USD/,
    )
    assert.throws(() => parseKrakenMessage('{"channel":"ticker","data":{}}'), /ticker\.data: not an array/)
    assert.throws(() => parseKrakenMessage('{"type":"update"}'), /message\.channel/)
  })
})

describe('parseKrakenTicker', () => {
  it('takes a[0] and b[0] under whatever pair key the result uses', () => {
    const pair = { a: ['68433.20000', '1', '1.000'], b: ['68433.10000', '2', '2.000'], c: ['68433.1', '0.1'] }
    for (const key of ['XXBTZUSD', 'XBTUSD']) {
      assert.ok(Math.abs(parseKrakenTicker({ error: [], result: { [key]: pair } }).mid - 68433.15) < 1e-9)
    }
    assert.throws(
      () => parseKrakenTicker({ error: ['EGeneral:Too many requests'], result: {} }),
      /Too many requests/,
    )
    assert.throws(
      () => parseKrakenTicker({ error: [], result: { XXBTZUSD: { ...pair, a: [] } } }),
      /pair\.a\[0\]/,
    )
  })
})

describe('parseKrakenCandles', () => {
  const rows = [
    [1772486880, '68401.9', '68431.7', '68398.2', '68425.0', '68410.1', '5.04', 12],
    [1772486940, '68425.0', '68440.0', '68421.5', '68433.1', '68430.2', '3.91', 9],
  ]
  it('takes time from index 0 and close from index 4, oldest first whichever order arrives', () => {
    const want = [
      { minuteStart: 1772486880_000, close: 68425.0 },
      { minuteStart: 1772486940_000, close: 68433.1 },
    ]
    assert.deepEqual(parseKrakenCandles({ error: [], result: { XXBTZUSD: rows, last: 1772486940 } }), want)
    assert.deepEqual(
      parseKrakenCandles({ error: [], result: { XXBTZUSD: [...rows].reverse(), last: 1 } }),
      want,
    )
  })

  it('rejects a row without a close', () => {
    assert.throws(
      () => parseKrakenCandles({ error: [], result: { XXBTZUSD: [[1772486880, '1', '2']], last: 1 } }),
      /ohlc\[0\]\[4\] \(close\)/,
    )
  })
})
