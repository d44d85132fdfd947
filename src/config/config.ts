// The only module that reads process.env: every setting of decisions §2 parsed by its row of the
// table (settings.ts), then the rules across settings and the defaults derived from others, every
// problem reported at once, the result frozen.

import { isIPv4, isIPv6 } from 'node:net'
import { dirname, join } from 'node:path'
import { type VenueName, venueOfSeries } from '../domain/venues.ts'
import type { WeeklyWindow } from '../domain/weekly-window.ts'
import type { SimParams } from '../feeds/sim/sim-params.ts'
import { type Env, readSettings } from './read-settings.ts'
import { httpUrl } from './setting-parsers.ts'
import type { SettingName, SpotSourceName } from './settings.ts'

export type Config = Readonly<{
  port: number
  host: string
  databaseUrl: string
  redisUrl: string | null
  publicBaseUrl: string
  /**
   * true when PUBLIC_BASE_URL was not set: publicBaseUrl is `http(s)://HOST:PORT`, made here
   * (`localhost` for a wildcard HOST)
   */
  publicBaseUrlDefaulted: boolean
  series: readonly string[]
  /**
   * VENUE: the venues followed, in the order given (decisions §14): `['sim']`, or one or more real
   * venues; each series belongs to exactly one of them (`venueOfConfiguredSeries`)
   */
  venues: readonly VenueName[]
  /** VENUE=kalshi: REST base, poll period, optional signing key (decisions §8) */
  kalshiBaseUrl: string
  kalshiPollS: number
  kalshiKeyId: string | null
  kalshiPrivateKeyFile: string | null
  /** VENUE=polymarket: Gamma and CLOB bases, poll period (decisions §14) */
  polymarketGammaUrl: string
  polymarketClobUrl: string
  polymarketPollS: number
  /** the CLOB's weekly restart, when readings pause (null: off) */
  polymarketWeeklyRestart: WeeklyWindow | null
  /** spot sources whose fresh mids make the model's median, in the order given */
  priceFeeds: readonly SpotSourceName[]
  feedUrls: Readonly<Record<SpotSourceName, Readonly<{ ws: string; rest: string }>>>
  spotMaxAgeS: number
  /** with a real venue: record what the engine sees as one tape per UTC day here (decisions §12); null = off */
  recordDir: string | null
  /** day tapes older than this many days are removed */
  recordKeepDays: number
  /** the pricing model by name (MODEL): v2 by default, gbm-ewma-1 for comparison */
  model: string
  /** a reading whose inputs cannot be had this long after its minute's boundary is skipped (decisions §11) */
  readingMaxLateS: number
  simSpeed: number
  /** SIM_SEED; null when unset: a store's timeline then keeps its own (src/main/sim-timeline.ts) */
  simSeed: number | null
  /** the sandbox's parameters (SIM_PARAMS: a crowd preset, name=value pairs or JSON); null when unset */
  simParams: SimParams | null
  simBackfillDays: number
  /** where a new sandbox timeline begins (Unix ms); null: the wall clock's now */
  simStart: number | null
  trustProxy: readonly string[]
  corsOrigins: readonly string[] | '*'
  tlsCertFile: string | null
  tlsKeyFile: string | null
  rateLimitBurst: number
  rateLimitPerSec: number
  streamHeartbeatS: number
  eventRetentionHours: number
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  bootstrapKey: boolean
  /** answer the hot GETs before the framework (src/http/fast-path.ts); off only for debugging */
  fastPath: boolean
  metricsPort: number | null
  /** prefix for every Redis key, so deployments (and test runs) sharing a server never collide */
  redisPrefix: string
  /** bound on each Redis step before the rate limiter's circuit opens */
  redisCommandTimeoutMs: number
  /** PostgreSQL: server-side bound on any statement, and the pool's bound on opening a connection */
  pgStatementTimeoutMs: number
  pgConnectTimeoutMs: number
  /** connection limits of the HTTP server (docs/scaling.md, "Connection limits") */
  httpHeadersTimeoutS: number
  httpRequestTimeoutS: number
  httpIdleTimeoutS: number
  httpKeepAliveTimeoutS: number
  /** open streams allowed per client address (per replica) */
  streamMaxPerAddress: number
  /** where `serve` writes the bootstrap key (mode 0600); the log names the path, never the key */
  bootstrapKeyFile: string
}>

export class ConfigError extends Error {
  readonly problems: readonly string[]
  constructor(problems: string[]) {
    super(problems.join('; '))
    this.name = 'ConfigError'
    this.problems = problems
  }
}

/** HOST 0.0.0.0 or :: (any spelling): every address of the machine, none a client can name. */
export function listensEverywhere(host: string): boolean {
  if (isIPv4(host)) return host === '0.0.0.0'
  return isIPv6(host) && new URL(`http://[${host}]`).hostname === '[::]'
}

