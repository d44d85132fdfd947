// Settings that point the real CLI at loopback fixtures of the exchanges, or at nothing at all.
import type { ExchangeFixtures } from '../fixtures/exchange-fixtures.ts'

/** The *_WS_URL and *_REST_URL settings of the three exchanges, pointed at the fixtures. */
export function exchangeEnv(x: ExchangeFixtures): Record<string, string> {
  return {
    COINBASE_WS_URL: x.coinbase.wsUrl,
    COINBASE_REST_URL: x.coinbase.restUrl,
    KRAKEN_WS_URL: x.kraken.wsUrl,
    KRAKEN_REST_URL: x.kraken.restUrl,
    BITSTAMP_WS_URL: x.bitstamp.wsUrl,
    BITSTAMP_REST_URL: x.bitstamp.restUrl,
  }
}

/** The same settings pointed at `host:port`, where nothing answers. */
export function unreachableExchangeEnv(hostPort: string): Record<string, string> {
  return {
    COINBASE_WS_URL: `ws://${hostPort}`,
    COINBASE_REST_URL: `http://${hostPort}`,
    KRAKEN_WS_URL: `ws://${hostPort}`,
    KRAKEN_REST_URL: `http://${hostPort}`,
    BITSTAMP_WS_URL: `ws://${hostPort}`,
    BITSTAMP_REST_URL: `http://${hostPort}`,
  }
}
