// One backoff shared by every request to one host. A 429 (or a run of 5xx) says the host as a whole
// is overloaded: if each request only retried on its own, the polls and quotes that keep starting
// meanwhile would make a burst of 429s speed the client up. Every request waits here first, so the
// whole client slows down until the host answers normally again.
import type { Clock } from '../../ports/clock.ts'
import type { Sleep } from './request-pacer.ts'
import type { BackoffOptions } from './retry-backoff.ts'

/** This many 5xx in a row (no success between) slow the host down as one 429 does. */
export const SERVER_ERRORS_BEFORE_BACKOFF = 3

export type HostBackoff = {
  /** Resolves once the host may be asked again; rejects if `signal` aborts first. */
  wait(signal?: AbortSignal): Promise<void>
  /** One answer's HTTP status (or `timeout`, `error`), with the `Retry-After` it carried. */
  answered(status: string, retryAfterMs?: number): void
}

/**
 * The pause after the n-th overload signal in a row: half fixed, half jittered ("equal jitter"), so
 * the host gets a real rest every time while clients still spread out; never under `Retry-After`
 * (bounded by `retryAfterCapMs`).
 */
export function hostPauseMs(
  streak: number,
  opts: BackoffOptions,
  random: () => number,
  retryAfterMs = 0,
  retryAfterCapMs = Number.POSITIVE_INFINITY,
): number {
  const ceiling = Math.min(opts.capMs, opts.baseMs * 2 ** Math.max(0, streak - 1))
  return Math.max(Math.floor(ceiling / 2 + (random() * ceiling) / 2), Math.min(retryAfterMs, retryAfterCapMs))
}

export function createHostBackoff(opts: {
  clock: Clock
  sleep: Sleep
  backoff: BackoffOptions
  random: () => number
  retryAfterCapMs: number
}): HostBackoff {
  let pausedUntil = Number.NEGATIVE_INFINITY
  let overloads = 0
  let serverErrors = 0
  return {
    async wait(signal) {
      // once: a pause extended meanwhile is waited by the requests that come after it
      const rest = pausedUntil - opts.clock.now()
      if (rest > 0) await opts.sleep(Math.ceil(rest), signal)
    },
    answered(status, retryAfterMs) {
      // a timeout or a network error says nothing of the host's load: it neither counts nor ends a streak
      if (status === 'timeout' || status === 'error') return
      const serverError = /^5\d\d$/.test(status)
      serverErrors = serverError ? serverErrors + 1 : 0
      const overloaded = status === '429' || (serverError && serverErrors >= SERVER_ERRORS_BEFORE_BACKOFF)
      if (!overloaded) {
        if (!serverError) overloads = 0
        return
      }
      overloads++
      const pause = hostPauseMs(overloads, opts.backoff, opts.random, retryAfterMs, opts.retryAfterCapMs)
      pausedUntil = Math.max(pausedUntil, opts.clock.now() + pause)
    },
  }
}
