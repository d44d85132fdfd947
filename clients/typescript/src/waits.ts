// How long to wait before trying again (decisions §7 of the API contract: treat 429 as retryable,
// wait Retry-After seconds, then back off exponentially with jitter), and an abortable sleep.

/** Retry-After as the service sends it (whole seconds), or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null) return null
  const trimmed = header.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const at = Date.parse(trimmed)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}

/**
 * The wait before retry number `attempt` (0 for the first): `baseMs` doubled per attempt and capped at
 * `maxMs`, but never less than what the server asked (a retry before Retry-After only meets another
 * 429), plus up to a quarter second of jitter so clients refused together do not come back together.
 */
export function backoffMs(attempt: number, askedMs: number | null, baseMs: number, maxMs: number): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** attempt)
  return Math.max(askedMs ?? 0, exponential) + Math.floor(Math.random() * 250)
}

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export const sleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
