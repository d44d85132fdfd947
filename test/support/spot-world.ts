// One spot-feed test world: three fixture exchanges on loopback, a feed over them with short timers,
// a recording logger, and polling helpers. Each test builds its own and closes it.

import type { SpotExchange } from '../../src/feeds/spot/spot-exchange.ts'
import { createSpotFeed } from '../../src/feeds/spot/spot-feed.ts'
import type { SpotSourceTiming } from '../../src/feeds/spot/spot-source.ts'
import type { Clock } from '../../src/ports/clock.ts'
import type { Logger } from '../../src/ports/logger.ts'
import type { PriceFeed, SpotTelemetry } from '../../src/ports/venue.ts'
import { type ExchangeFixtures, startExchangeFixtures } from '../fixtures/exchange-fixtures.ts'

export type LogLine = { level: keyof Logger; obj: Record<string, unknown>; msg: string }

export function createRecordingLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = []
  const at =
    (level: keyof Logger) =>
    (obj: unknown, msg?: string): void => {
      lines.push({ level, obj: (obj ?? {}) as Record<string, unknown>, msg: msg ?? '' })
    }
  return { lines, info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') }
}

/** Timers short enough for a test to see reconnects and staleness in well under a second. */
export const FAST_TIMING: Partial<SpotSourceTiming> = {
  silenceMs: 600,
  restPollMs: 100,
  backoffBaseMs: 20,
  backoffCapMs: 200,
  healthyAfterMs: 200,
  keepAliveMs: 150,
  requestTimeoutMs: 500,
  startTimeoutMs: 1_500,
  warmupRetryMs: 300,
}

export type SpotWorld = {
  ex: ExchangeFixtures
  feed: PriceFeed
  logs: LogLine[]
  close(): Promise<void>
}

export async function startSpotWorld(
  opts: {
    sources?: readonly SpotExchange[]
    maxAgeMs?: number
    /** default 2, as in production, or 1 in a one-exchange world (those test connections, not the median) */
    minFreshSources?: number
    downAfterMs?: number
    timing?: Partial<SpotSourceTiming>
    wallClock?: Clock
    /** the backoff jitter's random source */
    random?: () => number
    /** runs on the fixtures before the feed starts (initial prices, refusals, candles) */
    prepare?: (ex: ExchangeFixtures) => void
    /** told the warm-up closes each source loaded */
    onCloses?: (source: string, closes: ReadonlyArray<{ minuteStart: number; close: number }>) => void
    /** each source's metrics (metrics.spotTelemetry, as the engine wires it) */
    telemetry?: (source: SpotExchange) => SpotTelemetry
    /** the fixtures' heartbeat period (default 100 ms) */
    heartbeatMs?: number
  } = {},
): Promise<SpotWorld> {
  const ex = await startExchangeFixtures({ heartbeatMs: opts.heartbeatMs ?? 100 })
  opts.prepare?.(ex)
  const logger = createRecordingLogger()
  const sources = opts.sources ?? ['coinbase', 'kraken', 'bitstamp']
  const feed = createSpotFeed({
    sources,
    minFreshSources: opts.minFreshSources ?? Math.min(2, sources.length),
    urls: ex.urls,
    maxAgeMs: opts.maxAgeMs ?? 1_000,
    wallClock: opts.wallClock ?? { now: () => Date.now() },
    logger,
    ...(opts.downAfterMs === undefined ? {} : { downAfterMs: opts.downAfterMs }),
    timing: { ...FAST_TIMING, ...opts.timing },
    ...(opts.random ? { random: opts.random } : {}),
    ...(opts.onCloses ? { onCloses: opts.onCloses } : {}),
    ...(opts.telemetry ? { telemetry: opts.telemetry } : {}),
  })
  await feed.start()
  return {
    ex,
    feed,
    logs: logger.lines,
    close: async () => {
      await feed.close()
      await ex.close()
    },
  }
}
