// One Kalshi adapter test world: a fixture venue on a loopback port, the real adapter polling it,
// and recorded logs and telemetry. Each test builds its own and closes it.
import { createKalshiVenue, type KalshiVenueOptions } from '../../src/feeds/kalshi/kalshi-venue.ts'
import type { Venue } from '../../src/ports/venue.ts'
import {
  type KalshiFixture,
  type KalshiFixtureOptions,
  startKalshiFixture,
} from '../fixtures/kalshi-fixture.ts'
import { type VenueRecords, venueRecording } from './venue-recording.ts'
import { waitUntil } from './wait.ts'

export const SERIES = 'KXBTC15M'
export const MINUTE = 60_000

export type KalshiVenueWorld = VenueRecords & {
  kalshi: KalshiFixture
  venue: Venue
  /** requests the fixture saw for one path, optionally with one query value */
  requestsTo(path: string, query?: Record<string, string>): KalshiFixture['requests']
  /** resolves after the adapter has completed `count` more polls (seen as new close-window listings) */
  polls(count?: number): Promise<void>
  close(): Promise<void>
}

export async function startKalshiVenueWorld(
  opts: {
    fixture?: KalshiFixtureOptions
    /** runs before the venue starts, so its first poll already sees these markets */
    seed?: (kalshi: KalshiFixture) => void
    venue?: Partial<KalshiVenueOptions>
  } = {},
): Promise<KalshiVenueWorld> {
  const kalshi = await startKalshiFixture(opts.fixture)
  opts.seed?.(kalshi)
  const recording = venueRecording()
  const venue = createKalshiVenue({
    baseUrl: kalshi.baseUrl,
    series: [SERIES],
    pollMs: 150,
    wallClock: { now: () => Date.now() },
    logger: recording.logger,
    telemetry: recording.telemetryPort,
    maxRequestsPerSec: 100,
    backoff: { baseMs: 20, capMs: 200 },
    ...opts.venue,
  })
  const requestsTo: KalshiVenueWorld['requestsTo'] = (path, query = {}) =>
    kalshi.requests.filter(
      (r) => r.path === `/trade-api/v2${path}` && Object.entries(query).every(([k, v]) => r.query[k] === v),
    )
  // each poll starts each series with one close-window listing
  const openListings = () =>
    requestsTo('/markets').filter((r) => r.query.min_close_ts !== undefined && !r.query.cursor).length
  await venue.start()
  return {
    kalshi,
    venue,
    logs: recording.logs,
    telemetry: recording.telemetry,
    rejected: recording.rejected,
    requestsTo,
    async polls(count = 1) {
      // a poll has finished once the next one has started its first listing
      const target = openListings() + count
      await waitUntil(() => openListings() >= target, `${count} more polls`)
    },
    async close() {
      await venue.close()
      await kalshi.close()
    },
  }
}
