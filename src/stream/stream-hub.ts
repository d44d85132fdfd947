// The stream hub: owns every open SSE connection of this process and feeds it from the log follower:
// framing, fan-out, keep-alives, backpressure and shutdown. How a new stream starts (snapshot or
// replay, then live) is stream-resume.ts.
import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { formatEventId } from '../domain/event-id.ts'
import { isPublicEventType, type StoredEvent } from '../domain/events.ts'
import type { Clock } from '../ports/clock.ts'
import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'
import { isStoreUnavailable } from '../ports/store-errors.ts'
import { createFanOut } from './fan-out.ts'
import type { LogFollower } from './log-follower.ts'
import {
  chunkOf,
  encodeEventFrame,
  KEEP_ALIVE_CHUNK,
  KEEP_ALIVE_FRAME,
  RETRY_FRAME,
  shutdownRetryFrame,
} from './sse-frame.ts'
import { createStreamOpener, type StreamOpenRequest } from './stream-resume.ts'
import { createSubscriberIndex, newSubscriber, type Subscriber } from './subscriber-index.ts'

export type StreamHub = {
  /**
   * Takes over a response whose status line and headers the route has already written
   * (200, text/event-stream): writes `retry`, the snapshot or the replay, then live events,
   * keep-alives, and ends it on close(). Never rejects: a stream that cannot be served is destroyed
   * (and logged), so the client reconnects. `requestId` goes into this stream's log lines as
   * `reqId`, the binding of the request's own logger.
   */
  attach(res: ServerResponse, request: StreamOpenRequest, requestId?: string): Promise<void>
  /** open streams in this process */
  size(): number
  /** Ends every stream cleanly (shutdown); later attach() calls end the response at once. */
  close(): Promise<void>
}

/** The logger calls the hub makes. */
export type StreamLogger = Pick<Logger, 'warn' | 'error'>

export type StreamHubOptions = {
  store: Store
  follower: LogFollower
  /** this store's epoch (`store.epoch()`): the prefix of every event id */
  epoch: string
  /** EVENT_RETENTION_HOURS in ms: an older Last-Event-ID gets the snapshot */
  retentionMs: number
  /** the wall clock the store stamps events with */
  wallClock: Clock
  /** the service clock (virtual under the simulator), on which contests are live (decisions §3) */
  clock: Clock
  /** wall-clock ms between keep-alive comments */
  heartbeatMs: number
  /** a connection with more than this many bytes queued is cut off (decisions §6); default 1 MiB */
  maxQueuedBytes?: number
  logger: StreamLogger
  /**
   * the store's outage in the log (store/store-outage.ts, shared with the api): a stream the store
   * cannot open counts in it, since every client's reconnect (every 3 s) meets the same outage
   */
  storeOutage: { failed(err: unknown): void }
  /** draws each stream's reconnect delay at shutdown; Math.random by default */
  random?: () => number
}

export const DEFAULT_MAX_QUEUED_BYTES = 1024 * 1024

