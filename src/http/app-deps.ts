// Everything buildApp needs, chosen and built by the composition root (src/main/).
import type { Logger } from 'pino'
import type { BucketStore } from '../ports/bucket-store.ts'
import type { Clock } from '../ports/clock.ts'
import type { Store } from '../ports/store.ts'
import type { StoreFaults } from '../store/store-faults.ts'
import type { StoreOutage } from '../store/store-outage.ts'
import type { LogFollower } from '../stream/log-follower.ts'
import type { StreamHub } from '../stream/stream-hub.ts'
import type { AppSettings } from './app-settings.ts'
import type { RequestMetrics } from './request-metrics.ts'
import type { WebAssets } from './web-assets.ts'

export type AppDeps = {
  settings: AppSettings
  store: Store
  buckets: BucketStore
  follower: LogFollower
  streams: StreamHub
  /** service clock: virtual when SIM_SPEED > 1; used for timestamps the api returns */
  clock: Clock
  /** wall clock: rate limiting, timeouts */
  wallClock: Clock
  logger: Logger
  version: string
  /** request counts for the metrics port; absent when METRICS_PORT is unset (and in tests) */
  metrics?: RequestMetrics
  /** the /docs and /dashboard pages; absent in tests that do not serve them */
  webAssets?: WebAssets
  /** what the process's own store calls have met (health's checks.store) */
  storeFaults: StoreFaults
  /** the store's outage in the log, shared with the stream hub: the 503s count in it */
  storeOutage: Pick<StoreOutage, 'failed'>
}
