// The kinds of real venue the service knows (decisions §8, §14, §12, §15), each with everything that
// differs between them: how its series are checked at start and its live adapter made, the replay's
// venue for its tapes, the simulator's tape in its shapes, its public history, and its words. The one
// place a real venue's name is switched on: a new venue is one more entry here.
import type { RealVenueName } from '../domain/venues.ts'
import type { WeeklyWindow } from '../domain/weekly-window.ts'
import { type IndexEntitlement, probeIndexEntitlement } from '../feeds/kalshi/index-entitlement.ts'
import { createKalshiClient } from '../feeds/kalshi/kalshi-client.ts'
import { createKalshiSocket, type KalshiSocket, socketUrlFor } from '../feeds/kalshi/kalshi-socket.ts'
import { createKalshiVenue } from '../feeds/kalshi/kalshi-venue.ts'
import { recordedKalshi } from '../feeds/kalshi/recorded-venue.ts'
import { createRequestSigner } from '../feeds/kalshi/request-signing.ts'
import { checkKalshiSeries } from '../feeds/kalshi/series-check.ts'
import { createPolymarketVenue, type PolymarketTap } from '../feeds/polymarket/polymarket-venue.ts'
import { recordedPolymarket } from '../feeds/polymarket/recorded-venue.ts'
import { checkPolymarketSeries } from '../feeds/polymarket/series-check.ts'
import {
  type PolymarketSimTapeOptions,
  polymarketSimTapeHeader,
  writePolymarketSimTape,
} from '../feeds/sim-tape/polymarket-sim-tape.ts'
import {
  type SimTapeOptions,
  type SimTapeSink,
  simTapeHeader,
  writeSimTape,
} from '../feeds/sim-tape/sim-tape.ts'
import { createTapeVenue, type TapeVenue, type TapeVenueOptions } from '../feeds/tape/tape-venue.ts'
import type { RecordedVenue } from '../feeds/venue-http/market-view.ts'
import type { HistoryHost } from '../history/history-http.ts'
import { createKalshiHistory, KALSHI_REQUESTS_PER_SEC } from '../history/kalshi-history.ts'
import {
  CLOB_REQUESTS_PER_SEC,
  createPolymarketHistory,
  GAMMA_REQUESTS_PER_SEC,
} from '../history/polymarket-history.ts'
import type { VenueHistory } from '../history/venue-history.ts'
import type { Clock } from '../ports/clock.ts'
import type { Logger } from '../ports/logger.ts'
import type { SeriesCheck, Venue, VenueTelemetry } from '../ports/venue.ts'
import type { TapeHeader } from '../tape/tape-format.ts'
import type { TapeRecorder } from '../tape/tape-recorder.ts'

/** The settings a venue kind reads (a subset of Config). */
export type VenueKindSettings = {
  kalshiBaseUrl: string
  kalshiPollS: number
  polymarketGammaUrl: string
  polymarketClobUrl: string
  polymarketPollS: number
  polymarketWeeklyRestart: WeeklyWindow | null
}

export type Credentials = { keyId: string; privateKeyPem: string }

export type LiveDeps = {
  wallClock: Clock
  logger: Logger
  telemetry?: VenueTelemetry
}

/** A real venue's live adapter, where it is reached, and the settlement index it streams, if any. */
export type LiveVenue = {
  venue: Venue
  baseUrl: string
  index: KalshiSocket | null
  /** asks once whether the account may read the index (the socket's ack does not say) */
  entitlement?: () => Promise<IndexEntitlement>
}

export type SimTapeRequest = Omit<SimTapeOptions, 'series'> & { series: readonly string[] }

export type VenueKind = {
  readonly name: RealVenueName
  /** the series a command follows on this venue when none is named (history import) */
  readonly defaultSeries: string
  /** a contest's strike before the venue sets it, in the operator's words (venue-check) */
  readonly strikeUnset: string
  /** whether its live adapter signs requests with KALSHI_KEY_ID (the key is then read at start) */
  readonly usesKey: boolean
  /** what the venue says of `series` at start (decisions §8): only series the engine can price pass */
  checkSeries(
    series: readonly string[],
    settings: VenueKindSettings,
    deps: LiveDeps,
    credentials: Credentials | null,
  ): Promise<SeriesCheck>
  /** its live adapter on `series`, recording into `recorder` when there is one (decisions §12) */
  createLive(
    series: readonly string[],
    settings: VenueKindSettings,
    deps: LiveDeps,
    credentials: Credentials | null,
    recorder: TapeRecorder | null,
  ): LiveVenue
  /** its market book as its tapes fill it: the live adapter's parsing, bodies from the tape */
  recorded(series: readonly string[], logger: Logger): RecordedVenue
  /** the simulator's tape in this venue's shapes (`sim tape --venue`) */
  simTapeHeader(opts: SimTapeRequest): TapeHeader
  writeSimTape(
    opts: SimTapeRequest & Pick<PolymarketSimTapeOptions, 'onProgress'>,
    sink: SimTapeSink,
  ): Promise<void>
  /** its public history of `series` (history import, decisions §15) */
  createHistory(
    series: string,
    host: (name: string, baseUrl: string, perSecond: number) => HistoryHost,
    settings: VenueKindSettings,
    now: () => number,
  ): VenueHistory
}

