// An attempt that fails again and again while something is down (the log follower polls the store
// four times a second; the notifier reconnects every 2 s; a venue is polled every few seconds) is
// logged like an outage, not like a stream of errors: once when it starts, with the error; then at
// most once a minute, with how many attempts failed since the last line; and once when an attempt
// succeeds again, with the whole outage's count and length. Time comes from the clock it is given.
// Something that comes back only to fail again (a socket that subscribes, then drops) would log a
// start and an end per flap: with `steadyMs` a recovery counts once the attempt has kept succeeding
// that long, and a failure before then is the same outage still.
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
  /** fields every line carries (e.g. `{ venue, series }`) */
  context?: Record<string, unknown>
  /**
   * a failure's own fields, on the first line and each repeat (e.g. a venue's HTTP status and words,
   * or the field of a body that did not parse); by default the first line carries the error itself
   * as `err` and a repeat its message as `error`
   */
  describe?: (err: unknown) => Record<string, unknown>
  /**
   * the outage ends only once successes have held this long (the caller reports every success, e.g.
   * each frame of a socket); a failure before then is a flap of the same outage. Default: the first
   * success ends it.
   */
  steadyMs?: number
}

type LogFn = (fields: Record<string, unknown>, message: string) => void

export function createOutageLog(clock: Clock, opts: OutageLogOptions): OutageLog {
  const { what, started, fail, recover, context = {}, describe, steadyMs = 0 } = opts
  let outage: {
    startedAt: number
    failures: number
    loggedAt: number
    sinceLogged: number
    /** when it first succeeded again, while not yet steady */
    upSince: number | null
    /** recoveries that failed again within `steadyMs` */
    flaps: number
  } | null = null
  return {
    failed(err) {
      const now = clock.now()
      if (outage === null) {
        outage = { startedAt: now, failures: 1, loggedAt: now, sinceLogged: 0, upSince: null, flaps: 0 }
        fail({ ...context, ...(describe ? describe(err) : { err }) }, started)
        return
      }
      if (outage.upSince !== null) {
        outage.upSince = null
        outage.flaps++
      }
      outage.failures++
      outage.sinceLogged++
      if (now - outage.loggedAt < OUTAGE_REPEAT_MS) return
      fail(
        {
          ...context,
          ...(describe ? describe(err) : { error: String((err as Error)?.message ?? err) }),
          failures: outage.sinceLogged,
          downSeconds: (now - outage.startedAt) / 1000,
          ...(outage.flaps > 0 ? { flaps: outage.flaps } : {}),
        },
        `${what} still failing: ${outage.sinceLogged} failed attempts since the last line`,
      )
      outage.loggedAt = now
      outage.sinceLogged = 0
    },
    succeeded() {
      if (outage === null) return
      const now = clock.now()
      outage.upSince ??= now
      const upMs = now - outage.upSince
      if (upMs < steadyMs) return
      const { failures, flaps } = outage
      const downSeconds = (outage.upSince - outage.startedAt) / 1000
      if (steadyMs === 0) {
        recover(
          { ...context, failures, downSeconds },
          `${what} recovered after ${failures} failed attempts over ${downSeconds} s`,
        )
      } else {
        const upSeconds = upMs / 1000
        const brief =
          flaps > 0 ? `${flaps} brief ${flaps === 1 ? 'recovery' : 'recoveries'} that failed again; ` : ''
        recover(
          { ...context, failures, downSeconds, flaps, upSeconds },
          `${what} recovered after ${failures} failed attempts over ${downSeconds} s (${brief}up ${upSeconds} s since)`,
        )
      }
      outage = null
    },
  }
}

/** One outage log per key (a series, a market): each key's outage is logged on its own. */
export type OutageLogs = {
  failed(key: string, err: unknown): void
  succeeded(key: string): void
  /**
   * Ends the outage of every key that has not failed for `quietMs`. For failures mixed with
   * successes that cannot be told apart by key (a feed's malformed frames among its good ones):
   * ending on the next success would log a start and an end per bad item, so it ends once the
   * failures have stopped for a while.
   */
  succeededWhereQuiet(quietMs: number): void
}

/**
 * Outage logs made on demand per key by `optionsFor`, forgotten once their key succeeds. At most
 * `maxKeys` are kept (the oldest dropped): a key that stops being tried (a market past its window)
 * never succeeds, and must not be kept for good.
 */
export function createOutageLogs(
  clock: Clock,
  optionsFor: (key: string) => OutageLogOptions,
  maxKeys = 1_000,
): OutageLogs {
  const byKey = new Map<string, { log: OutageLog; lastFailedAt: number }>()
  return {
    failed(key, err) {
      let entry = byKey.get(key)
      if (!entry) {
        if (byKey.size >= maxKeys) byKey.delete(byKey.keys().next().value as string)
        entry = { log: createOutageLog(clock, optionsFor(key)), lastFailedAt: 0 }
        byKey.set(key, entry)
      }
      entry.lastFailedAt = clock.now()
      entry.log.failed(err)
    },
    succeeded(key) {
      const entry = byKey.get(key)
      if (!entry) return
      entry.log.succeeded()
      byKey.delete(key)
    },
    succeededWhereQuiet(quietMs) {
      if (byKey.size === 0) return
      const now = clock.now()
      for (const [key, entry] of byKey) {
        if (now - entry.lastFailedAt < quietMs) continue
        entry.log.succeeded()
        byKey.delete(key)
      }
    },
  }
}
