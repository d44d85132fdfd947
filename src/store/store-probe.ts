// Whether the store answers, and when an engine last wrote, asked at most about once a second however
// many health checks and error paths want to know.
import { FEED_STATUS_SETTING, FEEDS_OK, type FeedChecks, feedChecks } from '../domain/feed-status.ts'
import type { Clock } from '../ports/clock.ts'
import type { Store } from '../ports/store.ts'
import type { StoreCondition, StoreFaults } from './store-faults.ts'

export type StoreStatus = {
  reachable: boolean
  /** what this process's own calls of the store have met (store-faults.ts) */
  condition: StoreCondition
  engineHeartbeat: number | null
  /** the engine's last report on the venue and the spot sources (see domain/feed-status.ts) */
  feeds: FeedChecks
}

export type StoreProbe = { read(): Promise<StoreStatus> }

export function createStoreProbe(opts: {
  store: Store
  wallClock: Clock
  ttlMs?: number
  faults?: StoreFaults
}): StoreProbe {
  const condition = (): StoreCondition => opts.faults?.condition() ?? 'ok'
  const ttlMs = opts.ttlMs ?? 1000
  let cached: { status: StoreStatus; at: number } | undefined
  let pending: Promise<StoreStatus> | undefined

  async function ask(): Promise<StoreStatus> {
    try {
      await opts.store.ping()
      const [engineHeartbeat, feeds] = await Promise.all([
        opts.store.lastEngineHeartbeat(),
        opts.store.getSetting(FEED_STATUS_SETTING),
      ])
      return { reachable: true, condition: condition(), engineHeartbeat, feeds: feedChecks(feeds) }
    } catch {
      return { reachable: false, condition: condition(), engineHeartbeat: null, feeds: FEEDS_OK }
    }
  }

  return {
    read() {
      const now = opts.wallClock.now()
      if (cached && now - cached.at < ttlMs) return Promise.resolve(cached.status)
      pending ??= ask()
        .then((status) => {
          cached = { status, at: opts.wallClock.now() }
          return status
        })
        .finally(() => {
          pending = undefined
        })
      return pending
    },
  }
}
