// Chooses the venues and the price feed named by VENUE (decisions §8, §14): the seeded simulator, or
// each real venue on its own series (several behind one routing set) with the median of the
// configured exchanges' spot prices. The one place that knows the adapters.
import { mkdir, readFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import type { Config } from '../config/config.ts'
import { ConfigError, seriesOfVenue } from '../config/config.ts'
import type { VenueName } from '../domain/venues.ts'
import { withSettlementIndex } from '../feeds/kalshi/index-spot.ts'
import { createSimPriceFeed } from '../feeds/sim/sim-price-feed.ts'
import { createSimVenue } from '../feeds/sim/sim-venue.ts'
import { sharedSimWorld } from '../feeds/sim/sim-world.ts'
import { createSpotFeed } from '../feeds/spot/spot-feed.ts'
import { createVenueSet } from '../feeds/venue-set/venue-set.ts'
import type { Clock } from '../ports/clock.ts'
import type { Logger } from '../ports/logger.ts'
import type { PriceFeed, SeriesCheck, SpotTelemetry, Venue, VenueTelemetry } from '../ports/venue.ts'
import { createTapeRecorder, type TapeRecorder } from '../tape/tape-recorder.ts'
import type { SimWorldIdentity } from './sim-timeline.ts'
import { type Credentials, type LiveVenue, type VenueKind, venueKind } from './venue-kinds.ts'
import { VERSION } from './version.ts'

export type FeedSettings = Pick<
  Config,
  | 'venues'
  | 'series'
  | 'kalshiBaseUrl'
  | 'kalshiPollS'
  | 'kalshiKeyId'
  | 'kalshiPrivateKeyFile'
  | 'polymarketGammaUrl'
  | 'polymarketClobUrl'
  | 'polymarketPollS'
  | 'polymarketWeeklyRestart'
  | 'priceFeeds'
  | 'feedUrls'
  | 'spotMaxAgeS'
  | 'recordDir'
  | 'recordKeepDays'
>

/** One configured venue: its adapter, the series it follows, and what it said of them at start. */
export type FeedVenue = {
  name: VenueName
  venue: Venue
  series: readonly string[]
  /** where the adapter reaches the venue (its REST base), null for the simulator */
  baseUrl: string | null
  /** with a real venue, what it said of its series at start (decisions §8) */
  seriesCheck: SeriesCheck | null
}

/**
 * The venue the engine follows (the simulator, or the set that routes each series to its real
 * venue's adapter, decisions §14), each configured venue on its own, the spot feed, and the recorder
 * of what they receive when RECORD_DIR is set (closed after them).
 */
export type Feeds = {
  venue: Venue
  venues: readonly FeedVenue[]
  feed: PriceFeed
  recorder: TapeRecorder | null
}

type FeedDeps = {
  wallClock: Clock
  /**
   * the service clock (virtual under the simulator): the simulator's feed reports its sources at its
   * now, so their ages read on the clock their freshness is judged on; absent, at the instant last asked
   */
  clock?: Clock
  logger: Logger
  /** request accounting per venue, labelled with the venue's name */
  telemetry?: (venue: string) => VenueTelemetry
  /** each spot exchange's socket, REST requests and unreadable frames, labelled with the exchange's name */
  spotTelemetry?: (source: string) => SpotTelemetry
  /** minutes of closes the spot feed keeps: what the model reads (spotKeepMinutes) */
  spotKeepMinutes?: number
  /** the sandbox of the store's timeline, when the venue is the simulator (resolveSimWorld) */
  sim?: SimWorldIdentity
}

export async function createFeeds(config: FeedSettings, deps: FeedDeps): Promise<Feeds> {
  if (config.venues.includes('sim')) {
    if (!deps.sim) throw new Error('the simulator needs its timeline’s sandbox (resolveSimWorld)')
    const { seed, params } = deps.sim
    const world = sharedSimWorld(seed, params)
    const feed = createSimPriceFeed({ seed, world, ...(deps.clock ? { clock: deps.clock } : {}) })
    const venue = createSimVenue({ seed, world, feed, series: config.series })
    return {
      venue,
      venues: [{ name: 'sim', venue, series: config.series, baseUrl: null, seriesCheck: null }],
      feed,
      recorder: null,
    }
  }
  // each venue's series are checked before anything starts: a refusal stops the program here
  const checked: CheckedVenue[] = []
  for (const name of config.venues) {
    const kind = venueKind(name)
    if (!kind) throw new ConfigError([`VENUE names ${JSON.stringify(name)}, not a real venue`])
    checked.push(await checkRealVenue(kind, seriesOfVenue(config, name), config, deps))
  }
  // a tape is one venue's: loadConfig refuses RECORD_DIR with several (decisions §12)
  const recorder = config.recordDir === null ? null : await startRecorder(config, config.recordDir, deps)
  const made = checked.map((c) => createRealVenue(c, config, deps, recorder))
  const venues = made.map((m) => m.member)
  const withIndex = made.find((m) => m.index !== null)
  const index = withIndex?.index ?? null
  const entitlement = withIndex?.entitlement
  const proxy = createSpotFeed({
    sources: config.priceFeeds,
    urls: config.feedUrls,
    maxAgeMs: config.spotMaxAgeS * 1000,
    wallClock: deps.wallClock,
    logger: deps.logger,
    ...(deps.spotKeepMinutes ? { timing: { keepMinutes: deps.spotKeepMinutes } } : {}),
    ...(recorder ? { onPrice: recorder.spot, onCloses: recorder.closes } : {}),
    ...(deps.spotTelemetry ? { telemetry: deps.spotTelemetry } : {}),
  })
  if (index && recorder) index.onIndex((print) => recorder.index(print))
  // BRTI is the settlement index itself: while its prints are fresh it is the model's spot
  const feed = index
    ? withSettlementIndex({
        proxy,
        index,
        maxAgeMs: config.spotMaxAgeS * 1000,
        wallClock: deps.wallClock,
        logger: deps.logger,
        ...(entitlement ? { entitlement } : {}),
      })
    : proxy
  // one real venue goes through the same routing as several, so every run exercises it
  const venue = createVenueSet(venues)
  return { venue, venues, feed, recorder }
}

type CheckedVenue = {
  kind: VenueKind
  series: readonly string[]
  credentials: Credentials | null
  seriesCheck: SeriesCheck
}

/** A real venue's key and what it says of `series`: only series the engine can price pass. */
async function checkRealVenue(
  kind: VenueKind,
  series: readonly string[],
  config: FeedSettings,
  deps: FeedDeps,
): Promise<CheckedVenue> {
  const credentials = kind.usesKey ? await readCredentials(config) : null
  // only series the engine can price: anything else stops the program here, one line per series
  const seriesCheck = await kind.checkSeries(
    series,
    config,
    { wallClock: deps.wallClock, logger: deps.logger },
    credentials,
  )
  if (seriesCheck.kind === 'refused') throw new ConfigError(seriesCheck.problems)
  if (seriesCheck.kind === 'unreachable')
    deps.logger.warn(
      { venue: kind.name, failure: seriesCheck.failure },
      'could not check the series against the venue; following them anyway',
    )
  return { kind, series, credentials, seriesCheck }
}

/** The adapter of a checked venue, and the settlement index it streams (Kalshi with a key: BRTI). */
function createRealVenue(
  checked: CheckedVenue,
  config: FeedSettings,
  deps: FeedDeps,
  recorder: TapeRecorder | null,
): Pick<LiveVenue, 'index' | 'entitlement'> & { member: FeedVenue } {
  const { kind, series, credentials, seriesCheck } = checked
  const telemetry = deps.telemetry?.(kind.name)
  const live = kind.createLive(
    series,
    config,
    { wallClock: deps.wallClock, logger: deps.logger, ...(telemetry ? { telemetry } : {}) },
    credentials,
    recorder,
  )
  return {
    member: { name: kind.name, venue: live.venue, series, baseUrl: live.baseUrl, seriesCheck },
    index: live.index,
    ...(live.entitlement ? { entitlement: live.entitlement } : {}),
  }
}

/** RECORD_DIR is made if missing; one that cannot be written stops the program naming it. */
async function startRecorder(
  config: FeedSettings,
  dir: string,
  deps: Pick<FeedDeps, 'wallClock' | 'logger' | 'spotKeepMinutes'>,
): Promise<TapeRecorder> {
  const recorder = createTapeRecorder({
    dir,
    keepDays: config.recordKeepDays,
    venue: config.venues[0]!,
    series: config.series,
    sources: config.priceFeeds,
    clock: deps.wallClock,
    logger: deps.logger,
    origin: `recorded by contest-signals ${VERSION} on ${hostname()}`,
    ...(deps.spotKeepMinutes ? { closesKept: deps.spotKeepMinutes } : {}),
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
async function readCredentials(config: FeedSettings): Promise<Credentials | null> {
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
