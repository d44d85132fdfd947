// The contest stream as an async iterable of typed events that survives disconnects and restarts:
// it remembers the id of the last event it handed out and reconnects with Last-Event-ID (also when a
// connection has been silent past idleTimeoutMs: a vanished host sends no FIN), after the
// server's `retry:` delay (backing off while the server stays unreachable), or after Retry-After on a
// 429 or a 503 (a server shutting down, or without its store; 502 and 504 from a proxy likewise). Any
// other refusal (a bad key, a bad series) ends it with ApiError: retrying cannot fix those.
import { ApiError, problemOf } from './errors.ts'
import type { StreamEventData } from './generated/api-types.ts'
import { watchIdle } from './idle-watch.ts'
import { BACKOFF_BASE_MS, type Settings } from './options.ts'
import { createSseParser } from './sse.ts'
import { backoffMs, retryAfterMs } from './waits.ts'

export type StreamEvent = {
  [K in keyof StreamEventData]: { event: K; id: string | null; data: StreamEventData[K] }
}[keyof StreamEventData]

export type StreamStatus =
  | { kind: 'connected'; resumedAfter: string | null }
  | { kind: 'rate-limited'; waitMs: number; retryAfterS: number | null }
  | { kind: 'disconnected'; waitMs: number; reason: string }
  | { kind: 'skipped'; event: string; reason: string }

export type StreamOptions = {
  series: string
  /** resume after this event: the `lastEventId` a previous run saved (null or absent: from now) */
  lastEventId?: string | null
  /** ends the iteration (cleanly) when aborted */
  signal?: AbortSignal
  /** told of each connection, wait and skipped frame */
  onStatus?: (status: StreamStatus) => void
  /**
   * how long a connection may stay silent (no event, no keep-alive) before it is dropped and resumed,
   * ms (default 60 000: the service sends a keep-alive every 15 s by default); 0 waits forever
   */
  idleTimeoutMs?: number
}

export type ContestStream = AsyncIterable<StreamEvent> & {
  /** the id of the last event handed out, to save and resume from; null before the first */
  readonly lastEventId: string | null
}

const EVENT_NAMES: ReadonlySet<string> = new Set(['contest.opened', 'signal.emitted', 'contest.settled'])
const DEFAULT_RETRY_MS = 3_000
const DEFAULT_IDLE_TIMEOUT_MS = 60_000
const MAX_RECONNECT_WAIT_MS = 30_000
/** Answers that say "not now" rather than "never": a server shutting down or out of its store (503), a proxy before it (502, 504). */
const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([502, 503, 504])

export function openContestStream(settings: Settings, opts: StreamOptions): ContestStream {
  let lastEventId = opts.lastEventId ?? null
  const { signal } = opts
  const url = `${settings.baseUrl}/v1/stream/contests?series=${encodeURIComponent(opts.series)}`
  const tell = (status: StreamStatus) => opts.onStatus?.(status)
  const idleTimeoutMs = opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS

  async function* events(): AsyncGenerator<StreamEvent> {
    let retryMs = DEFAULT_RETRY_MS
    // consecutive attempts that delivered nothing: the backoff's exponent
    let failures = 0
    while (!signal?.aborted) {
      const headers: Record<string, string> = {
        accept: 'text/event-stream',
        authorization: `Bearer ${settings.apiKey}`,
      }
      if (lastEventId !== null) headers['last-event-id'] = lastEventId
      let reason: string
      // aborts this connection when the caller aborts, or when it has been silent too long
      const watch = watchIdle(idleTimeoutMs, signal)
      try {
        const res = await settings.fetch(url, { headers, signal: watch.signal })
        if (res.status === 429) {
          const askedMs = retryAfterMs(res.headers.get('retry-after'))
          await res.body?.cancel()
          const waitMs = backoffMs(failures++, askedMs, BACKOFF_BASE_MS, settings.maxWaitMs)
          tell({
            kind: 'rate-limited',
            waitMs,
            retryAfterS: askedMs === null ? null : Math.ceil(askedMs / 1000),
          })
          await settings.sleep(waitMs, signal)
          continue
        }
        if (TRANSIENT_STATUSES.has(res.status)) {
          // the server (or a proxy before it) is restarting or overloaded: wait as it asks, then resume
          const askedMs = retryAfterMs(res.headers.get('retry-after'))
          await res.body?.cancel()
          const waitMs = backoffMs(failures++, askedMs, retryMs, Math.max(retryMs, MAX_RECONNECT_WAIT_MS))
          tell({ kind: 'disconnected', waitMs, reason: `HTTP ${res.status}` })
          await settings.sleep(waitMs, signal)
          continue
        }
        if (!res.ok || res.body === null) throw new ApiError(res.status, await problemOf(res))
        tell({ kind: 'connected', resumedAfter: lastEventId })
        const parser = createSseParser()
        const reader = res.body.getReader()
        const decoder = new TextDecoder()
        try {
          for (;;) {
            const { value, done } = await Promise.race([reader.read(), watch.aborted])
            if (done) break
            watch.reset()
            for (const frame of parser.feed(decoder.decode(value, { stream: true }))) {
              // one chunk may hold many events (the snapshot on connect): stop at the abort, not after
              if (signal?.aborted) return
              if (!EVENT_NAMES.has(frame.event)) continue
              let data: unknown
              try {
                data = JSON.parse(frame.data)
              } catch {
                tell({ kind: 'skipped', event: frame.event, reason: 'data is not JSON' })
                continue
              }
              lastEventId = frame.id ?? lastEventId
              failures = 0
              yield { event: frame.event, id: frame.id, data } as StreamEvent
            }
          }
          reason = 'the server ended the stream'
        } finally {
          retryMs = parser.retryMs ?? retryMs
          // ends the response when the consumer stops early or the read failed
          await reader.cancel().catch(() => undefined)
        }
      } catch (err) {
        if (signal?.aborted) return
        if (err instanceof ApiError) throw err
        reason = watch.signal.aborted
          ? String(watch.signal.reason?.message)
          : err instanceof Error
            ? err.message
            : String(err)
      } finally {
        watch.stop()
      }
      const waitMs = backoffMs(failures++, null, retryMs, Math.max(retryMs, MAX_RECONNECT_WAIT_MS))
      tell({ kind: 'disconnected', waitMs, reason })
      try {
        await settings.sleep(waitMs, signal)
      } catch {
        return
      }
    }
  }

  return {
    get lastEventId() {
      return lastEventId
    },
    [Symbol.asyncIterator]: () => events(),
  }
}
