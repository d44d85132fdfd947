// Cross-replica wake-ups over PostgreSQL LISTEN/NOTIFY. The payload is only a hint (the highest
// seq); followers always read the durable log, so a notification lost while a connection was down
// is covered by the catch-up read done on every reconnect and by the followers' periodic poll.
import pg from 'pg'
import { createOutageLog } from '../../platform/outage-log.ts'
import type { Clock } from '../../ports/clock.ts'
import type { EventNotifier } from '../../ports/event-notifier.ts'
import type { Logger } from '../../ports/logger.ts'
import { parsePostgresUrl } from './postgres-url.ts'

export function createPostgresEventNotifier(
  url: string,
  logger: Pick<Logger, 'warn' | 'info'>,
  /** the wall clock an outage is timed on */
  clock: Clock = { now: () => Date.now() },
): EventNotifier {
  const { connectionString, schema } = parsePostgresUrl(url)
  // One channel per schema, so deployments sharing a database (and test runs) never wake each other.
  const channel = `cs_events_${schema}`
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .slice(0, 63)
  const pool = new pg.Pool({ connectionString, max: 1, idleTimeoutMillis: 10_000 })
  pool.on('error', () => undefined)
  const listeners = new Set<(seq: number | null) => void>()
  let listener: pg.Client | null = null
  let closed = false
  let retryTimer: NodeJS.Timeout | undefined
  // Reconnects fail every 2 s for as long as PostgreSQL is down: its start, a count a minute, its end.
  const outage = createOutageLog(clock, {
    what: 'event notification connection',
    started: 'event notification connection lost; reconnecting',
    fail: (fields, message) => logger.warn(fields, message),
    recover: (fields, message) => logger.info(fields, message),
  })

  // The engine notifies once per committed event: while PostgreSQL is down each one fails, logged as
  // one outage (its start with the error, a count a minute, its end), not a line per event.
  const notifyOutage = createOutageLog(clock, {
    what: 'event notification',
    started: 'event notification failed; followers read the events on their next poll',
    fail: (fields, message) => logger.warn(fields, message),
    recover: (fields, message) => logger.info(fields, message),
  })

  const wakeAll = (seq: number | null) => {
    for (const l of listeners) l(seq)
  }

  async function listen(attempt = 0): Promise<void> {
    if (closed || listeners.size === 0 || listener) return
    const client = new pg.Client({ connectionString })
    listener = client
    const retry = (err: unknown) => {
      if (listener !== client) return
      listener = null
      client.removeAllListeners('notification')
      void client.end().catch(() => undefined)
      if (closed) return
      outage.failed(err instanceof Error ? err : new Error(String(err)))
      retryTimer = setTimeout(() => void listen(attempt + 1), Math.min(100 * 2 ** attempt, 2000))
      retryTimer.unref()
    }
    client.on('error', retry)
    client.on('end', () => retry('connection ended'))
    client.on('notification', (msg) => {
      const seq = Number(msg.payload)
      wakeAll(Number.isSafeInteger(seq) ? seq : null)
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${channel}`)
      outage.succeeded()
      // Whatever was notified while we were not listening is read now.
      wakeAll(null)
      attempt = 0
    } catch (err) {
      retry(err)
    }
  }

  return {
    async notify(seq) {
      try {
        await pool.query('SELECT pg_notify($1, $2)', [channel, String(seq)])
        notifyOutage.succeeded()
      } catch (err) {
        // The events are committed; replicas will find them on their next poll.
        notifyOutage.failed(err)
      }
    },
    async subscribe(onWake) {
      listeners.add(onWake)
      await listen()
      return () => listeners.delete(onWake)
    },
    async close() {
      closed = true
      if (retryTimer) clearTimeout(retryTimer)
      listeners.clear()
      const client = listener
      listener = null
      if (client) {
        client.removeAllListeners()
        client.on('error', () => undefined)
        await client.end().catch(() => undefined)
      }
      await pool.end().catch(() => undefined)
    },
  }
}
