// Every setting the program reads, with its default: the one table `loadConfig` reads (a name not in
// it is a programming error) and `src/config/settings.test.ts` holds the README's configuration
// tables to, name for name and default for default. A new setting is one row here, one line in
// loadConfig that checks it, and one row in the README.

export type Setting = {
  /** the value used when the variable is unset; null: none (unset, random or derived, see `readme`) */
  value: string | null
  /** the README's default column when it is not `value` in backticks (`unset`, `random`, prose) */
  readme?: string
  /**
   * An empty value means unset. Only for settings whose default is "unset" or random, as container
   * and unit files often write them; elsewhere an empty value is surely a mistake (`SERIES=`
   * publishing the default series) and stops the program naming the variable (decisions §2).
   */
  emptyMeansUnset?: true
}

const unset = { value: null, readme: 'unset', emptyMeansUnset: true } as const

export const SETTINGS = {
  PORT: { value: '8080' },
  HOST: { value: '127.0.0.1' },
  DATABASE_URL: { value: 'sqlite:./data/contest-signals.db' },
  REDIS_URL: unset,
  REDIS_PREFIX: { value: 'cs:' },
  PUBLIC_BASE_URL: { value: null, readme: '`http://HOST:PORT`' },
  SERIES: { value: 'KXBTC15M' },
  VENUE: { value: 'sim' },
  SIM_SPEED: { value: '1' },
  SIM_SEED: { value: null, readme: 'random', emptyMeansUnset: true },
  SIM_PARAMS: { value: null, readme: 'the `ewma` crowd', emptyMeansUnset: true },
  SIM_BACKFILL_DAYS: { value: '7' },
  SIM_START: { value: null, readme: 'now', emptyMeansUnset: true },
  // the pricing model (decisions §3): v2 by name; its version carries the parameter file's digest
  MODEL: { value: 'settle-mean-t-2' },
  READING_MAX_LATE_S: { value: '10' },
  TRUST_PROXY: { value: null, readme: 'empty', emptyMeansUnset: true },
  CORS_ORIGINS: { value: '*' },
  TLS_CERT_FILE: unset,
  TLS_KEY_FILE: unset,
  RATE_LIMIT_BURST: { value: '20' },
  RATE_LIMIT_PER_SEC: { value: '1' },
  STREAM_HEARTBEAT_S: { value: '15' },
  EVENT_RETENTION_HOURS: { value: '48' },
  LOG_LEVEL: { value: 'info' },
  FAST_PATH: { value: 'on' },
  BOOTSTRAP_KEY: { value: 'on' },
  METRICS_PORT: unset,
  BOOTSTRAP_KEY_FILE: {
    value: null,
    readme: '`bootstrap-key.txt` beside the SQLite file (`./data/` with PostgreSQL)',
  },
  STREAM_MAX_PER_ADDRESS: { value: '50' },
  REDIS_COMMAND_TIMEOUT_MS: { value: '50' },
  PG_STATEMENT_TIMEOUT_MS: { value: '5000' },
  PG_CONNECT_TIMEOUT_MS: { value: '2000' },
  HTTP_HEADERS_TIMEOUT_S: { value: '10' },
  HTTP_REQUEST_TIMEOUT_S: { value: '10' },
  HTTP_IDLE_TIMEOUT_S: { value: '15' },
  HTTP_KEEP_ALIVE_TIMEOUT_S: { value: '75' },
  // VENUE=kalshi (decisions §8): the venue's production REST base; the demo environment works alike
  KALSHI_BASE_URL: { value: 'https://external-api.kalshi.com/trade-api/v2' },
  KALSHI_POLL_S: { value: '5' },
  KALSHI_KEY_ID: unset,
  KALSHI_PRIVATE_KEY_FILE: unset,
  // VENUE=polymarket (decisions §14): Gamma for discovery and results, the CLOB for books; no key
  POLYMARKET_GAMMA_URL: { value: 'https://gamma-api.polymarket.com' },
  POLYMARKET_CLOB_URL: { value: 'https://clob.polymarket.com' },
  POLYMARKET_POLL_S: { value: '5' },
  PRICE_FEEDS: { value: 'coinbase,kraken,bitstamp' },
  // each exchange's public hosts (docs/design-decisions.md §8), overridable for fixtures and proxies
  COINBASE_WS_URL: { value: 'wss://ws-feed.exchange.coinbase.com' },
  COINBASE_REST_URL: { value: 'https://api.exchange.coinbase.com' },
  KRAKEN_WS_URL: { value: 'wss://ws.kraken.com/v2' },
  KRAKEN_REST_URL: { value: 'https://api.kraken.com' },
  BITSTAMP_WS_URL: { value: 'wss://ws.bitstamp.net' },
  BITSTAMP_REST_URL: { value: 'https://www.bitstamp.net' },
  SPOT_MAX_AGE_S: { value: '10' },
  // tapes (decisions §12): what a real venue's engine saw, one file per UTC day
  RECORD_DIR: unset,
  // a quarter: enough recorded contests to fit the model on one period and judge it on a later one
  RECORD_KEEP_DAYS: { value: '92' },
} as const satisfies Record<string, Setting>

export type SettingName = keyof typeof SETTINGS

/** Settings that have a value when unset. */
export type DefaultedSettingName = {
  [K in SettingName]: (typeof SETTINGS)[K]['value'] extends string ? K : never
}[SettingName]

export function isSettingName(name: string): name is SettingName {
  return Object.hasOwn(SETTINGS, name)
}
