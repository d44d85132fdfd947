// In-process token buckets (the embedded default): one GCRA number per client key. A full bucket is
// the same as no bucket, so sweeping full ones loses nothing; the size cap bounds memory when many
// distinct addresses appear. IPv4 keys arrive as int32 numbers and live in a typed-array hash table
// (ipv4-bucket-table.ts); the rest (IPv6 /64 prefixes) in a Float64Array indexed through a Map of
// slots: storing a new TAT in a Map would allocate a heap number per request, and with 100k+
// long-lived entries that garbage is promoted and costs full collections.
import { bucketIsFull, takeToken } from '../../domain/token-bucket.ts'
import type { BucketKey, BucketStore, TakeResult } from '../../ports/bucket-store.ts'
import type { Clock } from '../../ports/clock.ts'
import { createIpv4BucketTable } from './ipv4-bucket-table.ts'

export type MemoryBucketStoreOptions = {
  burst: number
  perSec: number
  /** the wall clock: rate limiting never runs on the simulator's virtual time */
  clock: Clock
  /** most buckets kept; past it full buckets are swept, then a sixteenth of the cap is dropped */
  maxEntries?: number
  /** how often (ms of clock time) a sweep of full buckets runs, at most */
  sweepEveryMs?: number
}

export type MemoryBucketStore = BucketStore & {
  takeNow(key: BucketKey): TakeResult
  /** buckets currently held (for tests and metrics) */
  size(): number
}

/** Share of the cap dropped at once when every bucket is in use, so the sweep before it runs once a batch. */
const EVICT_BATCH_SHARE = 1 / 16

export function createMemoryBucketStore(opts: MemoryBucketStoreOptions): MemoryBucketStore {
  const policy = { burst: opts.burst, perSec: opts.perSec }
  const maxEntries = opts.maxEntries ?? 100_000
  const sweepEveryMs = opts.sweepEveryMs ?? 60_000
  const evictBatch = Math.max(1, Math.floor(maxEntries * EVICT_BATCH_SHARE))
  const ipv4 = createIpv4BucketTable(maxEntries)
  /** other keys → slot in `tats` */
  const slots = new Map<string, number>()
  let tats = new Float64Array(1024)
  const free: number[] = []
  let used = 0
  let lastSweep = opts.clock.now()

  const held = () => ipv4.size() + slots.size

  function release(key: string, slot: number): void {
    slots.delete(key)
    free.push(slot)
  }

  function allocate(): number {
    const reused = free.pop()
    if (reused !== undefined) return reused
    if (used === tats.length) {
      const grown = new Float64Array(tats.length * 2)
      grown.set(tats)
      tats = grown
    }
    return used++
  }

  function sweep(now: number): void {
    lastSweep = now
    ipv4.sweep((tat) => bucketIsFull(tat, now))
    for (const [key, slot] of slots) if (bucketIsFull(tats[slot]!, now)) release(key, slot)
  }

  function makeRoom(now: number): void {
    sweep(now)
    if (held() < maxEntries) return
    // Still over the cap: every bucket is in use. Dropping some hands those clients a fresh bucket,
    // the price of bounded memory under an address flood; a batch at once, so that a flood of
    // addresses costs one sweep per batch rather than one per request.
    let excess = held() - maxEntries + evictBatch
    for (const [key, slot] of slots) {
      if (excess <= 0) break
      release(key, slot)
      excess--
    }
    if (excess > 0) ipv4.evict(excess)
  }

  function takeNow(key: BucketKey): TakeResult {
    const now = opts.clock.now()
    if (now - lastSweep >= sweepEveryMs) sweep(now)
    if (typeof key === 'number') {
      const tat = ipv4.get(key)
      const step = takeToken(tat, now, policy)
      if (step.allowed) {
        if (tat === undefined && held() >= maxEntries) makeRoom(now)
        ipv4.set(key, step.tat)
      }
      return { allowed: step.allowed, remaining: step.remaining, retryAfterS: step.retryAfterS }
    }
    let slot = slots.get(key)
    const step = takeToken(slot === undefined ? undefined : tats[slot], now, policy)
    if (step.allowed) {
      if (slot === undefined) {
        if (held() >= maxEntries) makeRoom(now)
        slot = allocate()
        slots.set(key, slot)
      }
      tats[slot] = step.tat
    }
    return { allowed: step.allowed, remaining: step.remaining, retryAfterS: step.retryAfterS }
  }

  return {
    takeNow,
    async take(key) {
      return takeNow(key)
    },
    health() {
      return 'ok'
    },
    async close() {
      ipv4.clear()
      slots.clear()
      free.length = 0
      used = 0
    },
    size() {
      return held()
    },
  }
}
