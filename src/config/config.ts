// The only module that reads process.env: every setting of decisions §2, parsed once, every error
// reported at once, the result frozen.
import { randomInt } from 'node:crypto'

export type Config = Readonly<{
  port: number
  host: string
  databaseUrl: string
  redisUrl: string | null
  publicBaseUrl: string
  series: readonly string[]
  venue: 'sim'
  simSpeed: number
  simSeed: number
  simBackfillDays: number
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
  metricsPort: number | null
  /** prefix for every Redis key, so deployments (and test runs) sharing a server never collide */
  redisPrefix: string
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
const SERIES_PATTERN = /^[A-Za-z0-9._-]{1,64}$/

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = []
  const read = (name: string): string | undefined => {
    const v = env[name]
    return v === undefined || v.trim() === '' ? undefined : v.trim()
  }
  const int = (name: string, dflt: number, min: number, max: number): number => {
    const raw = read(name)
    if (raw === undefined) return dflt
    if (!/^[0-9]+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name}=${JSON.stringify(raw)} is not a whole number from ${min} to ${max}`)
      return dflt
    }
    return Number(raw)
  }
  const num = (name: string, dflt: number, min: number, max: number): number => {
    const raw = read(name)
    if (raw === undefined) return dflt
    const n = Number(raw)
    if (!/^[0-9]+(\.[0-9]+)?$/.test(raw) || n < min || n > max) {
      problems.push(`${name}=${JSON.stringify(raw)} is not a number from ${min} to ${max}`)
      return dflt
    }
    return n
  }

  const port = int('PORT', 8080, 0, 65535)
  const host = read('HOST') ?? '127.0.0.1'
  const databaseUrl = read('DATABASE_URL') ?? 'sqlite:./data/contest-signals.db'
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
  const publicBaseUrl = (read('PUBLIC_BASE_URL') ?? `${scheme}://${urlHost}:${port}`).replace(/\/+$/, '')
  if (!isHttpUrl(publicBaseUrl)) problems.push('PUBLIC_BASE_URL must be an absolute http(s) URL')

  const series = (read('SERIES') ?? 'KXBTC15M').split(',').map((s) => s.trim())
  if (series.some((s) => !SERIES_PATTERN.test(s)) || new Set(series).size !== series.length) {
    problems.push(
      'SERIES must be a comma-separated list of distinct series prefixes (letters, digits, . _ -)',
    )
  }

  const venue = read('VENUE') ?? 'sim'
  if (venue !== 'sim') problems.push(`VENUE=${JSON.stringify(venue)} is not a known venue (known: sim)`)

  const simSpeed = num('SIM_SPEED', 1, 1, 10_000)
  const seedRaw = read('SIM_SEED')
  let simSeed = randomInt(1, 2 ** 31)
  if (seedRaw !== undefined) {
    if (!/^[0-9]{1,15}$/.test(seedRaw))
      problems.push(`SIM_SEED=${JSON.stringify(seedRaw)} is not a whole number`)
    else simSeed = Number(seedRaw)
  }
  const simBackfillDays = int('SIM_BACKFILL_DAYS', 7, 0, 90)

  const trustProxy = (read('TRUST_PROXY') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  for (const t of trustProxy) {
    if (!isIpOrCidr(t)) problems.push(`TRUST_PROXY entry ${JSON.stringify(t)} is not an IP address or CIDR`)
  }

  const corsRaw = read('CORS_ORIGINS') ?? '*'
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

  const rateLimitBurst = int('RATE_LIMIT_BURST', 20, 1, 1_000_000)
  const rateLimitPerSec = num('RATE_LIMIT_PER_SEC', 1, 0.001, 1_000_000)
  const streamHeartbeatS = num('STREAM_HEARTBEAT_S', 15, 0.05, 3600)
  const eventRetentionHours = num('EVENT_RETENTION_HOURS', 48, 0.01, 24 * 365)

  const logLevel = (read('LOG_LEVEL') ?? 'info') as Config['logLevel']
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`)

  const bootstrapRaw = (read('BOOTSTRAP_KEY') ?? 'on').toLowerCase()
  if (!['on', 'off'].includes(bootstrapRaw)) problems.push('BOOTSTRAP_KEY must be on or off')

  const metricsRaw = read('METRICS_PORT')
  const metricsPort = metricsRaw === undefined ? null : int('METRICS_PORT', 0, 0, 65535)

  const redisPrefix = read('REDIS_PREFIX') ?? 'cs:'

  if (problems.length > 0) throw new ConfigError(problems)

  return Object.freeze({
    port,
    host,
    databaseUrl,
    redisUrl,
    publicBaseUrl,
    series: Object.freeze(series),
    venue: 'sim' as const,
    simSpeed,
    simSeed,
    simBackfillDays,
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
    metricsPort,
    redisPrefix,
  })
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s)
    return u.protocol === 'http:' || u.protocol === 'https:'
  } catch {
    return false
  }
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
