// A venue request that fails poll after poll (a listing, a lookup, an order book) logged as an
// outage per key (platform/outage-log.ts): the first failure with the venue's status and words, or
// the field of a body that did not parse (decisions §8), then at most once a minute with a count,
// then once when it is answered again. Shared by the polled venues, so they log outages alike.
import { createOutageLogs, type OutageLogs } from '../../platform/outage-log.ts'
import type { Clock } from '../../ports/clock.ts'
import type { Logger } from '../../ports/logger.ts'

/**
 * What one failed attempt says: an HTTP failure (`status`, `message`) or a malformed body (`field`),
 * and which side's book it was when the venue has one per side.
 */
export type VenueFailure = ({ status: string; message: string } | { field: string }) & { side?: string }

export type VenueOutageLogOptions = {
  venue: string
  /** the name of the key in the lines: `series`, `ticker`, `slug` */
  key: string
  /** names one key's attempt in the repeat and recovery lines, e.g. "kalshi listing of KXBTC15M" */
  what: (key: string) => string
  /** the first line's message, e.g. "kalshi listing failed" */
  started: string
  /** fields every line of a key carries beside the key itself */
  context?: (key: string) => Record<string, unknown>
}

export function venueOutageLogs(clock: Clock, logger: Logger, opts: VenueOutageLogOptions): OutageLogs {
  const warn = (fields: Record<string, unknown>, message: string): void => logger.warn(fields, message)
  return createOutageLogs(clock, (key) => ({
    what: opts.what(key),
    started: opts.started,
    fail: warn,
    recover: warn,
    context: { venue: opts.venue, [opts.key]: key, ...opts.context?.(key) },
    describe: (failure) => {
      const f = failure as VenueFailure
      const side = f.side === undefined ? {} : { side: f.side }
      return 'field' in f ? { ...side, field: f.field } : { ...side, status: f.status, error: f.message }
    },
  }))
}
