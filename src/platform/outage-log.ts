// An attempt that fails again and again while something is down (the log follower polls the store
// four times a second; the notifier reconnects every 2 s) is logged like an outage, not like a
// stream of errors: once when it starts, with the error; then at most once a minute, with how many
// attempts failed since the last line; and once when an attempt succeeds again, with the whole
// outage's count and length. Time comes from the clock it is given.
import type { Clock } from '../ports/clock.ts'

export const OUTAGE_REPEAT_MS = 60_000

export type OutageLog = {
  failed(err: unknown): void
  succeeded(): void
}

export type OutageLogOptions = {
  /** names the attempt in the repeat and recovery lines, e.g. "reading the event log" */
  what: string
  /** the first line's message, e.g. "reading the event log failed; retrying on the next poll" */
  started: string
  /** writes the failure lines (e.g. the logger's error) */
  fail: LogFn
  /** writes the recovery line (e.g. the logger's warn: whoever saw the outage start sees it end) */
  recover: LogFn
}

type LogFn = (fields: Record<string, unknown>, message: string) => void

export function createOutageLog(clock: Clock, opts: OutageLogOptions): OutageLog {
  const { what, started, fail, recover } = opts
  let outage: { startedAt: number; failures: number; loggedAt: number; sinceLogged: number } | null = null
  return {
    failed(err) {
      const now = clock.now()
      if (outage === null) {
        outage = { startedAt: now, failures: 1, loggedAt: now, sinceLogged: 0 }
        fail({ err }, started)
        return
      }
      outage.failures++
      outage.sinceLogged++
      if (now - outage.loggedAt < OUTAGE_REPEAT_MS) return
      fail(
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
      recover(
        { failures: outage.failures, downSeconds },
        `${what} recovered after ${outage.failures} failed attempts over ${downSeconds} s`,
      )
      outage = null
    },
  }
}
