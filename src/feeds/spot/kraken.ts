// Kraken BTC/USD: WebSocket v2 ticker (best bid/offer trigger) and heartbeat frames, the REST ticker
// and one-minute OHLC, translated to mids and closes (venue facts §4.2, pair names included).
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
  toPrice,
} from './spot-fields.ts'

const WS_SYMBOL = 'BTC/USD'
const REST_PAIR = 'XBTUSD'

export const KRAKEN_SUBSCRIBE = JSON.stringify({
  method: 'subscribe',
  params: { channel: 'ticker', symbol: [WS_SYMBOL], event_trigger: 'bbo', snapshot: true },
  req_id: 1,
})

export function parseKrakenMessage(raw: string): WsEvent {
  const msg = asObject(parseJson(raw), 'message')
  if (typeof msg.method === 'string') {
    // request acks: {"method":"subscribe","success":true,...}, pongs
    if (msg.success === false)
      return { kind: 'rejected', reason: `${msg.method}: ${String(msg.error ?? 'failed')}` }
    return { kind: 'alive', note: msg.method }
  }
  if (typeof msg.channel !== 'string') throw new SpotParseError('message.channel', 'not a string')
  if (msg.channel === 'status') {
    // sent on connect and on every change of the trading engine's state: online, maintenance,
    // cancel_only, post_only; only `online` matches anything (venue facts §4.2)
    const data = asArray(msg.data, 'status.data')
    const entry = asObject(data.at(-1), 'status.data[-1]')
    if (typeof entry.system !== 'string') throw new SpotParseError('status.data[-1].system', 'not a string')
    return { kind: 'status', online: entry.system === 'online', note: entry.system }
  }
  if (msg.channel !== 'ticker') return { kind: 'alive', note: msg.channel } // heartbeat
  const data = asArray(msg.data, 'ticker.data')
  // one entry per subscribed symbol; the last for ours is the newest
  for (let i = data.length - 1; i >= 0; i--) {
    const entry = asObject(data[i], `ticker.data[${i}]`)
    if (entry.symbol !== WS_SYMBOL) continue
    const bid = toPrice(entry.bid, `ticker.data[${i}].bid`)
    const ask = toPrice(entry.ask, `ticker.data[${i}].ask`)
    const exchangeAt =
      entry.timestamp === undefined ? null : parseRfc3339(entry.timestamp, `ticker.data[${i}].timestamp`)
    return { kind: 'price', price: { mid: midOf(bid, ask), bid, ask, exchangeAt } }
  }
  throw new SpotParseError('ticker.data', `no ${WS_SYMBOL} entry`)
}

/** The one pair in a REST `result`: Kraken answers `XBTUSD` under `XXBTZUSD`, so take whatever key it used. */
function resultPair(body: unknown, what: string): unknown {
  const b = asObject(body, what)
  const errors = asArray(b.error ?? [], `${what}.error`)
  if (errors.length > 0) throw new SpotParseError(`${what}.error`, errors.map(String).join('; '))
  const result = asObject(b.result, `${what}.result`)
  const keys = Object.keys(result).filter((k) => k !== 'last')
  if (keys.length !== 1) throw new SpotParseError(`${what}.result`, `expected one pair, got ${keys.length}`)
  return result[keys[0] as string]
}

/** `GET /0/public/Ticker?pair=XBTUSD`: `a` and `b` are `[price, whole-lot volume, lot volume]` strings. */
export function parseKrakenTicker(body: unknown): PriceObservation {
  const pair = asObject(resultPair(body, 'ticker'), 'ticker.result.pair')
  const ask = toPrice(asArray(pair.a, 'ticker.result.pair.a')[0], 'ticker.result.pair.a[0]')
  const bid = toPrice(asArray(pair.b, 'ticker.result.pair.b')[0], 'ticker.result.pair.b[0]')
  return { mid: midOf(bid, ask), bid, ask, exchangeAt: null }
}

/**
 * `GET /0/public/OHLC?pair=XBTUSD&interval=1`: rows `[time, open, high, low, close, vwap, volume, count]`.
 * The field order and the row order are unverified (venue facts §4.2): time is taken from index 0
 * and close from index 4, either may be a number or a string, and rows are sorted by time here, so
 * oldest-first and newest-first answers both work.
 */
export function parseKrakenCandles(body: unknown): MinuteClose[] {
  return closesFromArrayRows(asArray(resultPair(body, 'ohlc'), 'ohlc.result.pair'), 'ohlc')
}

export const krakenAdapter: ExchangeAdapter = {
  name: 'kraken',
  subscribeMessages: () => [KRAKEN_SUBSCRIBE],
  // Kraken v2 sends {"channel":"heartbeat"} by itself
  keepAliveMessage: null,
  parseWsMessage: parseKrakenMessage,
  tickerUrl: (rest) => `${restBase(rest)}/0/public/Ticker?pair=${REST_PAIR}`,
  parseTicker: parseKrakenTicker,
  // without `since` Kraken returns its most recent 720 candles: more than the warm-up needs
  candlesUrl: (rest) => `${restBase(rest)}/0/public/OHLC?pair=${REST_PAIR}&interval=1`,
  parseCandles: parseKrakenCandles,
}
