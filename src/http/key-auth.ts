// API key checks (RFC 6750, decisions §4 and §7): the Bearer token's SHA-256 digest is looked up
// through an in-memory cache, so a request costs one hash and one Map read. key.changed events
// from the log clear the cache at once; entries also expire after a few seconds, so a revoked key
// stops working within 5 s on every replica even if an event is late. Last use is recorded in
// memory, to the second, and written in batches. Keys are never logged.

import type { ApiKeyRecord } from '../domain/api-key.ts'
import { digestKey, looksLikeKey } from '../domain/api-key.ts'
import { createOutageLog } from '../platform/outage-log.ts'
import type { Clock } from '../ports/clock.ts'
import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'
import type { LogFollower } from '../stream/log-follower.ts'

export type AuthResult = { ok: true; keyId: string } | { ok: false; reason: 'missing' | 'invalid' }

export type KeyAuth = {
  check(authorization: string | undefined): Promise<AuthResult>
  /**
   * The same check, answered synchronously when the key cache (or this connection's memo) already
   * knows the answer; a promise only when the store must be asked. `connection` is the request's
   * socket: it remembers its last Authorization value and verdict for as long as the cache entry
   * behind it is valid (at most positiveTtlMs) and no key.changed event has arrived since, so a
   * memo never outlives its connection nor delays a revocation past the cache's own bound.
   */
  checkNow(authorization: string | undefined, connection?: object): AuthResult | Promise<AuthResult>
  /** Writes recorded last-use times to the store. */
  flush(): Promise<void>
  /** Stops the timer, unsubscribes and flushes. */
  close(): Promise<void>
}

export type KeyAuthOptions = {
  store: Store
  follower?: LogFollower
  /** wall clock: cache expiry */
  wallClock: Clock
  /** service clock: the last-used time written for operators */
  clock: Clock
  logger: Pick<Logger, 'warn'>
  /** how long a found key is trusted without asking the store again */
  positiveTtlMs?: number
  /** how long "no such key" is remembered */
  negativeTtlMs?: number
  flushEveryMs?: number
  maxEntries?: number
}

type CacheEntry = { record: ApiKeyRecord | null; expiresAt: number }

/** A connection's last Authorization value and its verdict. */
type ConnectionMemo = {
  header: string
  result: AuthResult
  keyId: string | null
  expiresAt: number
  generation: number
  /** wall time this connection's use was last recorded */
  usedAt: number
}

/**
 * A connection's use of its key is recorded at most this often (wall ms): last use is kept to the
 * second, and a request answered from the memo then reads no clock of its own (a Date.now() costs
 * about 170 ns on a virtual machine) and writes no map.
 */
const USE_RECORDED_EVERY_MS = 1000

const MISSING: AuthResult = { ok: false, reason: 'missing' }
const INVALID: AuthResult = { ok: false, reason: 'invalid' }

export type BearerToken = { kind: 'missing' } | { kind: 'malformed' } | { kind: 'token'; token: string }

/** Reads `Authorization: Bearer <token>`; the scheme is case-insensitive (RFC 9110 §11.1). */
export function parseBearer(header: string | undefined): BearerToken {
  if (header === undefined || header.trim() === '') return { kind: 'missing' }
  const match = /^bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(header)
  return match ? { kind: 'token', token: match[1]! } : { kind: 'malformed' }
}

