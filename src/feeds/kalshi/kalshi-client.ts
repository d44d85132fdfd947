// Kalshi's REST client: the venues' shared JSON client (venue-http/json-client.ts) with Kalshi's call
// names and pacing default. It knows nothing of markets; callers interpret the JSON.
import {
  createJsonClient,
  describeFailure,
  JSON_CLIENT_DEFAULTS,
  type JsonCallOptions,
  type JsonClient,
  type JsonClientOptions,
  type JsonReply,
  VENUE_USER_AGENT,
} from '../venue-http/json-client.ts'

/** Telemetry labels, one per kind of call. */
export type KalshiEndpoint =
  | 'markets'
  | 'market'
  | 'orderbook'
  | 'series'
  | 'exchange_status'
  | 'exchange_schedule'
  | 'index_values'

export const KALSHI_USER_AGENT = VENUE_USER_AGENT

export type KalshiReply = JsonReply
export type KalshiCallOptions = JsonCallOptions
export type KalshiClient = JsonClient<KalshiEndpoint>
export type KalshiClientOptions = Omit<JsonClientOptions, 'venue'>

/**
 * Requests per second default to 5 across the whole adapter: unauthenticated limits are undocumented
 * and an authenticated Basic key gets about 20 reads/s (venue facts §1.10), so the advice is to stay
 * well under 10/s; 5/s leaves room for a second process on the same address.
 */
export const KALSHI_DEFAULTS = JSON_CLIENT_DEFAULTS

export { describeFailure }

export function createKalshiClient(opts: KalshiClientOptions): KalshiClient {
  return createJsonClient<KalshiEndpoint>({ ...opts, venue: 'kalshi' })
}
