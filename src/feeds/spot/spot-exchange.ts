// The shapes every exchange adapter shares: what a socket frame or a REST answer turns into, and the
// adapter interface the generic source runner plugs an exchange into.

export const SPOT_EXCHANGES = ['coinbase', 'kraken', 'bitstamp'] as const
export type SpotExchange = (typeof SPOT_EXCHANGES)[number]

export type SpotEndpoints = { ws: string; rest: string }

/**
 * One mid price as an exchange reported it; `exchangeAt` is the exchange's own time (ms) when given.
 * `bid` and `ask` are kept where the mid was made from them, so a recording keeps what was received.
 */
export type PriceObservation = { mid: number; exchangeAt: number | null; bid?: number; ask?: number }

/** The close of one one-minute bucket; `minuteStart` is the bucket start in epoch ms. */
export type MinuteClose = { minuteStart: number; close: number }

/** What one WebSocket frame means to the runner. Malformed frames throw a SpotParseError instead. */
export type WsEvent =
  | { kind: 'price'; price: PriceObservation }
  /** heartbeats, subscription acks, status: proof the exchange is talking, no price */
  | { kind: 'alive'; note: string }
  /**
   * the exchange's trading-engine state (Kraken's `status` channel): while not `online` nothing
   * trades and its book can go stale, so its quotes are left out (venue facts §4.2)
   */
  | { kind: 'status'; online: boolean; note: string }
  /** the exchange asks the client to reconnect now (Bitstamp's bts:request_reconnect) */
  | { kind: 'reconnect' }
  /** the exchange reported an error (a failed subscription, say) */
  | { kind: 'rejected'; reason: string }

export interface ExchangeAdapter {
  readonly name: SpotExchange
  /** frames sent right after the socket opens */
  subscribeMessages(): readonly string[]
  /** sent periodically where the exchange sends no heartbeat of its own unless asked; else null */
  readonly keepAliveMessage: string | null
  parseWsMessage(raw: string): WsEvent
  tickerUrl(rest: string): string
  parseTicker(body: unknown): PriceObservation
  /** one-minute candles covering at least the `minutes` before `now` */
  candlesUrl(rest: string, now: number, minutes: number): string
  /** closes oldest first, whatever order the exchange sent them in */
  parseCandles(body: unknown): MinuteClose[]
}

/** A REST base without its trailing slashes, so paths can be appended with one. */
export function restBase(rest: string): string {
  return rest.replace(/\/+$/, '')
}
