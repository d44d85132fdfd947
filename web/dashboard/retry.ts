// How the dashboard waits before trying a call or the stream again, and how it says so. A 429 (or a
// 503) is waited out for its Retry-After plus jitter; a service that cannot be reached at all is tried
// again after a second plus an exponential, capped, jittered backoff. Nothing gives up: a call waits
// until it is answered or until the page stops wanting it (a new key, "Forget key").

export type WaitReason = 'rate-limited' | 'unreachable' | 'unavailable' | 'ended'

export type Wait = {
  reason: WaitReason
  /** how long until the next try */
  ms: number
  /** the HTTP status that made it wait, when one did */
  status?: number
}

/** Backoff per attempt: 0.5 s doubling, capped at 10 s; full jitter (a random share of it). */
const BACKOFF_BASE_MS = 500
const BACKOFF_CAP_MS = 10_000
/** The least wait before trying a service that could not be reached. */
const UNREACHABLE_MS = 1000

export function backoffMs(attempt: number): number {
  return Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt)
}

/** Retry-After (whole seconds, docs/api-contract.md §8) in milliseconds: 1 s when absent or odd. */
export function retryAfterMs(res: Response): number {
  const seconds = Number(res.headers.get('retry-after') ?? '1')
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * 1000
}

/** How long a call waits before its `attempt`-th retry after `res` (null: the fetch itself failed). */
export function retryWait(res: Response | null, attempt: number): Wait {
  if (res === null) return { reason: 'unreachable', ms: UNREACHABLE_MS + backoffMs(attempt) }
  return {
    reason: res.status === 429 ? 'rate-limited' : 'unavailable',
    status: res.status,
    ms: retryAfterMs(res) + backoffMs(attempt),
  }
}

/** "rate limited; retrying in 3 s", with the seconds left of a wait that ends at `until`. */
export function waitText(wait: Wait, until: number, now = Date.now()): string {
  const retrying = `retrying in ${Math.max(0, Math.ceil((until - now) / 1000))} s`
  switch (wait.reason) {
    case 'rate-limited':
      return `rate limited; ${retrying}`
    case 'unreachable':
      return `the service cannot be reached; ${retrying}`
    case 'unavailable':
      return `the service answered HTTP ${wait.status ?? '?'}; ${retrying}`
    case 'ended':
      return `the service ended the stream; ${retrying}`
  }
}

/** Resolves after `ms`, or rejects as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
