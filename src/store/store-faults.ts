// What the store's own failures say about it, for health (decisions §4): a write the disk refused
// (full, an I/O error, read-only) makes `checks.store` "degraded" until a write succeeds again; a
// page that does not parse makes it "corrupt" for the life of the process, and the request that met
// it is answered 503 like an unavailable store. Every call of the store goes through the watcher, so
// the engine's failing writes show in the health of the process that made them within a tick.
import type { Clock } from '../ports/clock.ts'
import { STORE_WRITES, type Store } from '../ports/store.ts'
import { StoreCorruptError, StoreUnavailableError } from '../ports/store-errors.ts'

export type StoreCondition = 'ok' | 'degraded' | 'corrupt'
export type StoreFaultKind = 'write' | 'corrupt'

export type StoreFaults = {
  condition(): StoreCondition
  /** when the current fault was first seen, and what it said (null while ok) */
  lastFault(): { kind: StoreFaultKind; since: number; message: string } | null
  /**
   * Runs `listener` after every call the store answered (of any caller: the event-log follower's
   * polls keep it coming while the store is up): how the api learns that a store outage is over.
   */
  onAnswered(listener: () => void): () => void
}

// SQLite primary result codes (node:sqlite's `errcode`, extended codes carry them in the low byte)
const SQLITE_WRITE_FAULTS = new Set([8 /* READONLY */, 10 /* IOERR */, 13 /* FULL */])
const SQLITE_CORRUPT_FAULTS = new Set([11 /* CORRUPT */, 26 /* NOTADB */])
// PostgreSQL SQLSTATEs: 53100 disk_full, 58030 io_error; XX001 data_corrupted, XX002 index_corrupted
const PG_WRITE_FAULTS = new Set(['53100', '58030'])
const PG_CORRUPT_FAULTS = new Set(['XX001', 'XX002'])

/** The kind of fault an error from either store is, or null when it says nothing of the store's disk. */
export function faultKindOf(err: unknown): StoreFaultKind | null {
  for (let e: unknown = err, depth = 0; e && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof StoreCorruptError) return 'corrupt'
    const { errcode, code } = e as { errcode?: unknown; code?: unknown }
    if (typeof errcode === 'number') {
      if (SQLITE_CORRUPT_FAULTS.has(errcode & 0xff)) return 'corrupt'
      if (SQLITE_WRITE_FAULTS.has(errcode & 0xff)) return 'write'
    }
    if (typeof code === 'string') {
      if (PG_CORRUPT_FAULTS.has(code)) return 'corrupt'
      if (PG_WRITE_FAULTS.has(code)) return 'write'
    }
  }
  return null
}

/** The store with every call watched, and what the watching has seen. */
export function watchStoreFaults(store: Store, clock: Clock): { store: Store; faults: StoreFaults } {
  let fault: { kind: StoreFaultKind; since: number; message: string } | null = null
  const answered = new Set<() => void>()
  const note = (kind: StoreFaultKind, err: unknown): void => {
    // corruption outranks a refused write, and stays
    if (fault?.kind === 'corrupt' || fault?.kind === kind) return
    fault = { kind, since: clock.now(), message: String((err as Error)?.message ?? err).split('\n')[0]! }
  }
  const watched = {} as Record<string, unknown>
  for (const name of Object.keys(store) as (keyof Store)[]) {
    const method = store[name]
    if (typeof method !== 'function') {
      watched[name] = method
      continue
    }
    watched[name] = async (...args: unknown[]) => {
      try {
        const result = await (method as (...a: unknown[]) => Promise<unknown>).apply(store, args)
        // a write that succeeds proves the disk takes writes again
        if (fault?.kind === 'write' && STORE_WRITES.has(name)) fault = null
        for (const listener of answered) listener()
        return result
      } catch (err) {
        const kind = faultKindOf(err)
        if (kind !== null) note(kind, err)
        // a damaged page is the store being unable to answer: 503, not a 500 (decisions §4)
        if (kind === 'corrupt' && !(err instanceof StoreUnavailableError))
          throw new StoreUnavailableError(`the store's data is damaged: ${fault?.message}`, { cause: err })
        throw err
      }
    }
  }
  return {
    store: watched as unknown as Store,
    faults: {
      condition: () => (fault === null ? 'ok' : fault.kind === 'corrupt' ? 'corrupt' : 'degraded'),
      lastFault: () => fault,
      onAnswered(listener) {
        answered.add(listener)
        return () => void answered.delete(listener)
      },
    },
  }
}
