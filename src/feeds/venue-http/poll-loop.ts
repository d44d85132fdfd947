// The shared core of a polled live venue (decisions §8): the polling cadence and the liveness every
// networked adapter reports, kept in one place so Kalshi's and Polymarket's adapters cannot drift.
import { setTimeout as delay } from 'node:timers/promises'
import type { Clock } from '../../ports/clock.ts'
import type { SourceStatus } from '../../ports/venue.ts'

/**
 * Polls every `pollMs`, the first `pollMs` after `firstPollAt` (the poll the adapter's start made),
 * each next one `pollMs` after the previous began, until `signal` aborts. A slow poll delays the next
 * rather than overlapping it.
 */
export async function pollEvery(opts: {
  clock: Clock
  pollMs: number
  firstPollAt: number
  signal: AbortSignal
  poll: () => Promise<void>
}): Promise<void> {
  const { clock, pollMs, signal } = opts
  let nextAt = opts.firstPollAt + pollMs
  while (!signal.aborted) {
    try {
      await delay(Math.max(0, nextAt - clock.now()), undefined, { signal })
    } catch {
      return
    }
    nextAt = clock.now() + pollMs
    await opts.poll()
  }
}

/**
 * `down` once the venue has not answered for over `downAfterMs` (or never has, that long after the
 * start), judged on the adapter's own wall clock.
 */
export function livenessOf(
  now: number,
  lastOkAt: number | null,
  startedAt: number | null,
  downAfterMs: number,
): SourceStatus['state'] {
  const since = lastOkAt ?? startedAt ?? now
  return now - since > downAfterMs ? 'down' : 'ok'
}