export function loadConfig(env: Env = process.env): Config {
  const { values: v, refused, problems } = readSettings(env)
  /** A rule across settings judges only values their own rows accepted (one mistake, one problem). */
  const accepted = (...names: SettingName[]): boolean => names.every((name) => !refused.has(name))

  if ((v.TLS_CERT_FILE === null) !== (v.TLS_KEY_FILE === null))
    problems.push('TLS_CERT_FILE and TLS_KEY_FILE must be set together')
  const scheme = v.TLS_CERT_FILE !== null && v.TLS_KEY_FILE !== null ? 'https' : 'http'
  // a wildcard listen address is no address a client can fetch: the type URIs name this machine
  const urlHost = listensEverywhere(v.HOST) ? 'localhost' : v.HOST.includes(':') ? `[${v.HOST}]` : v.HOST
  let publicBaseUrl = v.PUBLIC_BASE_URL ?? `${scheme}://${urlHost}:${v.PORT}`
  // A host name can pass HOST yet make no URL (`1a.2`: a last label of digits reads as IPv4).
  if (v.PUBLIC_BASE_URL === null && accepted('HOST', 'PUBLIC_BASE_URL')) {
    const derived = httpUrl.parse(publicBaseUrl, 'PUBLIC_BASE_URL')
    if (derived.ok) publicBaseUrl = derived.value
    else problems.push(...derived.problems)
  }

  if (accepted('VENUE', 'SERIES')) problems.push(...seriesVenueProblems(v.VENUE, v.SERIES))
  if ((v.KALSHI_KEY_ID === null) !== (v.KALSHI_PRIVATE_KEY_FILE === null))
    problems.push('KALSHI_KEY_ID and KALSHI_PRIVATE_KEY_FILE must be set together')
  if (v.RECORD_DIR !== null && accepted('VENUE') && v.VENUE.includes('sim'))
    problems.push(
      'RECORD_DIR records a real venue (VENUE=kalshi or polymarket); the simulator writes its tapes with `contest-signals sim tape`',
    )
  // a tape is one venue's (decisions §12: its header names one venue)
  if (v.RECORD_DIR !== null && accepted('VENUE') && v.VENUE.length > 1)
    problems.push(
      `RECORD_DIR records one venue's tape; VENUE=${v.VENUE.join(',')} follows ${v.VENUE.length}: run one recording process per venue`,
    )
  // Node refuses a headers timeout above the request timeout (the headers are part of the request).
  if (
    accepted('HTTP_HEADERS_TIMEOUT_S', 'HTTP_REQUEST_TIMEOUT_S') &&
    v.HTTP_HEADERS_TIMEOUT_S > v.HTTP_REQUEST_TIMEOUT_S
  )
    problems.push('HTTP_HEADERS_TIMEOUT_S must not be greater than HTTP_REQUEST_TIMEOUT_S')

  if (problems.length > 0) throw new ConfigError(problems)

  // Beside the SQLite file by default (a directory the operator already owns); ./data/ otherwise.
  const sqliteDir = v.DATABASE_URL.startsWith('sqlite:')
    ? dirname(v.DATABASE_URL.slice('sqlite:'.length))
    : './data'
  const feedUrls: Config['feedUrls'] = Object.freeze({
    coinbase: Object.freeze({ ws: v.COINBASE_WS_URL, rest: v.COINBASE_REST_URL }),
    kraken: Object.freeze({ ws: v.KRAKEN_WS_URL, rest: v.KRAKEN_REST_URL }),
    bitstamp: Object.freeze({ ws: v.BITSTAMP_WS_URL, rest: v.BITSTAMP_REST_URL }),
  })
  return Object.freeze({
    port: v.PORT,
    host: v.HOST,
    databaseUrl: v.DATABASE_URL,
    redisUrl: v.REDIS_URL,
    publicBaseUrl,
    publicBaseUrlDefaulted: v.PUBLIC_BASE_URL === null,
    series: Object.freeze(v.SERIES),
    venues: Object.freeze(v.VENUE),
    kalshiBaseUrl: v.KALSHI_BASE_URL,
    kalshiPollS: v.KALSHI_POLL_S,
    kalshiKeyId: v.KALSHI_KEY_ID,
    kalshiPrivateKeyFile: v.KALSHI_PRIVATE_KEY_FILE,
    polymarketGammaUrl: v.POLYMARKET_GAMMA_URL,
    polymarketClobUrl: v.POLYMARKET_CLOB_URL,
    polymarketPollS: v.POLYMARKET_POLL_S,
    polymarketWeeklyRestart: v.POLYMARKET_WEEKLY_RESTART,
    priceFeeds: Object.freeze(v.PRICE_FEEDS),
    feedUrls,
    spotMaxAgeS: v.SPOT_MAX_AGE_S,
    recordDir: v.RECORD_DIR,
    recordKeepDays: v.RECORD_KEEP_DAYS,
    model: v.MODEL,
    readingMaxLateS: v.READING_MAX_LATE_S,
    simSpeed: v.SIM_SPEED,
    simSeed: v.SIM_SEED,
    simParams: v.SIM_PARAMS,
    simBackfillDays: v.SIM_BACKFILL_DAYS,
    simStart: v.SIM_START,
    trustProxy: Object.freeze(v.TRUST_PROXY),
    corsOrigins: v.CORS_ORIGINS === '*' ? '*' : Object.freeze(v.CORS_ORIGINS),
    tlsCertFile: v.TLS_CERT_FILE,
    tlsKeyFile: v.TLS_KEY_FILE,
    rateLimitBurst: v.RATE_LIMIT_BURST,
    rateLimitPerSec: v.RATE_LIMIT_PER_SEC,
    streamHeartbeatS: v.STREAM_HEARTBEAT_S,
    eventRetentionHours: v.EVENT_RETENTION_HOURS,
    logLevel: v.LOG_LEVEL,
    bootstrapKey: v.BOOTSTRAP_KEY,
    fastPath: v.FAST_PATH,
    metricsPort: v.METRICS_PORT,
    redisPrefix: v.REDIS_PREFIX,
    redisCommandTimeoutMs: v.REDIS_COMMAND_TIMEOUT_MS,
    pgStatementTimeoutMs: v.PG_STATEMENT_TIMEOUT_MS,
    pgConnectTimeoutMs: v.PG_CONNECT_TIMEOUT_MS,
    httpHeadersTimeoutS: v.HTTP_HEADERS_TIMEOUT_S,
    httpRequestTimeoutS: v.HTTP_REQUEST_TIMEOUT_S,
    httpIdleTimeoutS: v.HTTP_IDLE_TIMEOUT_S,
    httpKeepAliveTimeoutS: v.HTTP_KEEP_ALIVE_TIMEOUT_S,
    streamMaxPerAddress: v.STREAM_MAX_PER_ADDRESS,
    bootstrapKeyFile: v.BOOTSTRAP_KEY_FILE ?? join(sqliteDir, 'bootstrap-key.txt'),
  })
}

