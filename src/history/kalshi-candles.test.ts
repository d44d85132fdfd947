// Reading Kalshi's one-minute candles for the quote at each candle's end, in every documented form
// (history endpoints §1.6.2): live `close_dollars`, historical `close` dollar strings, old integer cents.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { candleQuotes } from './kalshi-candles.ts'

const T = 1_781_114_460 // a candle end, Unix s
const FROM = T * 1000
const TO = FROM + 14 * 60_000
const NOW = FROM + 86_400_000

describe('candleQuotes', () => {
  it('reads the live names, the historical names and integer cents alike', () => {
    const quotes = candleQuotes(
      [
        { end_period_ts: T, yes_bid: { close_dollars: '0.4800' }, yes_ask: { close_dollars: '0.4900' } },
        { end_period_ts: T + 60, yes_bid: { close: '0.5200' }, yes_ask: { close: '0.5300' } },
        { end_period_ts: T + 120, yes_bid: { close: 56 }, yes_ask: { close: 58 } },
      ],
      FROM,
      TO,
      NOW,
    )
    assert.deepEqual(quotes, [
      { endMs: FROM, yesBid: 0.48, yesAsk: 0.49 },
      { endMs: FROM + 60_000, yesBid: 0.52, yesAsk: 0.53 },
      { endMs: FROM + 120_000, yesBid: 0.56, yesAsk: 0.58 },
    ])
  })

  it('takes a 0 bid and a 1 ask as no order on that side, and a candle with no quote at all as a gap', () => {
    const quotes = candleQuotes(
      [
        { end_period_ts: T, yes_bid: { close: '0.0000' }, yes_ask: { close: '0.6000' } },
        { end_period_ts: T + 60, yes_bid: { close_dollars: '0.9900' }, yes_ask: { close_dollars: '1.0000' } },
        { end_period_ts: T + 120, yes_bid: null, yes_ask: null, price: null },
      ],
      FROM,
      TO,
      NOW,
    )
    assert.deepEqual(quotes, [
      { endMs: FROM, yesBid: null, yesAsk: 0.6 },
      { endMs: FROM + 60_000, yesBid: 0.99, yesAsk: null },
    ])
  })

  it('leaves out candles outside the window and one still forming, and sorts by end', () => {
    const c = (end: number) => ({ end_period_ts: end, yes_bid: { close: '0.5' }, yes_ask: { close: '0.6' } })
    const quotes = candleQuotes(
      [c(T + 60), c(T - 60), c(T), c(T + 15 * 60), c(T + 120)],
      FROM,
      TO,
      FROM + 90_000,
    )
    assert.deepEqual(
      quotes.map((q) => q.endMs),
      [FROM, FROM + 60_000],
    )
  })

  it('names the field of a malformed candle', () => {
    assert.throws(() => candleQuotes({}, FROM, TO, NOW), /"candlesticks" is not a list/)
    assert.throws(
      () => candleQuotes([{ end_period_ts: '1' }], FROM, TO, NOW),
      /candlesticks\[0\]\.end_period_ts/,
    )
    assert.throws(
      () => candleQuotes([{ end_period_ts: T, yes_bid: { close: 'half' } }], FROM, TO, NOW),
      /candlesticks\[0\]\.yes_bid\.close is not a price/,
    )
  })
})