const kalshi: VenueKind = {
  name: 'kalshi',
  defaultSeries: 'KXBTC15M',
  strikeUnset: 'not set',
  usesKey: true,
  checkSeries: (series, settings, deps, credentials) =>
    checkKalshiSeries({
      baseUrl: settings.kalshiBaseUrl,
      series,
      clock: deps.wallClock,
      logger: deps.logger,
      ...(credentials ? { credentials } : {}),
    }),
  createLive(series, settings, deps, credentials, recorder) {
    const { telemetry } = deps
    // with a key, the venue's WebSocket: lifecycle events and BRTI on top of REST polling (decisions §8)
    const socket = credentials
      ? createKalshiSocket({
          url: socketUrlFor(settings.kalshiBaseUrl),
          signer: createRequestSigner(credentials),
          clock: deps.wallClock,
          logger: deps.logger,
          ...(telemetry ? { telemetry } : {}),
        })
      : null
    const venue = createKalshiVenue({
      baseUrl: settings.kalshiBaseUrl,
      ...(socket ? { socket } : {}),
      series,
      pollMs: settings.kalshiPollS * 1000,
      wallClock: deps.wallClock,
      logger: deps.logger,
      ...(telemetry ? { telemetry } : {}),
      ...(credentials ? { credentials } : {}),
      ...(recorder
        ? {
            tap: {
              market: recorder.market,
              book: (ticker: string, body: unknown, at: number) => recorder.book(ticker, body, undefined, at),
              exchange: recorder.exchange,
            },
          }
        : {}),
    })
    return {
      venue,
      baseUrl: settings.kalshiBaseUrl,
      index: socket,
      ...(credentials
        ? {
            entitlement: () =>
              probeIndexEntitlement(
                createKalshiClient({
                  baseUrl: settings.kalshiBaseUrl,
                  clock: deps.wallClock,
                  logger: deps.logger,
                  signer: createRequestSigner(credentials),
                  ...(telemetry ? { telemetry } : {}),
                }),
                'BRTI',
              ),
          }
        : {}),
    }
  },
  recorded: recordedKalshi,
  simTapeHeader: (opts) => simTapeHeader(opts),
  writeSimTape: (opts, sink) => writeSimTape(opts, sink),
  createHistory: (series, host, settings, now) =>
    createKalshiHistory({
      host: host('kalshi', settings.kalshiBaseUrl, KALSHI_REQUESTS_PER_SEC),
      series,
      now,
    }),
}

const polymarket: VenueKind = {
  name: 'polymarket',
  defaultSeries: 'btc-updown-15m',
  // the price to beat is published only after the window (venue facts §3.3.3)
  strikeUnset: 'not yet published',
  usesKey: false,
  checkSeries: (series, settings, deps) =>
    checkPolymarketSeries({
      gammaUrl: settings.polymarketGammaUrl,
      clobUrl: settings.polymarketClobUrl,
      series,
      clock: deps.wallClock,
      logger: deps.logger,
    }),
  createLive(_series, settings, deps, _credentials, recorder) {
    // recording (decisions §12): every Gamma event body and every token's /book body as received
    const tap = recorder
      ? {
          event: recorder.market,
          book: (ticker: string, token: string, body: unknown, at: number) =>
            recorder.book(ticker, body, token, at),
          noBook: recorder.noBook,
        }
      : undefined
    return {
      venue: createPolymarketVenueFor(settings, deps, tap),
      baseUrl: settings.polymarketGammaUrl,
      index: null,
    }
  },
  recorded: recordedPolymarket,
  // a Polymarket tape has the venue's one series, whatever SERIES says
  simTapeHeader: (opts) => polymarketSimTapeHeader(opts),
  writeSimTape: (opts, sink) => writePolymarketSimTape(opts, sink),
  createHistory: (series, host, settings) =>
    createPolymarketHistory({
      gamma: host('gamma', settings.polymarketGammaUrl, GAMMA_REQUESTS_PER_SEC),
      clob: host('clob', settings.polymarketClobUrl, CLOB_REQUESTS_PER_SEC),
      series,
    }),
}

/** The Polymarket venue as the settings describe it (decisions §14). */
export function createPolymarketVenueFor(
  settings: Pick<
    VenueKindSettings,
    'polymarketGammaUrl' | 'polymarketClobUrl' | 'polymarketPollS' | 'polymarketWeeklyRestart'
  >,
  deps: LiveDeps,
  tap?: PolymarketTap,
): Venue {
  return createPolymarketVenue({
    ...(tap ? { tap } : {}),
    gammaUrl: settings.polymarketGammaUrl,
    clobUrl: settings.polymarketClobUrl,
    pollMs: settings.polymarketPollS * 1000,
    weeklyRestart: settings.polymarketWeeklyRestart,
    wallClock: deps.wallClock,
    logger: deps.logger,
    ...(deps.telemetry ? { telemetry: deps.telemetry } : {}),
  })
}

export const VENUE_KINDS: Readonly<Record<RealVenueName, VenueKind>> = { kalshi, polymarket }

/** The kind of the real venue named `name`, else null (the simulator and unknown names). */
export function venueKind(name: string): VenueKind | null {
  return Object.hasOwn(VENUE_KINDS, name) ? VENUE_KINDS[name as RealVenueName] : null
}

/** The replay's venue for a tape of `kind`: the one tape venue, on that venue's own market book. */
export function tapeVenueOf(kind: VenueKind, opts: TapeVenueOptions): TapeVenue {
  return createTapeVenue(opts, (logger) => kind.recorded(opts.series, logger))
}

/** The real venues' names, for messages that list them. */
export const REAL_VENUE_NAMES = Object.keys(VENUE_KINDS) as RealVenueName[]
