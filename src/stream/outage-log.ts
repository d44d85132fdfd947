// A read that fails on every poll while the store is down (the log follower polls four times a
// second) is logged like an outage, not like a stream of errors: once when it starts, with the error;
// then at most once a minute, with how many attempts failed since the last line; and once when an
// attempt succeeds again, with the whole outage's count and length.
import type { Clock } from '../ports/clock.ts'
import type { Logger } from '../ports/logger.ts'

export const OUTAGE_REPEAT_MS = 60_000

export type OutageLog = {
  failed(err: unknown): void
  succeeded(): void
}

/** `what` names the attempt in each line, e.g. "reading the event log". */
export function createOutageLog(
  logger: Pick<Logger, 'error' | 'warn'>,
  clock: Clock,
  what: string,
  /** how the first line ends: what happens next */
  retrying: string,
): OutageLog {
  let outage: { startedAt: number; failures: number; loggedAt: number; sinceLogged: number } | null = null
  return {
    failed(err) {
      const now = clock.now()
      if (outage === null) {
        outage = { startedAt: now, failures: 1, loggedAt: now, sinceLogged: 0 }
        logger.error({ err }, `${what} failed; ${retrying}`)
        return
      }
      outage.failures++
      outage.sinceLogged++
      if (now - outage.loggedAt < OUTAGE_REPEAT_MS) return
      logger.error(
        {
          error: String((err as Error)?.message ?? err),
          failures: outage.sinceLogged,
          downSeconds: (now - outage.startedAt) / 1000,
        },
        `${what} still failing: ${outage.sinceLogged} failed attempts since the last line`,
      )
      outage.loggedAt = now
      outage.sinceLogged = 0
    },
    succeeded() {
      if (outage === null) return
      const downSeconds = (clock.now() - outage.startedAt) / 1000
      logger.warn(
        { failures: outage.failures, downSeconds },
        `${what} recovered after ${outage.failures} failed attempts over ${downSeconds} s`,
      )
      outage = null
    },
  }
}
