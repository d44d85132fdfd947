// Contest, active-contest and history responses kept as pre-serialized representations (JSON of
// toContestView, strong ETag) until the event log says their data changed. Each entry carries tags
// (`t:<ticker>`, `s:<series>`); every stored event, internal ones included, drops the entries tagged
// with its ticker and series. A generation counter guards the race where an invalidation lands while
// a store read is in flight: such a read is served but not kept, so a stale entry is never stored.
// With the service clock, a contest is shown as the clock says it stands (decisions §3: `live` while
// opens_at ≤ now < expires_at): one the store still holds live past its expiry is `expired`, and is
// no series' active contest, from that instant — not from when the engine's next step writes it
// (a quarter of a second later, or never while no engine leads). Its entry is dropped at its expiry.
import { type Contest, isLiveAt } from '../domain/contest.ts'
import { toContestView } from '../domain/contest-view.ts'
import type { StoredEvent } from '../domain/events.ts'
import type { Clock } from '../ports/clock.ts'
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
  /**
   * Whether a kept handle still answers: not dropped, and (a live contest's) not past its expiry on
   * the service clock. The sweep drops such entries too, but up to `sweepMs` later.
   */
  holds(entry: CachedEntry): boolean
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
  /** the service clock: live contests are shown as it says they stand (see the top); none: as stored */
  clock?: Clock
  /** wall ms between checks for live entries past their expiry (default 50) */
  sweepMs?: number
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
  /** the service-clock instant the answer stops being true (a live contest's expiry), or Infinity */
  until: number
}

export const contestKey = (ticker: string): string => `c\0${ticker}`
export const activeKey = (series: string): string => `a\0${series}`
export const historyKey = (query: HistoryQuery): string =>
  `h\0${query.series}\0${query.limit}\0${query.since ?? ''}\0${query.before ?? ''}`
type Loaded = { rep: Representation | null; tags: string[]; until?: number }

const JSON_TYPE = 'application/json; charset=utf-8'
/** Answers that found nothing; an import can make a ticker exist without naming it in its event. */
const MISS_TAG = 'miss'
const ENTRY_OVERHEAD = 256

export function createContestCache(opts: ContestCacheOptions): ContestCache {
  const { store, clock } = opts
  const sweepMs = opts.sweepMs ?? 50
  const maxBytes = opts.maxBytes ?? 64 * 1024 * 1024
  const maxEntries = opts.maxEntries ?? 20_000
  // Map order is insertion; a hit only marks its entry used (no re-insertion on the hot path), and
  // eviction gives a used entry at the front a second chance by moving it to the back (CLOCK).
  const entries = new Map<string, Entry>()
  const byTag = new Map<string, Set<string>>()
  const inflight = new Map<string, Promise<Representation | null>>()
  let generation = 0
  let bytes = 0
  /** keys of entries that expire, and when (service clock) */
  const expiring = new Map<string, number>()
  let sweeper: NodeJS.Timeout | null = null

  function sweep(): void {
    const now = clock?.now() ?? Number.NEGATIVE_INFINITY
    for (const [key, until] of expiring) if (now >= until) remove(key)
    if (expiring.size === 0 && sweeper !== null) {
      clearInterval(sweeper)
      sweeper = null
    }
  }

  /** true while an entry's answer still holds on the service clock */
  const holds = (entry: Entry): boolean =>
    entry.until === Number.POSITIVE_INFINITY || clock!.now() < entry.until

  function remove(key: string): void {
    const entry = entries.get(key)
    if (!entry) return
    entries.delete(key)
    entry.live = false
    bytes -= entry.cost
    expiring.delete(key)
    for (const tag of entry.tags) {
      const keys = byTag.get(tag)
      keys?.delete(key)
      if (keys?.size === 0) byTag.delete(tag)
    }
  }

  function put(key: string, { rep, tags, until = Number.POSITIVE_INFINITY }: Loaded): void {
    remove(key)
    // Identity bytes plus room for the gzip/br variants that are compressed on first demand.
    const cost = ENTRY_OVERHEAD + key.length + (rep ? rep.body.length * 2 : 0)
    if (cost > maxBytes) return
    entries.set(key, { rep, tags, cost, live: true, used: false, until })
    bytes += cost
    if (until !== Number.POSITIVE_INFINITY) {
      expiring.set(key, until)
      // unref: a live entry waiting for its expiry never keeps the process alive
      sweeper ??= setInterval(sweep, sweepMs).unref()
    }
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
    if (hit && holds(hit)) {
      hit.used = true
      return Promise.resolve(hit.rep)
    }
    if (hit) remove(key)
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
  /** the contest as the service clock says it stands, and until when that holds */
  const asOfNow = (c: Contest): { contest: Contest; until?: number } => {
    if (c.state !== 'live' || clock === undefined) return { contest: c }
    return isLiveAt(c, clock.now())
      ? { contest: c, until: c.expiresAt }
      : { contest: { ...c, state: 'expired' } }
  }

  const unsubscribe = opts.follower?.onEvents(invalidate)

  return {
    contest(ticker) {
      return lookup(contestKey(ticker), async () => {
        const stored = await store.getContest(ticker)
        if (!stored) return { rep: null, tags: [`t:${ticker}`, MISS_TAG] }
        const { contest: c, until } = asOfNow(stored)
        return { rep: contestRep(c), tags: [`t:${ticker}`, `s:${c.series}`], until }
      })
    },
    active(series) {
      return lookup(activeKey(series), async () => {
        const byTicker = await store.getContest(series)
        const stored = byTicker?.state === 'live' ? byTicker : await store.getLiveContest(series)
        const tags = [`s:${series}`, `t:${series}`]
        const now = stored === null ? null : asOfNow(stored)
        // past its expiry it is no longer the series' live contest: none is until the next opens
        if (now === null || now.contest.state !== 'live') return { rep: null, tags: [...tags, MISS_TAG] }
        const live = now.contest
        return {
          rep: contestRep(live),
          tags: [...tags, `s:${live.series}`, `t:${live.ticker}`],
          until: now.until,
        }
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
      if (hit && !holds(hit)) {
        remove(key)
        return undefined
      }
      if (hit) hit.used = true
      return hit
    },
    holds: (entry) => entry.live && holds(entry as Entry),
    invalidate,
    stats: () => ({ entries: entries.size, bytes }),
    close() {
      unsubscribe?.()
      if (sweeper !== null) clearInterval(sweeper)
      sweeper = null
      expiring.clear()
      entries.clear()
      byTag.clear()
      inflight.clear()
      bytes = 0
    },
  }
}
