// Where the rate limiter keeps its token buckets: in process (embedded default) or Redis (shared by
// every api replica). One call per counted request; the implementation must be atomic per key.
export type TakeResult = {
  allowed: boolean
  /** whole tokens left after this request (0 when refused) */
  remaining: number
  /** seconds until one token is available, rounded up, at least 1 (meaningful when refused) */
  retryAfterS: number
}

/**
 * A bucket's key: the client's address as `bucketKeyOf` gives it, a number for IPv4 (so the hot
 * path builds no string per request), a string otherwise.
 */
export type BucketKey = string | number

export interface BucketStore {
  take(key: BucketKey): Promise<TakeResult>
  /**
   * The same step answered synchronously, for an in-process store (no promise, no microtask on the
   * hot path); absent when the step needs I/O.
   */
  takeNow?(key: BucketKey): TakeResult
  /** "ok", or "degraded" when a shared store is unreachable and the bucket runs in process. */
  health(): 'ok' | 'degraded'
  close(): Promise<void>
}
