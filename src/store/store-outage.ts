// A store that cannot answer fails every request that needs it (each answered 503, decisions §4) and
// every stream that opens meanwhile: logged as one outage (decisions §2) — the first failure with its
// stack, then at most once a minute with a count, then its end — not a warning with a stack per
// request or stream. One per process, made by the composition root and handed to the api's error
// handler (either request path) and the stream hub; its end is the store answering again, whoever
// asked (the event-log follower polls it four times a second), once nothing has failed for a minute,
// so a store that answers some calls and times out on others is one outage, not a pair of lines each.
import { createOutageLog, OUTAGE_REPEAT_MS, type OutageLog } from '../platform/outage-log.ts'
import type { Clock } from '../ports/clock.ts'
import type { Logger } from '../ports/logger.ts'
import type { StoreFaults } from './store-faults.ts'

export type StoreOutage = Pick<OutageLog, 'failed'> & { close(): void }

export function createStoreOutage(opts: {
  wallClock: Clock
  logger: Pick<Logger, 'warn'>
  faults: Pick<StoreFaults, 'onAnswered'>
}): StoreOutage {
  const warn = (fields: Record<string, unknown>, message: string): void => opts.logger.warn(fields, message)
  const outage = createOutageLog(opts.wallClock, {
    what: 'store',
    started: 'store unavailable; answering 503 until it answers again',
    fail: warn,
    recover: warn,
    steadyMs: OUTAGE_REPEAT_MS,
  })
  const stop = opts.faults.onAnswered(() => outage.succeeded())
  return { failed: (err) => outage.failed(err), close: stop }
}
