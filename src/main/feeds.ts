// Chooses the venue and the price feed named by VENUE (decisions §8, §14): the seeded simulator, or
// Kalshi or Polymarket with the median of the configured exchanges' spot prices. The one place that
// knows the adapters.
import { mkdir, readFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import type { Config } from '../config/config.ts'
import { ConfigError } from '../config/config.ts'
import { withSettlementIndex } from '../feeds/kalshi/index-spot.ts'
import { createKalshiSocket, socketUrlFor } from '../feeds/kalshi/kalshi-socket.ts'
import { createKalshiVenue } from '../feeds/kalshi/kalshi-venue.ts'
import { createRequestSigner } from '../feeds/kalshi/request-signing.ts'
import { checkKalshiSeries } from '../feeds/kalshi/series-check.ts'
import { createPolymarketVenue, type PolymarketTap } from '../feeds/polymarket/polymarket-venue.ts'
import { checkPolymarketSeries } from '../feeds/polymarket/series-check.ts'
import { createSimPriceFeed } from '../feeds/sim/sim-price-feed.ts'
import { createSimVenue } from '../feeds/sim/sim-venue.ts'
import { createSpotFeed } from '../feeds/spot/spot-feed.ts'
import type { Clock } from '../ports/clock.ts'
import type { Logger } from '../ports/logger.ts'
import type { PriceFeed, SeriesCheck, Venue, VenueTelemetry } from '../ports/venue.ts'
import { createTapeRecorder, type TapeRecorder } from '../tape/tape-recorder.ts'
import { VERSION } from './version.ts'

export type FeedSettings = Pick<
  Config,
  | 'venue'
  | 'simSeed'
  | 'series'
  | 'kalshiBaseUrl'
  | 'kalshiPollS'
  | 'kalshiKeyId'
  | 'kalshiPrivateKeyFile'
  | 'polymarketGammaUrl'
  | 'polymarketClobUrl'
  | 'polymarketPollS'
  | 'priceFeeds'
  | 'feedUrls'
  | 'spotMaxAgeS'
  | 'recordDir'
  | 'recordKeepDays'
>

/** The venue and the spot feed, and the recorder of what they receive when RECORD_DIR is set (closed after them). */
export type Feeds = {
  venue: Venue
  feed: PriceFeed
  recorder: TapeRecorder | null
  /** with a real venue, what it said of the configured series at start (decisions §8) */
  seriesCheck: SeriesCheck | null
}

export async function createFeeds(
  config: FeedSettings,
  deps: {
    wallClock: Clock
    logger: Logger
    telemetry?: VenueTelemetry
    /** minutes of closes the spot feed keeps: what the model reads (spotKeepMinutes) */
    spotKeepMinutes?: number
  },
): Promise<Feeds> {
  if (config.venue === 'sim') {
    const feed = createSimPriceFeed({ seed: config.simSeed })
    return {
      venue: createSimVenue({ seed: config.simSeed, feed, series: config.series }),
      feed,
      recorder: null,
      seriesCheck: null,
    }
  }
  if (config.venue === 'polymarket') return createPolymarketFeeds(config, deps)
  const credentials = await readCredentials(config)
  // only series the engine can price: anything else stops the program here, one line per series
  const seriesCheck = await checkKalshiSeries({
    baseUrl: config.kalshiBaseUrl,
    series: config.series,
    clock: deps.wallClock,
    logger: deps.logger,
    ...(credentials ? { credentials } : {}),
  })
  if (seriesCheck.kind === 'refused') throw new ConfigError(seriesCheck.problems)
  if (seriesCheck.kind === 'unreachable')
    deps.logger.warn(
      { venue: 'kalshi', failure: seriesCheck.failure },
      'could not check the series against the venue; following them anyway',
    )
  const recorder = config.recordDir === null ? null : await startRecorder(config, config.recordDir, deps)
  // with a key, the venue's WebSocket: lifecycle events and BRTI on top of REST polling (decisions §8)
  const socket = credentials
    ? createKalshiSocket({
        url: socketUrlFor(config.kalshiBaseUrl),
        signer: createRequestSigner(credentials),
        clock: deps.wallClock,
        logger: deps.logger,
        ...(deps.telemetry ? { telemetry: deps.telemetry } : {}),
      })
    : null
  const venue = createKalshiVenue({
    baseUrl: config.kalshiBaseUrl,
    ...(socket ? { socket } : {}),
    series: config.series,
    pollMs: config.kalshiPollS * 1000,
    wallClock: deps.wallClock,
    logger: deps.logger,
    ...(deps.telemetry ? { telemetry: deps.telemetry } : {}),
    ...(credentials ? { credentials } : {}),
    ...(recorder
      ? { tap: { market: recorder.market, book: recorder.book, exchange: recorder.exchange } }
      : {}),
  })
  const proxy = createSpotFeed({
    sources: config.priceFeeds,
    urls: config.feedUrls,
    maxAgeMs: config.spotMaxAgeS * 1000,
    wallClock: deps.wallClock,
    logger: deps.logger,
    ...(deps.spotKeepMinutes ? { timing: { keepMinutes: deps.spotKeepMinutes } } : {}),
    ...(recorder ? { onPrice: recorder.spot, onCloses: recorder.closes } : {}),
  })
  if (socket && recorder) socket.onIndex((print) => recorder.index(print.id, print.value))
  // BRTI is the settlement index itself: while its prints are fresh it is the model's spot
  const feed = socket
    ? withSettlementIndex({
        proxy,
        index: socket,
        maxAgeMs: config.spotMaxAgeS * 1000,
        wallClock: deps.wallClock,
      })
    : proxy
  return { venue, feed, recorder, seriesCheck }
}

/** VENUE=polymarket (decisions §14): the series checked, the venue, and the exchanges' spot median. */
async function createPolymarketFeeds(
  config: FeedSettings,
  deps: { wallClock: Clock; logger: Logger; telemetry?: VenueTelemetry },
): Promise<Feeds> {
  const seriesCheck = await checkPolymarketSeries({
    gammaUrl: config.polymarketGammaUrl,
    clobUrl: config.polymarketClobUrl,
    series: config.series,
    clock: deps.wallClock,
    logger: deps.logger,
  })
  if (seriesCheck.kind === 'refused') throw new ConfigError(seriesCheck.problems)
  if (seriesCheck.kind === 'unreachable')
    deps.logger.warn(
      { venue: 'polymarket', failure: seriesCheck.failure },
      'could not check the series against the venue; following them anyway',
    )
  const recorder = config.recordDir === null ? null : await startRecorder(config, config.recordDir, deps)
  // recording (decisions §12): every Gamma event body and every token's /book body as received
  const tap = recorder
    ? {
        event: recorder.market,
        book: (ticker: string, token: string, body: unknown) => recorder.book(ticker, body, token),
      }
    : undefined
  const venue = createPolymarketVenueFor(config, deps, tap)
  const feed = createSpotFeed({
    sources: config.priceFeeds,
    urls: config.feedUrls,
    maxAgeMs: config.spotMaxAgeS * 1000,
    wallClock: deps.wallClock,
    logger: deps.logger,
    ...(recorder ? { onPrice: recorder.spot, onCloses: recorder.closes } : {}),
  })
  return { venue, feed, recorder, seriesCheck }
}

/** The Polymarket venue as the settings describe it. */
export function createPolymarketVenueFor(
  config: Pick<FeedSettings, 'polymarketGammaUrl' | 'polymarketClobUrl' | 'polymarketPollS'>,
  deps: { wallClock: Clock; logger: Logger; telemetry?: VenueTelemetry },
  tap?: PolymarketTap,
): Venue {
  return createPolymarketVenue({
    ...(tap ? { tap } : {}),
    gammaUrl: config.polymarketGammaUrl,
    clobUrl: config.polymarketClobUrl,
    pollMs: config.polymarketPollS * 1000,
    wallClock: deps.wallClock,
    logger: deps.logger,
    ...(deps.telemetry ? { telemetry: deps.telemetry } : {}),
  })
}

/** RECORD_DIR is made if missing; one that cannot be written stops the program naming it. */
async function startRecorder(
  config: FeedSettings,
  dir: string,
  deps: { wallClock: Clock; logger: Logger },
): Promise<TapeRecorder> {
  const recorder = createTapeRecorder({
    dir,
    keepDays: config.recordKeepDays,
    venue: config.venue,
    series: config.series,
    sources: config.priceFeeds,
    clock: deps.wallClock,
    logger: deps.logger,
    origin: `recorded by contest-signals ${VERSION} on ${hostname()}`,
  })
  try {
    await mkdir(dir, { recursive: true })
    await recorder.start()
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err)
    throw new ConfigError([`RECORD_DIR=${JSON.stringify(dir)} cannot be recorded into (${reason})`])
  }
  return recorder
}

/** The signing key is read at start, so a missing or unreadable file stops the program naming its variable. */
async function readCredentials(
  config: FeedSettings,
): Promise<{ keyId: string; privateKeyPem: string } | null> {
  if (config.kalshiKeyId === null || config.kalshiPrivateKeyFile === null) return null
  try {
    const privateKeyPem = await readFile(config.kalshiPrivateKeyFile, 'utf8')
    return { keyId: config.kalshiKeyId, privateKeyPem }
  } catch (err) {
    const reason = err instanceof Error && 'code' in err ? String(err.code) : 'unreadable'
    throw new ConfigError([
      `KALSHI_PRIVATE_KEY_FILE=${JSON.stringify(config.kalshiPrivateKeyFile)} cannot be read (${reason})`,
    ])
  }
}