export function createStreamHub(opts: StreamHubOptions): StreamHub {
  const { store, follower, epoch, heartbeatMs, logger } = opts
  const maxQueuedBytes = opts.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES
  const subscribers = createSubscriberIndex()
  // A stream's log lines carry its request id. Held as the id alone, not as a child logger per
  // stream: thousands of streams are open at once and very few ever log.
  const withRequestId = (sub: Subscriber, fields: Record<string, unknown>): Record<string, unknown> =>
    sub.requestId === null ? fields : { reqId: sub.requestId, ...fields }
  const attaching = new Set<Promise<void>>()
  let closed = false

  /**
   * Writes one frame; a client that has stopped reading is cut off (see checkQueue). The keep-alives
   * pass `chunk`, the frame already in HTTP/1.1 chunk framing: it goes straight to the socket, where
   * `res.write` would frame it again, cork the socket and queue an uncork for the next tick, per
   * subscriber. The opening (retry, snapshot, replay) goes through `res`, whose 'drain' a replay
   * waits for. Live events go out through fan-out.ts.
   */
  function write(sub: Subscriber, frame: Buffer, chunk: Buffer | null = null): boolean {
    const { res, socket } = sub
    if (sub.done || res.destroyed || res.writableEnded) return false
    let flowing: boolean
    try {
      if (chunk === null || socket === null) flowing = res.write(frame)
      else {
        if (socket.destroyed) return false
        flowing = socket.write(sub.chunked ? chunk : frame)
      }
    } catch (err) {
      writeFailed(sub, err)
      return false
    }
    watchQueue(sub)
    return flowing
  }

  function writeFailed(sub: Subscriber, err: unknown): void {
    logger.error(withRequestId(sub, { err }), 'writing to a stream failed')
    drop(sub)
    sub.res.destroy()
  }

  /** Schedules a look at the queue (checkQueue) when more than the limit waits for this client. */
  function watchQueue(sub: Subscriber): void {
    if (!sub.done && !sub.queueCheckPending && queuedBytes(sub) > maxQueuedBytes) {
      sub.queueCheckPending = true
      setImmediate(checkQueue, sub)
    }
  }

  /** Bytes queued for the client, wherever they wait (the response's count includes its socket's). */
  const queuedBytes = (sub: Subscriber): number => sub.res.writableLength

  /**
   * Node corks a response for the rest of the tick it writes in, so a burst of events counts as
   * queued even for a client that reads promptly. Judging one loop turn later, once the kernel has
   * taken what it will, cuts off only clients that really stopped reading. Buffering further would
   * let one of them hold unbounded memory; it resumes with Last-Event-ID from what it did read.
   */
  function checkQueue(sub: Subscriber): void {
    sub.queueCheckPending = false
    if (!sub.done && queuedBytes(sub) > maxQueuedBytes) cutOff(sub)
  }

  function cutOff(sub: Subscriber): void {
    logger.warn(
      withRequestId(sub, { scope: sub.scope, queuedBytes: queuedBytes(sub) }),
      'stream client is not reading; cut off',
    )
    drop(sub)
    sub.res.destroy()
  }

  function keepAlive(): void {
    for (const sub of subscribers.all()) {
      if (sub.drainWait === null) write(sub, KEEP_ALIVE_FRAME, KEEP_ALIVE_CHUNK)
      // A replay waits for its client instead of queueing for it, so the byte limit never trips
      // there; a client that has taken nothing for a whole interval has stopped reading.
      else if (++sub.drainWait.ticks >= 2) cutOff(sub)
    }
  }

  function drop(sub: Subscriber): void {
    if (sub.done) return
    sub.done = true
    subscribers.remove(sub)
    sub.drainWait?.resume()
  }

  /** Writes an event unless the stream has already had it (replay and live can overlap). */
  function deliver(sub: Subscriber, event: StoredEvent, frame: Buffer): boolean {
    if (event.seq <= sub.lastSeq) return true
    sub.lastSeq = event.seq
    return write(sub, frame)
  }

  const fanOut = createFanOut({
    writeThroughResponse: (sub, frame) => void write(sub, frame),
    failed: writeFailed,
    watchQueue,
  })

  function frameOf(event: StoredEvent): Buffer {
    return encodeEventFrame(event.type, formatEventId(epoch, event.seq), event.data)
  }

  // Sockets corked while a batch of several events is written, uncorked together at its end, so a
  // stream that several of them reach gets them in one write. Reused from batch to batch.
  const corked: Socket[] = []

  function onEvents(events: readonly StoredEvent[]): void {
    const batched = events.length > 1
    try {
      for (const event of events) {
        if (!isPublicEventType(event.type)) continue
        const matching = subscribers.matching(event.series, event.ticker)
        if (matching.length === 0) continue
        // One frame per event, and one chunk of it, shared by every matching connection.
        let frame: Buffer
        try {
          frame = frameOf(event)
        } catch (err) {
          logger.error({ err, seq: event.seq }, 'event cannot be framed; not streamed')
          continue
        }
        fanOut.send(matching, event.seq, frame, chunkOf(frame), batched ? corked : null)
      }
    } finally {
      for (const socket of corked) socket.uncork()
      corked.length = 0
    }
  }

  const open = createStreamOpener({
    store,
    follower,
    epoch,
    retentionMs: opts.retentionMs,
    wallClock: opts.wallClock,
    clock: opts.clock,
    subscribers,
    deliver,
    frameOf,
  })

  const unsubscribe = follower.onEvents(onEvents)
  const keepAliveTimer = setInterval(keepAlive, heartbeatMs)
  keepAliveTimer.unref()

  return {
    async attach(res, request, requestId) {
      if (closed) {
        if (!res.writableEnded) res.end()
        return
      }
      if (res.destroyed || res.writableEnded) return
      const sub = newSubscriber(res, requestId ?? null)
      // retry goes out before the stream is visible to keep-alives, so it is always the first frame
      write(sub, RETRY_FRAME)
      // With the head and retry on the socket (the route flushed the head), nothing waits in `res`
      // any longer: later frames may go straight to the socket, behind them.
      if (res.socket !== null && res.headersSent && !res.destroyed) {
        sub.socket = res.socket as Socket
        sub.chunked = res.chunkedEncoding
      }
      subscribers.add(sub)
      // One listener for both, and `on` rather than `once` ('close' comes once; drop is idempotent):
      // once() wraps each listener in a closure with its own state, per open stream.
      // Socket errors also surface as 'close'; the 'error' listener only keeps them from being unhandled.
      const end = (): void => drop(sub)
      res.on('close', end)
      res.on('error', end)
      const opening = open(sub, request).catch((err: unknown) => {
        if (isStoreUnavailable(err)) opts.storeOutage.failed(err)
        else logger.error(withRequestId(sub, { err }), 'opening a stream failed')
        drop(sub)
        res.destroy()
      })
      attaching.add(opening)
      try {
        await opening
      } finally {
        attaching.delete(opening)
      }
    },
    size: () => subscribers.size(),
    async close() {
      if (closed) return
      closed = true
      clearInterval(keepAliveTimer)
      unsubscribe()
      const random = opts.random ?? Math.random
      for (const sub of subscribers.all()) {
        drop(sub)
        if (!sub.res.destroyed && !sub.res.writableEnded) sub.res.end(shutdownRetryFrame(random))
      }
      await Promise.all(attaching)
    },
  }
}
