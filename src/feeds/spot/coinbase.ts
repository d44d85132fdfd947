// Coinbase Exchange BTC-USD: WebSocket ticker and heartbeat frames, the REST ticker and one-minute
// candles, translated to mids and closes (venue facts §4.1).
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
  closesFromArrayRows,
  midOf,
  parseJson,
  parseRfc3339,
  SpotParseError,
  stringField,
  toPrice,
} from './spot-fields.ts'

const PRODUCT = 'BTC-USD'

export const COINBASE_SUBSCRIBE = JSON.stringify({
  type: 'subscribe',
  product_ids: [PRODUCT],
  channels: ['heartbeat', 'ticker'],
})

export function parseCoinbaseMessage(raw: string): WsEvent {
  const msg = asObject(parseJson(raw), 'message')
  const type = stringField(msg, 'type', 'message')
  switch (type) {
    case 'ticker': {
      const product = stringField(msg, 'product_id', 'ticker')
      if (product !== PRODUCT) throw new SpotParseError('ticker.product_id', `unexpected product ${product}`)
      const bid = toPrice(msg.best_bid, 'ticker.best_bid')
      const ask = toPrice(msg.best_ask, 'ticker.best_ask')
      return {
        kind: 'price',
        price: { mid: midOf(bid, ask), bid, ask, exchangeAt: parseRfc3339(msg.time, 'ticker.time') },
      }
    }
    case 'heartbeat':
      return { kind: 'alive', note: 'heartbeat' }
    case 'subscriptions':
      return { kind: 'alive', note: 'subscribed' }
    case 'error': {
      const reason = typeof msg.reason === 'string' ? `: ${msg.reason}` : ''
      return { kind: 'rejected', reason: `${String(msg.message ?? 'error')}${reason}` }
    }
    default:
      // other public channels' frames (status, ...) still prove the socket is alive
      return { kind: 'alive', note: type }
  }
}

/** `GET /products/BTC-USD/ticker`: bid and ask are strings. */
export function parseCoinbaseTicker(body: unknown): PriceObservation {
  const t = asObject(body, 'ticker')
  const bid = toPrice(t.bid, 'ticker.bid')
  const ask = toPrice(t.ask, 'ticker.ask')
  return {
    mid: midOf(bid, ask),
    bid,
    ask,
    exchangeAt: t.time === undefined ? null : parseRfc3339(t.time, 'ticker.time'),
  }
}

/** Candles are `[time, low, high, open, close, volume]` numbers, newest first; time = bucket start (s). */
export function parseCoinbaseCandles(body: unknown): MinuteClose[] {
  return closesFromArrayRows(asArray(body, 'candles'), 'candles')
}

export const coinbaseAdapter: ExchangeAdapter = {
  name: 'coinbase',
  subscribeMessages: () => [COINBASE_SUBSCRIBE],
  // Coinbase sends its own heartbeat once a second
  keepAliveMessage: null,
  parseWsMessage: parseCoinbaseMessage,
  tickerUrl: (rest) => `${restBase(rest)}/products/${PRODUCT}/ticker`,
  parseTicker: parseCoinbaseTicker,
  candlesUrl: (rest, now, minutes) => {
    // at most 300 candles per request: the warm-up asks for far fewer
    const start = new Date(now - minutes * 60_000).toISOString()
    const end = new Date(now).toISOString()
    return `${restBase(rest)}/products/${PRODUCT}/candles?granularity=60&start=${start}&end=${end}`
  },
  parseCandles: parseCoinbaseCandles,
}
