// Bitstamp BTC/USD: the WebSocket order-book channel (a true mid: best bid and ask), the REST ticker
// and one-minute OHLC, translated to mids and closes (venue facts §4.3).
import {
  type ExchangeAdapter,
  type MinuteClose,
  type PriceObservation,
  restBase,
  type WsEvent,
} from './spot-exchange.ts'
import {
  asArray,
  asObject,
  midOf,
  parseJson,
  SpotParseError,
  sortedCloses,
  stringField,
  toNumber,
  toPrice,
  unixSecondsToMs,
} from './spot-fields.ts'

const CHANNEL = 'order_book_btcusd'

export const BITSTAMP_SUBSCRIBE = JSON.stringify({ event: 'bts:subscribe', data: { channel: CHANNEL } })
/** Bitstamp sends no heartbeat unprompted; it answers this one, which keeps a quiet socket provably alive. */
export const BITSTAMP_HEARTBEAT = JSON.stringify({ event: 'bts:heartbeat' })

/** The best level of one side: levels are `[price, amount]` strings, best first, but the extreme is taken anyway. */
function bestLevel(levels: unknown, field: string, pick: (a: number, b: number) => number): number {
  const rows = asArray(levels, field)
  if (rows.length === 0) throw new SpotParseError(field, 'empty side')
  return rows
    .map((row, i) => toPrice(asArray(row, `${field}[${i}]`)[0], `${field}[${i}][0]`))
    .reduce((a, b) => pick(a, b))
}

/**
 * Order-book frames (`event: "data"` on `order_book_btcusd`): a full top-100 snapshot each push, so
 * the mid is the mean of the highest bid and the lowest ask. Trades would bounce between the two.
 */
export function parseBitstampMessage(raw: string): WsEvent {
  const msg = asObject(parseJson(raw), 'message')
  const event = stringField(msg, 'event', 'message')
  switch (event) {
    case 'data': {
      if (msg.channel !== CHANNEL)
        throw new SpotParseError('book.channel', `unexpected channel ${String(msg.channel)}`)
      const data = asObject(msg.data, 'book.data')
      const bid = bestLevel(data.bids, 'book.data.bids', Math.max)
      const ask = bestLevel(data.asks, 'book.data.asks', Math.min)
      const exchangeAt =
        data.microtimestamp !== undefined
          ? toNumber(data.microtimestamp, 'book.data.microtimestamp') / 1000
          : data.timestamp !== undefined
            ? unixSecondsToMs(data.timestamp, 'book.data.timestamp')
            : null
      return { kind: 'price', price: { mid: midOf(bid, ask), exchangeAt } }
    }
    case 'bts:request_reconnect':
      return { kind: 'reconnect' }
    case 'bts:error': {
      const data =
        typeof msg.data === 'object' && msg.data !== null ? (msg.data as Record<string, unknown>) : {}
      return { kind: 'rejected', reason: String(data.message ?? 'bts:error') }
    }
    default:
      // bts:subscription_succeeded, bts:heartbeat replies and other events
      return { kind: 'alive', note: event }
  }
}

/** `GET /api/v2/ticker/btcusd/`: every value a string, timestamp in Unix seconds. */
export function parseBitstampTicker(body: unknown): PriceObservation {
  const t = asObject(body, 'ticker')
  const bid = toPrice(t.bid, 'ticker.bid')
  const ask = toPrice(t.ask, 'ticker.ask')
  const exchangeAt = t.timestamp === undefined ? null : unixSecondsToMs(t.timestamp, 'ticker.timestamp')
  return { mid: midOf(bid, ask), exchangeAt }
}

/**
 * `GET /api/v2/ohlc/btcusd/?step=60&limit=N`: `{"data":{"ohlc":[{timestamp, close, ...}]}}`. The shape is
 * reported, not documented [R][U]: values may be strings or numbers, and rows are sorted by timestamp
 * here rather than trusting the exchange's order.
 */
export function parseBitstampCandles(body: unknown): MinuteClose[] {
  const data = asObject(asObject(body, 'ohlc').data, 'ohlc.data')
  const rows = asArray(data.ohlc, 'ohlc.data.ohlc')
  return sortedCloses(
    rows.map((row, i) => {
      const r = asObject(row, `ohlc.data.ohlc[${i}]`)
      return {
        minuteStart: unixSecondsToMs(r.timestamp, `ohlc.data.ohlc[${i}].timestamp`),
        close: toPrice(r.close, `ohlc.data.ohlc[${i}].close`),
      }
    }),
  )
}

export const bitstampAdapter: ExchangeAdapter = {
  name: 'bitstamp',
  subscribeMessages: () => [BITSTAMP_SUBSCRIBE],
  keepAliveMessage: BITSTAMP_HEARTBEAT,
  parseWsMessage: parseBitstampMessage,
  // the trailing slash is part of Bitstamp's paths
  tickerUrl: (rest) => `${restBase(rest)}/api/v2/ticker/btcusd/`,
  parseTicker: parseBitstampTicker,
  // the unfinished current minute left out at the source too (the adapter drops it anyway)
  candlesUrl: (rest, _now, minutes) =>
    `${restBase(rest)}/api/v2/ohlc/btcusd/?step=60&limit=${minutes}&exclude_current_candle=true`,
  parseCandles: parseBitstampCandles,
}