export function createKeyAuth(opts: KeyAuthOptions): KeyAuth {
  const { store, wallClock, clock, logger } = opts
  const positiveTtlMs = opts.positiveTtlMs ?? 4000
  const negativeTtlMs = opts.negativeTtlMs ?? 2000
  const maxEntries = opts.maxEntries ?? 10_000
  const cache = new Map<string, CacheEntry>()
  const inflight = new Map<string, Promise<ApiKeyRecord | null>>()
  const lastUsed = new Map<string, number>()
  const memos = new WeakMap<object, ConnectionMemo>()
  const verdicts = new Map<string, AuthResult>()
  let generation = 0

  const unsubscribe = opts.follower?.onEvents((events) => {
    // Keys change rarely, so clearing everything beats keeping an id → digest index.
    if (events.some((e) => e.type === 'key.changed')) {
      cache.clear()
      inflight.clear()
      verdicts.clear()
      generation++
    }
  })

  // a store that is down fails every flush (every 10 s): logged as an outage, not a stack per flush
  const warn = (fields: Record<string, unknown>, message: string): void => logger.warn(fields, message)
  const touchOutage = createOutageLog(wallClock, {
    what: 'recording API key last use',
    started: 'recording API key last use failed',
    fail: warn,
    recover: warn,
  })

  const timer = setInterval(() => void flush(), opts.flushEveryMs ?? 10_000)
  timer.unref()

  function verdictOf(record: ApiKeyRecord | null): AuthResult {
    if (!record || record.revokedAt !== null) return INVALID
    lastUsed.set(record.id, clock.now())
    let ok = verdicts.get(record.id)
    if (!ok) {
      ok = { ok: true, keyId: record.id }
      verdicts.set(record.id, ok)
    }
    return ok
  }

  function checkNow(
    authorization: string | undefined,
    connection?: object,
  ): AuthResult | Promise<AuthResult> {
    const now = wallClock.now()
    if (connection !== undefined && authorization !== undefined) {
      const memo = memos.get(connection)
      if (memo && memo.header === authorization && memo.generation === generation && memo.expiresAt > now) {
        if (memo.keyId !== null && now - memo.usedAt >= USE_RECORDED_EVERY_MS) {
          lastUsed.set(memo.keyId, clock.now())
          memo.usedAt = now
        }
        return memo.result
      }
    }
    const bearer = parseBearer(authorization)
    if (bearer.kind === 'missing') return MISSING
    // Malformed tokens never reach the store or the cache.
    if (bearer.kind === 'malformed' || !looksLikeKey(bearer.token)) return INVALID
    const digest = digestKey(bearer.token)
    const hit = cache.get(digest)
    if (hit && hit.expiresAt > now) {
      const result = verdictOf(hit.record)
      if (connection !== undefined && authorization !== undefined) {
        memos.set(connection, {
          header: authorization,
          result,
          keyId: result.ok ? result.keyId : null,
          expiresAt: hit.expiresAt,
          generation,
          usedAt: now,
        })
      }
      return result
    }
    return lookup(digest).then(verdictOf)
  }

  function lookup(digest: string): Promise<ApiKeyRecord | null> {
    const now = wallClock.now()
    const hit = cache.get(digest)
    if (hit && hit.expiresAt > now) return Promise.resolve(hit.record)
    const pending = inflight.get(digest)
    if (pending) return pending
    const read = readSettled(digest).then((record) => {
      if (cache.size >= maxEntries) cache.clear()
      const ttl = record ? positiveTtlMs : negativeTtlMs
      cache.set(digest, { record, expiresAt: wallClock.now() + ttl })
      return record
    })
    const tracked = read.finally(() => {
      if (inflight.get(digest) === tracked) inflight.delete(digest)
    })
    inflight.set(digest, tracked)
    return tracked
  }

  /**
   * The key's record as of a read no key.changed event overtook. An overtaken read may predate a
   * revocation the event announced: its answer would admit a request (a stream, above all) after
   * the event that should have refused or ended it was handled — a stream would then outlive its
   * key for good. Keys change rarely, so reading again until no event lands meanwhile ends at once.
   */
  async function readSettled(digest: string): Promise<ApiKeyRecord | null> {
    for (;;) {
      const startedAt = generation
      const record = await store.findKeyByDigest(digest)
      if (startedAt === generation) return record
    }
  }

  async function flush(): Promise<void> {
    if (lastUsed.size === 0) return
    const batch = new Map(lastUsed)
    lastUsed.clear()
    try {
      await store.touchKeys(batch)
      touchOutage.succeeded()
    } catch (err) {
      // Last use is bookkeeping for operators; losing one batch must not fail requests.
      touchOutage.failed(err)
      for (const [id, at] of batch) if (!lastUsed.has(id)) lastUsed.set(id, at)
    }
  }

  return {
    async check(authorization) {
      return checkNow(authorization)
    },
    checkNow,
    flush,
    async close() {
      clearInterval(timer)
      unsubscribe?.()
      await flush()
    },
  }
}
