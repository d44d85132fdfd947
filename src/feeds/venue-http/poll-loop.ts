// The shared core of a polled live venue (decisions §8): the polling cadence and the liveness every
// networked adapter reports, kept in one place so Kalshi's and Polymarket's adapters cannot drift.
import { setTimeout as delay } from 'node:timers/promises'
import type { Clock } from '../../ports/clock.ts'
import type { SourceStatus } from '../../ports/venue.ts'
import { type BoundaryState, type BoundaryWatch, NO_BOUNDARY, nextPoll } from './boundary-polls.ts'
import type { Sleep } from './request-pacer.ts'

/**
 * Polls every `pollMs`, the first `pollMs` after `firstPollAt` (the poll the adapter's start made),
 * each next one `pollMs` after the previous began, until `signal` aborts; with a `watch`, also just
 * after each boundary of a known market, and a few times more while the venue lags behind it
 * (boundary-polls.ts). A slow poll delays the next rather than overlapping it.
 */
export async function pollEvery(opts: {
  clock: Clock
  pollMs: number
  firstPollAt: number
  signal: AbortSignal
  poll: () => Promise<void>
  watch?: BoundaryWatch
  /** how the loop waits; default a timer (a test moves its own clock instead) */
  sleep?: Sleep
}): Promise<void> {
  const { clock, pollMs, signal } = opts
  const sleep = opts.sleep ?? ((ms: number, s?: AbortSignal) => delay(ms, undefined, { signal: s }))
  const watch = opts.watch ?? NO_WATCH
  let began = opts.firstPollAt
  let state: BoundaryState = NO_BOUNDARY
  while (!signal.aborted) {
    const next = nextPoll({ began, now: clock.now(), pollMs, watch, state })
    try {
      await sleep(Math.max(0, next.at - clock.now()), signal)
    } catch {
      return
    }
    if (signal.aborted) return
    began = clock.now()
    state = next.state
    await opts.poll()
  }
}

const NO_WATCH: BoundaryWatch = { nextBoundary: () => null, lagging: () => false }

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
