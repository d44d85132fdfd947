// A failure that repeats every tick (a full disk fails every write twice a second) is logged once
// with its stack, then as one line a minute saying how often it recurred, instead of a stack every
// tick burying everything else in the log.
import type { Logger } from '../ports/logger.ts'

const QUIET_MS = 60_000

export type RepeatedErrors = {
  /** logs `err` under `message` unless the same message and error text was logged within the last minute */
  error(fields: Record<string, unknown> & { err: unknown }, message: string): void
}

export function createRepeatedErrors(logger: Pick<Logger, 'error'>, now: () => number): RepeatedErrors {
  const seen = new Map<string, { loggedAt: number; repeats: number }>()
  return {
    error(fields, message) {
      const key = `${message}\u0000${String((fields.err as Error)?.message ?? fields.err)}`
      const t = now()
      const last = seen.get(key)
      if (last && t - last.loggedAt < QUIET_MS) {
        last.repeats++
        return
      }
      if (last && last.repeats > 0) {
        const { err, ...rest } = fields
        logger.error(
          { ...rest, error: String((err as Error)?.message ?? err), repeats: last.repeats },
          `${message} (again; repeated ${last.repeats} times in the last minute)`,
        )
      } else logger.error(fields, message)
      seen.set(key, { loggedAt: t, repeats: 0 })
      // bounded: a failure that changes its text each time must not grow the map forever
      if (seen.size > 100) seen.delete(seen.keys().next().value!)
    },
  }
}
