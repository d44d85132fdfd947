// The only module that reads process.env: every setting of decisions §2, parsed once, every error
// reported at once, the result frozen. Names and defaults come from the one table, settings.ts.
import { randomInt } from 'node:crypto'
import { dirname, join } from 'node:path'
import { parseDateTime } from '../domain/instant.ts'
import { isVenueName, VENUES, type VenueName, venueOfSeries } from '../domain/venues.ts'
import { SIM_PARAMS, type SimParams } from '../feeds/sim/sim-params.ts'
import { parseSimParams } from '../feeds/sim/sim-params-text.ts'
import { isModelName, MODEL_NAMES } from '../model/models.ts'
import { type DefaultedSettingName, isSettingName, SETTINGS, type SettingName } from './settings.ts'

export type Config = Readonly<{
  port: number
  host: string
  databaseUrl: string
  redisUrl: string | null
  publicBaseUrl: string
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
  simSeed: number
  /** the sandbox's parameters (SIM_PARAMS: a crowd preset, name=value pairs or JSON) */
  simParams: SimParams
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
  /** connection limits of the HTTP server (README, "Connection limits") */
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

type Env = Readonly<Record<string, string | undefined>>

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

export { VENUES, type VenueName } from '../domain/venues.ts'

export const SPOT_SOURCES = ['coinbase', 'kraken', 'bitstamp'] as const
export type SpotSourceName = (typeof SPOT_SOURCES)[number]

/** decisions §8: the venue's production REST base; the demo environment's host works the same way */
export const DEFAULT_KALSHI_BASE_URL = SETTINGS.KALSHI_BASE_URL.value

/** decisions §8: each exchange's public hosts, overridable for fixtures and proxies */
export const DEFAULT_FEED_URLS: Readonly<Record<SpotSourceName, Readonly<{ ws: string; rest: string }>>> = {
  coinbase: { ws: SETTINGS.COINBASE_WS_URL.value, rest: SETTINGS.COINBASE_REST_URL.value },
  kraken: { ws: SETTINGS.KRAKEN_WS_URL.value, rest: SETTINGS.KRAKEN_REST_URL.value },
  bitstamp: { ws: SETTINGS.BITSTAMP_WS_URL.value, rest: SETTINGS.BITSTAMP_REST_URL.value },
}
const SERIES_PATTERN = /^[A-Za-z0-9._-]{1,64}$/

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = []
  /** The variable as given (trimmed), or undefined when unset; only names in the table. */
  const read = (name: SettingName): string | undefined => {
    if (!isSettingName(name)) throw new Error(`${name} is not in src/config/settings.ts`)
    const v = env[name]
    if (v === undefined) return undefined
    if (v.trim() !== '') return v.trim()
    if (!('emptyMeansUnset' in SETTINGS[name]))
      problems.push(`${name} is set but empty: give it a value, or unset it for the default`)
    return undefined
  }
  /** The variable, or its default from the table. */
  const value = (name: DefaultedSettingName): string => read(name) ?? SETTINGS[name].value
  const whole = (name: SettingName, raw: string, min: number, max: number): number | null => {
    if (!/^[0-9]+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name}=${JSON.stringify(raw)} is not a whole number from ${min} to ${max}`)
      return null
    }
    return Number(raw)
  }
  const int = (name: DefaultedSettingName, min: number, max: number): number => {
    const dflt = Number(SETTINGS[name].value)
    const raw = read(name)
    return raw === undefined ? dflt : (whole(name, raw, min, max) ?? dflt)
  }
  const num = (name: DefaultedSettingName, min: number, max: number): number => {
    const dflt = Number(SETTINGS[name].value)
    const raw = read(name)
    if (raw === undefined) return dflt
    const n = Number(raw)
    if (!/^[0-9]+(\.[0-9]+)?$/.test(raw) || n < min || n > max) {
      problems.push(`${name}=${JSON.stringify(raw)} is not a number from ${min} to ${max}`)
      return dflt
    }
    return n
  }

  const port = int('PORT', 0, 65535)
  const host = value('HOST')
  const hostOk = isHost(host)
  if (!hostOk) problems.push(`HOST=${JSON.stringify(host)} is not an IP address or host name`)
  const databaseUrl = value('DATABASE_URL')
  if (!/^sqlite:.+/.test(databaseUrl) && !/^postgres(ql)?:\/\/.+/.test(databaseUrl)) {
    problems.push('DATABASE_URL must be sqlite:PATH or postgres://…')
  }
  const redisUrl = read('REDIS_URL') ?? null
  if (redisUrl !== null && !/^rediss?:\/\/.+/.test(redisUrl))
    problems.push('REDIS_URL must be redis://… or rediss://…')

  const tlsCertFile = read('TLS_CERT_FILE') ?? null
  const tlsKeyFile = read('TLS_KEY_FILE') ?? null
  if ((tlsCertFile === null) !== (tlsKeyFile === null)) {
    problems.push('TLS_CERT_FILE and TLS_KEY_FILE must be set together')
  }
  const scheme = tlsCertFile && tlsKeyFile ? 'https' : 'http'
  const urlHost = host.includes(':') ? `[${host}]` : host
  const publicBaseUrlRaw = read('PUBLIC_BASE_URL')
  const publicBaseUrl = (publicBaseUrlRaw ?? `${scheme}://${urlHost}:${port}`).replace(/\/+$/, '')
  // The derived default is only as good as HOST, whose own problem is already reported.
  if ((publicBaseUrlRaw !== undefined || hostOk) && !isHttpUrl(publicBaseUrl))
    problems.push('PUBLIC_BASE_URL must be an absolute http(s) URL')

  const series = value('SERIES')
    .split(',')
    .map((s) => s.trim())
  if (series.some((s) => !SERIES_PATTERN.test(s)) || new Set(series).size !== series.length) {
    problems.push(
      'SERIES must be a comma-separated list of distinct series prefixes (letters, digits, . _ -)',
    )
  }

  const venues = value('VENUE')
    .split(',')
    .map((v) => v.trim().toLowerCase())
  problems.push(...venueProblems(venues, series))
  const kalshiBaseUrl = value('KALSHI_BASE_URL').replace(/\/+$/, '')
  if (!isHttpUrl(kalshiBaseUrl)) problems.push('KALSHI_BASE_URL must be an absolute http(s) URL')
  const kalshiPollS = num('KALSHI_POLL_S', 1, 300)
  const kalshiKeyId = read('KALSHI_KEY_ID') ?? null
  const kalshiPrivateKeyFile = read('KALSHI_PRIVATE_KEY_FILE') ?? null
  if ((kalshiKeyId === null) !== (kalshiPrivateKeyFile === null)) {
    problems.push('KALSHI_KEY_ID and KALSHI_PRIVATE_KEY_FILE must be set together')
  }

  const polymarketGammaUrl = value('POLYMARKET_GAMMA_URL').replace(/\/+$/, '')
  if (!isHttpUrl(polymarketGammaUrl)) problems.push('POLYMARKET_GAMMA_URL must be an absolute http(s) URL')
  const polymarketClobUrl = value('POLYMARKET_CLOB_URL').replace(/\/+$/, '')
  if (!isHttpUrl(polymarketClobUrl)) problems.push('POLYMARKET_CLOB_URL must be an absolute http(s) URL')
  const polymarketPollS = num('POLYMARKET_POLL_S', 1, 300)

  const feedsRaw = read('PRICE_FEEDS')
  const priceFeeds = (feedsRaw ?? SETTINGS.PRICE_FEEDS.value).split(',').map((s) => s.trim().toLowerCase())
  if (
    priceFeeds.some((f) => !(SPOT_SOURCES as readonly string[]).includes(f)) ||
    new Set(priceFeeds).size !== priceFeeds.length
  ) {
    problems.push(
      `PRICE_FEEDS=${JSON.stringify(feedsRaw)} must be a comma-separated list of distinct sources from ${SPOT_SOURCES.join(', ')}`,
    )
  }
  const feedUrl = (name: DefaultedSettingName, schemes: readonly string[]): string => {
    const raw = value(name)
    if (!hasScheme(raw, schemes)) problems.push(`${name} must be an absolute ${schemes.join(' or ')} URL`)
    return raw.replace(/\/+$/, '')
  }
  const feedUrls = Object.fromEntries(
    SPOT_SOURCES.map((source) => {
      const prefix = source.toUpperCase() as 'COINBASE' | 'KRAKEN' | 'BITSTAMP'
      return [
        source,
        Object.freeze({
          ws: feedUrl(`${prefix}_WS_URL`, ['ws:', 'wss:']),
          rest: feedUrl(`${prefix}_REST_URL`, ['http:', 'https:']),
        }),
      ]
    }),
  ) as Record<SpotSourceName, { ws: string; rest: string }>
  const spotMaxAgeS = num('SPOT_MAX_AGE_S', 1, 3600)
  const recordDir = read('RECORD_DIR') ?? null
  const recordKeepDays = int('RECORD_KEEP_DAYS', 1, 3650)
  if (recordDir !== null && venues.includes('sim'))
    problems.push(
      'RECORD_DIR records a real venue (VENUE=kalshi or polymarket); the simulator writes its tapes with `contest-signals sim tape`',
    )
  // a tape is one venue's (decisions §12: its header names one venue)
  if (recordDir !== null && venues.length > 1)
    problems.push(
      `RECORD_DIR records one venue's tape; VENUE=${venues.join(',')} follows ${venues.length}: run one recording process per venue`,
    )
  const model = value('MODEL')
  if (!isModelName(model))
    problems.push(`MODEL=${JSON.stringify(model)} is not a known model (known: ${MODEL_NAMES.join(', ')})`)
  const readingMaxLateS = num('READING_MAX_LATE_S', 1, 59)

  const simSpeed = num('SIM_SPEED', 1, 10_000)
  const seedRaw = read('SIM_SEED')
  let simSeed = randomInt(1, 2 ** 31)
  if (seedRaw !== undefined) {
    if (!/^[0-9]{1,15}$/.test(seedRaw))
      problems.push(`SIM_SEED=${JSON.stringify(seedRaw)} is not a whole number`)
    else simSeed = Number(seedRaw)
  }
  const simParamsText = read('SIM_PARAMS')
  const parsedSimParams = parseSimParams(simParamsText ?? '')
  if (typeof parsedSimParams === 'string') problems.push(parsedSimParams)
  const simParams = typeof parsedSimParams === 'string' ? SIM_PARAMS : parsedSimParams
  const simBackfillDays = int('SIM_BACKFILL_DAYS', 0, 90)
  const simStartRaw = read('SIM_START')
  // an RFC 3339 instant with its offset: a bare date or a local time would depend on the machine
  const simStart = simStartRaw === undefined ? null : parseDateTime(simStartRaw)
  if (simStartRaw !== undefined && simStart === null)
    problems.push(
      `SIM_START=${JSON.stringify(simStartRaw)} is not an RFC 3339 instant (e.g. 2026-11-23T17:00:00Z)`,
    )

  const trustProxy = (read('TRUST_PROXY') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  for (const t of trustProxy) {
    if (!isIpOrCidr(t)) problems.push(`TRUST_PROXY entry ${JSON.stringify(t)} is not an IP address or CIDR`)
  }

  const corsRaw = value('CORS_ORIGINS')
  const corsOrigins =
    corsRaw === '*'
      ? ('*' as const)
      : corsRaw
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
  if (corsOrigins !== '*' && corsOrigins.some((o) => !isHttpUrl(o))) {
    problems.push('CORS_ORIGINS must be * or a comma-separated list of origins like https://example.com')
  }

  const rateLimitBurst = int('RATE_LIMIT_BURST', 1, 1_000_000)
  const rateLimitPerSec = num('RATE_LIMIT_PER_SEC', 0.001, 1_000_000)
  const streamHeartbeatS = num('STREAM_HEARTBEAT_S', 0.05, 3600)
  const eventRetentionHours = num('EVENT_RETENTION_HOURS', 0.01, 24 * 365)

  const logLevel = value('LOG_LEVEL') as Config['logLevel']
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`)

  const bootstrapRaw = value('BOOTSTRAP_KEY').toLowerCase()
  const fastPathRaw = value('FAST_PATH').toLowerCase()
  if (fastPathRaw !== 'on' && fastPathRaw !== 'off')
    problems.push(`FAST_PATH=${JSON.stringify(fastPathRaw)} must be on or off`)
  if (!['on', 'off'].includes(bootstrapRaw)) problems.push('BOOTSTRAP_KEY must be on or off')

  const metricsRaw = read('METRICS_PORT')
  const metricsPort = metricsRaw === undefined ? null : whole('METRICS_PORT', metricsRaw, 0, 65535)

  const redisPrefix = value('REDIS_PREFIX')
  const redisCommandTimeoutMs = int('REDIS_COMMAND_TIMEOUT_MS', 5, 5000)
  const pgStatementTimeoutMs = int('PG_STATEMENT_TIMEOUT_MS', 100, 600_000)
  const pgConnectTimeoutMs = int('PG_CONNECT_TIMEOUT_MS', 100, 60_000)
  const httpHeadersTimeoutS = num('HTTP_HEADERS_TIMEOUT_S', 0.1, 600)
  const httpRequestTimeoutS = num('HTTP_REQUEST_TIMEOUT_S', 0.1, 600)
  const httpIdleTimeoutS = num('HTTP_IDLE_TIMEOUT_S', 0.1, 3600)
  const httpKeepAliveTimeoutS = num('HTTP_KEEP_ALIVE_TIMEOUT_S', 0.1, 3600)
  // Node refuses a headers timeout above the request timeout (the headers are part of the request).
  if (httpHeadersTimeoutS > httpRequestTimeoutS)
    problems.push('HTTP_HEADERS_TIMEOUT_S must not be greater than HTTP_REQUEST_TIMEOUT_S')
  const streamMaxPerAddress = int('STREAM_MAX_PER_ADDRESS', 1, 1_000_000)
  // Beside the SQLite file by default (a directory the operator already owns); ./data/ otherwise.
  const sqliteDir = databaseUrl.startsWith('sqlite:')
    ? dirname(databaseUrl.slice('sqlite:'.length))
    : './data'
  const bootstrapKeyFile = read('BOOTSTRAP_KEY_FILE') ?? join(sqliteDir, 'bootstrap-key.txt')

  if (problems.length > 0) throw new ConfigError(problems)

  return Object.freeze({
    port,
    host,
    databaseUrl,
    redisUrl,
    publicBaseUrl,
    series: Object.freeze(series),
    venues: Object.freeze(venues as VenueName[]),
    kalshiBaseUrl,
    kalshiPollS,
    kalshiKeyId,
    kalshiPrivateKeyFile,
    polymarketGammaUrl,
    polymarketClobUrl,
    polymarketPollS,
    priceFeeds: Object.freeze(priceFeeds as SpotSourceName[]),
    feedUrls: Object.freeze(feedUrls),
    spotMaxAgeS,
    recordDir,
    recordKeepDays,
    model,
    readingMaxLateS,
    simSpeed,
    simSeed,
    simParams,
    simBackfillDays,
    simStart,
    trustProxy: Object.freeze(trustProxy),
    corsOrigins: corsOrigins === '*' ? '*' : Object.freeze(corsOrigins),
    tlsCertFile,
    tlsKeyFile,
    rateLimitBurst,
    rateLimitPerSec,
    streamHeartbeatS,
    eventRetentionHours,
    logLevel,
    bootstrapKey: bootstrapRaw === 'on',
    fastPath: fastPathRaw === 'on',
    metricsPort,
    redisPrefix,
    redisCommandTimeoutMs,
    pgStatementTimeoutMs,
    pgConnectTimeoutMs,
    httpHeadersTimeoutS,
    httpRequestTimeoutS,
    httpIdleTimeoutS,
    httpKeepAliveTimeoutS,
    streamMaxPerAddress,
    bootstrapKeyFile,
  })
}

/**
 * decisions §14: known names, none twice, the simulator alone (it runs on its own virtual clock, a
 * real venue on the wall clock, so the two cannot share an engine), and with real venues every
 * series on exactly one configured venue and every configured venue with a series.
 */
function venueProblems(venues: readonly string[], series: readonly string[]): string[] {
  const given = `VENUE=${JSON.stringify(venues.join(','))}`
  const unknown = venues.filter((v) => !isVenueName(v))
  if (unknown.length > 0 && venues.length === 1)
    return [`${given} is not a known venue (known: ${VENUES.join(', ')})`]
  if (unknown.length > 0)
    return [
      `${given}: ${unknown.map((v) => JSON.stringify(v)).join(', ')} is not a known venue (known: ${VENUES.join(', ')})`,
    ]
  if (new Set(venues).size !== venues.length) return [`${given} names a venue twice`]
  if (venues.includes('sim'))
    return venues.length === 1
      ? []
      : [`${given}: the simulator runs alone (its clock is virtual, a real venue's is the wall clock)`]
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

function isHttpUrl(s: string): boolean {
  return hasScheme(s, ['http:', 'https:'])
}

function hasScheme(s: string, schemes: readonly string[]): boolean {
  try {
    return schemes.includes(new URL(s).protocol)
  } catch {
    return false
  }
}

/** An IPv4 address (each part 0–255), an IPv6 address, or a DNS host name (RFC 1123). */
function isHost(s: string): boolean {
  if (s.includes(':')) return isIpOrCidr(s) && !s.includes('/')
  const labels = s.split('.')
  if (labels.every((l) => /^[0-9]+$/.test(l))) return isIpOrCidr(s) && !s.includes('/')
  return s.length <= 253 && labels.every((l) => /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(l))
}

function isIpOrCidr(s: string): boolean {
  const [addr, bits, extra] = s.split('/')
  if (extra !== undefined || addr === undefined) return false
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(addr)
  const isV4 = v4?.slice(1).every((o) => Number(o) <= 255)
  const isV6 = !isV4 && addr.includes(':') && /^[0-9a-fA-F:.]+$/.test(addr)
  if (!isV4 && !isV6) return false
  if (bits === undefined) return true
  return /^[0-9]{1,3}$/.test(bits) && Number(bits) <= (isV4 ? 32 : 128)
}
