// Contest, active-contest and history responses kept as pre-serialized representations (JSON of
// toContestView, strong ETag) until the event log says their data changed. Each entry carries tags
// (`t:<ticker>`, `s:<series>`); every stored event, internal ones included, drops the entries tagged
// with its ticker and series. A generation counter guards the race where an invalidation lands while
// a store read is in flight: such a read is served but not kept, so a stale entry is never stored.
import type { Contest } from '../domain/contest.ts'
import { toContestView } from '../domain/contest-view.ts'
import type { StoredEvent } from '../domain/events.ts'
import type { HistoryQuery, Store } from '../ports/store.ts'
import type { LogFollower } from '../stream/log-follower.ts'
import { createRepresentation, type Representation } from './representation.ts'

export type ContestCache = {
  /** The contest with this ticker, or null. */
  contest(ticker: string): Promise<Representation | null>
  /** The live contest selected by `series` (a live contest's ticker, else the series), or null. */
  active(series: string): Promise<Representation | null>
  /** `{contests: [...]}` of settled contests, newest first. */
  history(query: HistoryQuery): Promise<Representation>
  /**
   * What the cache holds under `key` (see `contestKey`, `activeKey`, `historyKey`) right now,
   * without loading anything, or undefined. The handle stays valid while `live` is true, so a caller
   * may keep it (the fast path memoizes it per URL) instead of looking it up again.
   */
  peek(key: string): CachedEntry | undefined
  /** Drops what these events make stale (the follower calls it; exposed for tests). */
  invalidate(events: readonly Pick<StoredEvent, 'type' | 'series' | 'ticker'>[]): void
  stats(): { entries: number; bytes: number }
  close(): void
}

export type ContestCacheOptions = {
  store: Store
  follower?: LogFollower
  /** bytes of bodies held, compressed variants estimated in (default 64 MiB) */
  maxBytes?: number
  maxEntries?: number
}

/** A cached answer: a representation, or null for "no such contest". */
export type CachedEntry = {
  readonly rep: Representation | null
  /** false once the entry has been dropped (invalidated or evicted) */
  readonly live: boolean
}

type Entry = {
  rep: Representation | null
  tags: readonly string[]
  cost: number
  live: boolean
  used: boolean
}

export const contestKey = (ticker: string): string => `c\0${ticker}`
export const activeKey = (series: string): string => `a\0${series}`
export const historyKey = (query: HistoryQuery): string =>
  `h\0${query.series}\0${query.limit}\0${query.since ?? ''}\0${query.before ?? ''}`
type Loaded = { rep: Representation | null; tags: string[] }

const JSON_TYPE = 'application/json; charset=utf-8'
/** Answers that found nothing; an import can make a ticker exist without naming it in its event. */
const MISS_TAG = 'miss'
const ENTRY_OVERHEAD = 256

export function createContestCache(opts: ContestCacheOptions): ContestCache {
  const { store } = opts
  const maxBytes = opts.maxBytes ?? 64 * 1024 * 1024
  const maxEntries = opts.maxEntries ?? 20_000
  // Map order is insertion; a hit only marks its entry used (no re-insertion on the hot path), and
  // eviction gives a used entry at the front a second chance by moving it to the back (CLOCK).
  const entries = new Map<string, Entry>()
  const byTag = new Map<string, Set<string>>()
  const inflight = new Map<string, Promise<Representation | null>>()
  let generation = 0
  let bytes = 0

  function remove(key: string): void {
    const entry = entries.get(key)
    if (!entry) return
    entries.delete(key)
    entry.live = false
    bytes -= entry.cost
    for (const tag of entry.tags) {
      const keys = byTag.get(tag)
      keys?.delete(key)
      if (keys?.size === 0) byTag.delete(tag)
    }
  }

  function put(key: string, { rep, tags }: Loaded): void {
    remove(key)
    // Identity bytes plus room for the gzip/br variants that are compressed on first demand.
    const cost = ENTRY_OVERHEAD + key.length + (rep ? rep.body.length * 2 : 0)
    if (cost > maxBytes) return
    entries.set(key, { rep, tags, cost, live: true, used: false })
    bytes += cost
    for (const tag of tags) {
      const keys = byTag.get(tag)
      if (keys) keys.add(key)
      else byTag.set(tag, new Set([key]))
    }
    let chances = entries.size
    while (bytes > maxBytes || entries.size > maxEntries) {
      const [oldest, entry] = entries.entries().next().value as [string, Entry]
      if (entry.used && chances-- > 0) {
        entry.used = false
        entries.delete(oldest)
        entries.set(oldest, entry)
      } else remove(oldest)
    }
  }

  function lookup(key: string, loader: () => Promise<Loaded>): Promise<Representation | null> {
    const hit = entries.get(key)
    if (hit) {
      hit.used = true
      return Promise.resolve(hit.rep)
    }
    // Concurrent misses share one store read, so a new signal does not stampede the store.
    const pending = inflight.get(key)
    if (pending) return pending
    const startedAt = generation
    const read = loader()
      .then((loaded) => {
        if (startedAt === generation) put(key, loaded)
        return loaded.rep
      })
      .finally(() => {
        if (inflight.get(key) === read) inflight.delete(key)
      })
    inflight.set(key, read)
    return read
  }

  function dropTag(tag: string): void {
    const keys = byTag.get(tag)
    if (keys) for (const key of [...keys]) remove(key)
  }

  function invalidate(events: readonly Pick<StoredEvent, 'type' | 'series' | 'ticker'>[]): void {
    let touched = false
    for (const event of events) {
      if (event.ticker) dropTag(`t:${event.ticker}`)
      if (event.series) dropTag(`s:${event.series}`)
      if (event.type === 'history.imported') dropTag(MISS_TAG)
      touched ||= Boolean(event.ticker || event.series)
    }
    if (touched) {
      generation++
      // A read that started before this invalidation may return what it just made stale;
      // later requests must not join it.
      inflight.clear()
    }
  }

  const contestRep = (c: Contest) => createRepresentation(JSON.stringify(toContestView(c)), JSON_TYPE)

  const unsubscribe = opts.follower?.onEvents(invalidate)

  return {
    contest(ticker) {
      return lookup(contestKey(ticker), async () => {
        const c = await store.getContest(ticker)
        if (!c) return { rep: null, tags: [`t:${ticker}`, MISS_TAG] }
        return { rep: contestRep(c), tags: [`t:${ticker}`, `s:${c.series}`] }
      })
    },
    active(series) {
      return lookup(activeKey(series), async () => {
        const byTicker = await store.getContest(series)
        const live = byTicker?.state === 'live' ? byTicker : await store.getLiveContest(series)
        const tags = [`s:${series}`, `t:${series}`]
        if (!live) return { rep: null, tags: [...tags, MISS_TAG] }
        return { rep: contestRep(live), tags: [...tags, `s:${live.series}`, `t:${live.ticker}`] }
      })
    },
    async history(query) {
      const rep = await lookup(historyKey(query), async () => {
        const contests = await store.listSettled(query)
        const json = JSON.stringify({ contests: contests.map(toContestView) })
        return { rep: createRepresentation(json, JSON_TYPE), tags: [`s:${query.series}`] }
      })
      return rep!
    },
    peek(key) {
      const hit = entries.get(key)
      if (hit) hit.used = true
      return hit
    },
    invalidate,
    stats: () => ({ entries: entries.size, bytes }),
    close() {
      unsubscribe?.()
      entries.clear()
      byTag.clear()
      inflight.clear()
      bytes = 0
    },
  }
}