/**
 * decisions §14, with real venues (VENUE's row has checked the names and kept the simulator alone):
 * every series on exactly one configured venue, and every configured venue with a series.
 */
function seriesVenueProblems(venues: readonly VenueName[], series: readonly string[]): string[] {
  if (venues.includes('sim')) return []
  const given = `VENUE=${JSON.stringify(venues.join(','))}`
  const problems: string[] = []
  for (const s of series) {
    const venue = venueOfSeries(s)
    if (venue === null)
      problems.push(
        `SERIES ${JSON.stringify(s)} belongs to no known venue (KX… is Kalshi, btc-updown-… Polymarket)`,
      )
    else if (!venues.includes(venue))
      problems.push(`SERIES ${JSON.stringify(s)} is a ${venue} series, and ${given} leaves ${venue} out`)
  }
  for (const v of venues)
    if (!series.some((s) => venueOfSeries(s) === v))
      problems.push(`${given} includes ${v}, but SERIES names none of its series`)
  return problems
}

/**
 * What `serve` and `engine` refuse of the simulator's series: the live simulator presents Kalshi's
 * market, so a series whose prefix names Polymarket would be served as `venue: "kalshi"` with Kalshi
 * references, and a bot routing on `venue` would go to the wrong exchange (decisions §14, §16).
 * Polymarket's sandbox is a tape (`sim tape --venue polymarket`, then `replay`). Not a loadConfig
 * rule: `sim tape` reads the same SERIES and writes Polymarket's shapes for it.
 */
export function simulatorServeProblems(config: Pick<Config, 'venues' | 'series'>): string[] {
  if (!config.venues.includes('sim')) return []
  return config.series
    .filter((s) => venueOfSeries(s) === 'polymarket')
    .map(
      (s) =>
        `SERIES ${JSON.stringify(s)} is a polymarket series, and the simulator (VENUE=sim) serves Kalshi's market only: give it a KX… series, or run Polymarket's sandbox as a tape (sim tape --venue polymarket, then replay)`,
    )
}

/** The configured venue that follows `series` (validated by loadConfig: there is exactly one). */
export function venueOfConfiguredSeries(config: Pick<Config, 'venues'>, series: string): VenueName {
  if (config.venues.includes('sim')) return 'sim'
  const venue = venueOfSeries(series)
  if (venue === null || !config.venues.includes(venue))
    throw new Error(`no configured venue follows ${series}`)
  return venue
}

/** The configured series that `venue` follows, in SERIES order. */
export function seriesOfVenue(config: Pick<Config, 'venues' | 'series'>, venue: VenueName): string[] {
  return config.series.filter((s) => venueOfConfiguredSeries(config, s) === venue)
}

/** True when the built-in simulator is the venue (it then runs alone, decisions §14). */
export function usesSimulator(config: Pick<Config, 'venues'>): boolean {
  return config.venues.includes('sim')
}
