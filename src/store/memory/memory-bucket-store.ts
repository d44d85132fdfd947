// In-process token buckets (the embedded default): one GCRA number per client key in a Map. A full
// bucket is the same as no bucket, so sweeping full ones loses nothing; the size cap bounds memory
// when many distinct addresses appear.
import { bucketIsFull, takeToken } from '../../domain/token-bucket.ts'
import type { BucketStore, TakeResult } from '../../ports/bucket-store.ts'
import type { Clock } from '../../ports/clock.ts'

export type MemoryBucketStoreOptions = {
  burst: number
  perSec: number
  /** the wall clock: rate limiting never runs on the simulator's virtual time */
  clock: Clock
  /** most buckets kept; past it full buckets are swept, then the oldest are dropped */
  maxEntries?: number
  /** how often (ms of clock time) a sweep of full buckets runs, at most */
  sweepEveryMs?: number
}

export type MemoryBucketStore = BucketStore & {
  /** buckets currently held (for tests and metrics) */
  size(): number
}

export function createMemoryBucketStore(opts: MemoryBucketStoreOptions): MemoryBucketStore {
  const policy = { burst: opts.burst, perSec: opts.perSec }
  const maxEntries = opts.maxEntries ?? 100_000
  const sweepEveryMs = opts.sweepEveryMs ?? 60_000
  const buckets = new Map<string, number>()
  let lastSweep = opts.clock.now()

  function sweep(now: number): void {
    lastSweep = now
    for (const [key, tat] of buckets) if (bucketIsFull(tat, now)) buckets.delete(key)
  }

  function makeRoom(now: number): void {
    sweep(now)
    // Still over the cap: every bucket is in use. Dropping the least recently inserted ones hands
    // those clients a fresh bucket, which is the price of bounded memory under an address flood.
    for (const key of buckets.keys()) {
      if (buckets.size < maxEntries) break
      buckets.delete(key)
    }
  }

  return {
    async take(key: string): Promise<TakeResult> {
      const now = opts.clock.now()
      if (now - lastSweep >= sweepEveryMs) sweep(now)
      const step = takeToken(buckets.get(key), now, policy)
      if (step.allowed) {
        if (!buckets.has(key) && buckets.size >= maxEntries) makeRoom(now)
        buckets.set(key, step.tat)
      }
      return { allowed: step.allowed, remaining: step.remaining, retryAfterS: step.retryAfterS }
    },
    health() {
      return 'ok'
    },
    async close() {
      buckets.clear()
    },
    size() {
      return buckets.size
    },
  }
}
