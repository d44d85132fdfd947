// Polymarket's two public read hosts (venue facts §3.2.1, §3.4.1) as two paced JSON clients: Gamma for
// discovery and results, the CLOB for books. Each host has its own documented limits, so each has its
// own pacer; both are ceilings far below those limits (docs/venues.md, "Running on Polymarket").
import type { Clock } from '../../ports/clock.ts'
import type { Logger } from '../../ports/logger.ts'
import type { VenueTelemetry } from '../../ports/venue.ts'
import { createJsonClient, type JsonClient } from '../venue-http/json-client.ts'
import type { Sleep } from '../venue-http/request-pacer.ts'
import type { BackoffOptions } from '../venue-http/retry-backoff.ts'

/** Telemetry labels: `event` = `GET /events/slug/{slug}`, `events` = the listing fallback, `book` = `GET /book`. */
export type GammaEndpoint = 'event' | 'events'
export type ClobEndpoint = 'book'

export type PolymarketClients = { gamma: JsonClient<GammaEndpoint>; clob: JsonClient<ClobEndpoint> }

/**
 * Pacing ceilings: Gamma 5 requests/s is 50 per 10 s against `/events`' 500 (10 %), CLOB 10/s is 100
 * per 10 s against `/book`'s 1,500 (under 7 %). A poll uses far less (README, "request budget").
 */
export const POLYMARKET_DEFAULTS = {
  gammaRequestsPerSec: 5,
  clobRequestsPerSec: 10,
  timeoutMs: 5_000,
  maxAttempts: 4,
  backoff: { baseMs: 250, capMs: 8_000 },
} as const

export type PolymarketClientOptions = {
  gammaUrl: string
  clobUrl: string
  clock: Clock
  logger: Logger
  telemetry?: VenueTelemetry
  timeoutMs?: number
  maxAttempts?: number
  backoff?: BackoffOptions
  gammaRequestsPerSec?: number
  clobRequestsPerSec?: number
  random?: () => number
  sleep?: Sleep
}

export function createPolymarketClients(opts: PolymarketClientOptions): PolymarketClients {
  const common = {
    venue: 'polymarket',
    clock: opts.clock,
    logger: opts.logger,
    timeoutMs: opts.timeoutMs ?? POLYMARKET_DEFAULTS.timeoutMs,
    maxAttempts: opts.maxAttempts ?? POLYMARKET_DEFAULTS.maxAttempts,
    backoff: opts.backoff ?? POLYMARKET_DEFAULTS.backoff,
    ...(opts.telemetry ? { telemetry: opts.telemetry } : {}),
    ...(opts.random ? { random: opts.random } : {}),
    ...(opts.sleep ? { sleep: opts.sleep } : {}),
  }
  return {
    gamma: createJsonClient<GammaEndpoint>({
      ...common,
      baseUrl: opts.gammaUrl,
      maxRequestsPerSec: opts.gammaRequestsPerSec ?? POLYMARKET_DEFAULTS.gammaRequestsPerSec,
    }),
    clob: createJsonClient<ClobEndpoint>({
      ...common,
      baseUrl: opts.clobUrl,
      maxRequestsPerSec: opts.clobRequestsPerSec ?? POLYMARKET_DEFAULTS.clobRequestsPerSec,
    }),
  }
}
