// Follows the durable event log from a cursor and hands every new event, in seq order and exactly
// once, to its listeners (stream hub, cache invalidation). Wake-ups make it prompt; a periodic poll
// makes it correct even when a wake-up is lost, because the log, not the notification, is the truth.
import type { StoredEvent } from '../domain/events.ts'
import { createOutageLog } from '../platform/outage-log.ts'
import type { Clock } from '../ports/clock.ts'
import type { EventNotifier } from '../ports/event-notifier.ts'
import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'

export type LogFollower = {
  /** seq of the last event handed to listeners */
  readonly cursor: number
  /** Listeners run synchronously, in registration order, for each batch. */
  onEvents(listener: (events: readonly StoredEvent[]) => void): () => void
  /**
   * Runs `fn` while no batch is being dispatched, with the cursor as it stands: a stream attaching
   * inside it sees exactly the events up to `cursor` from the store and every later one from the
   * listeners, so nothing is lost or doubled.
   */
  exclusive<T>(fn: (cursor: number) => Promise<T>): Promise<T>
  /** Asks for an immediate read of the log. */
  wake(): void
  start(): Promise<void>
  stop(): Promise<void>
}

const BATCH = 500

export function createLogFollower(opts: {
  store: Store
  notifier: EventNotifier
  pollMs: number
  /** errors are logged; an outage's recovery is a warn, so whoever saw it start sees it end */
  logger: Pick<Logger, 'error' | 'warn'>
  /** the wall clock an outage of the store is timed on */
  wallClock: Clock
}): LogFollower {
  const { store, notifier, pollMs, logger } = opts
  // A store that is down fails every poll: its start, a count a minute and its end, not a line a poll.
  const outage = createOutageLog(opts.wallClock, {
    what: 'reading the event log',
    started: 'reading the event log failed; retrying on the next poll',
    fail: (fields, message) => logger.error(fields, message),
    recover: (fields, message) => logger.warn(fields, message),
  })
  const listeners: Array<(events: readonly StoredEvent[]) => void> = []
  let cursor = 0
  let queue: Promise<unknown> = Promise.resolve()
  let wakeQueued = false
  let timer: NodeJS.Timeout | undefined
  let unsubscribe: (() => void) | undefined
  let stopped = false

  function exclusive<T>(fn: (cursor: number) => Promise<T>): Promise<T> {
    const run = queue.then(() => fn(cursor))
    queue = run.catch(() => undefined)
    return run
  }

  async function drain(): Promise<void> {
    for (;;) {
      const batch = await store.eventsAfter(cursor, BATCH)
      if (batch.length === 0) return
      cursor = batch[batch.length - 1]!.seq
      for (const l of listeners) {
        try {
          l(batch)
        } catch (err) {
          logger.error({ err }, 'event listener failed')
        }
      }
      if (batch.length < BATCH) return
    }
  }

  function wake(): void {
    if (wakeQueued || stopped) return
    wakeQueued = true
    void exclusive(async () => {
      wakeQueued = false
      try {
        await drain()
        outage.succeeded()
      } catch (err) {
        outage.failed(err)
      }
    })
  }

  return {
    get cursor() {
      return cursor
    },
    onEvents(listener) {
      listeners.push(listener)
      return () => {
        const i = listeners.indexOf(listener)
        if (i >= 0) listeners.splice(i, 1)
      }
    },
    exclusive,
    wake,
    async start() {
      cursor = await store.latestSeq()
      unsubscribe = await notifier.subscribe(() => wake())
      timer = setInterval(wake, pollMs)
      timer.unref()
    },
    async stop() {
      stopped = true
      if (timer) clearInterval(timer)
      unsubscribe?.()
      await queue
    },
  }
}
