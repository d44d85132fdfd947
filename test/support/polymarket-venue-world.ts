// One Polymarket adapter test world: the fixture's Gamma and CLOB on a loopback port, the real
// adapter polling them on a clock the test can move ahead of the wall clock (the windows are the UTC
// quarter hours, so "later" is reached by moving the adapter's clock), and recorded logs and telemetry.
import {
  createPolymarketVenue,
  type PolymarketVenueOptions,
} from '../../src/feeds/polymarket/polymarket-venue.ts'
import type { Venue } from '../../src/ports/venue.ts'
import { type PolymarketFixture, startPolymarketFixture } from '../fixtures/polymarket-fixture.ts'
import { type VenueRecords, venueRecording } from './venue-recording.ts'
import { waitFor } from './wait.ts'

export type PolymarketVenueWorld = VenueRecords & {
  pm: PolymarketFixture
  venue: Venue
  /** the adapter's clock: the wall clock plus `shiftMs` */
  now(): number
  shift(ms: number): void
  /** requests the fixture saw to one path (`/gamma/events/slug/…`, `/clob/book`) */
  requestsTo(path: string | RegExp): PolymarketFixture['requests']
  /** resolves after the adapter has looked up `slug` `count` more times */
  lookups(slug: string, count?: number): Promise<void>
  close(): Promise<void>
}

export async function startPolymarketVenueWorld(
  opts: {
    seed?: (pm: PolymarketFixture) => void
    venue?: Partial<PolymarketVenueOptions>
    /** the adapter's clock starts this far from the wall clock */
    shiftMs?: number
  } = {},
): Promise<PolymarketVenueWorld> {
  const pm = await startPolymarketFixture()
  opts.seed?.(pm)
  const recording = venueRecording()
  let shiftMs = opts.shiftMs ?? 0
  const now = () => Date.now() + shiftMs
  const venue = createPolymarketVenue({
    gammaUrl: pm.gammaUrl,
    clobUrl: pm.clobUrl,
    pollMs: 150,
    wallClock: { now },
    logger: recording.logger,
    telemetry: recording.telemetryPort,
    gammaRequestsPerSec: 100,
    clobRequestsPerSec: 100,
    backoff: { baseMs: 20, capMs: 200 },
    ...opts.venue,
  })
  const requestsTo: PolymarketVenueWorld['requestsTo'] = (path) =>
    pm.requests.filter((r) => (typeof path === 'string' ? r.path === path : path.test(r.path)))
  await venue.start()
  return {
    pm,
    venue,
    now,
    shift(ms) {
      shiftMs += ms
    },
    logs: recording.logs,
    telemetry: recording.telemetry,
    rejected: recording.rejected,
    requestsTo,
    async lookups(slug, count = 1) {
      // polls read their slugs one after another, so a lookup's answer is in once the next begins
      const path = `/gamma/events/slug/${slug}`
      const target = requestsTo(path).length + count + 1
      await waitFor(`${count} more lookups of ${slug}`, () =>
        requestsTo(path).length >= target ? true : undefined,
      )
    },
    async close() {
      await venue.close()
      await pm.close()
    },
  }
}
