// The stream hub: owns every open SSE connection of this process and feeds it from the log follower.
import type { ServerResponse } from 'node:http'
import { formatEventId, parseEventId } from '../domain/event-id.ts'
import { isPublicEventType, type StoredEvent } from '../domain/events.ts'
import type { Logger } from '../ports/logger.ts'
import type { EventScope, Store } from '../ports/store.ts'
import type { LogFollower } from './log-follower.ts'
import { encodeEventFrame, KEEP_ALIVE_FRAME, RETRY_FRAME } from './sse-frame.ts'
import { createSubscriberIndex, type Subscriber } from './subscriber-index.ts'

export type StreamOpenRequest = {
  /** the `series` query value: a series, or the ticker of a contest */
  series: string
  /** Last-Event-ID header or last_event_id query value, unparsed; null when absent */
  lastEventId: string | null
}

export type StreamHub = {
  /**
   * Takes over a response whose status line and headers the route has already written
   * (200, text/event-stream): writes `retry`, the snapshot or the replay, then live events,
   * keep-alives, and ends it on close(). Never rejects: a stream that cannot be served is destroyed
   * (and logged), so the client reconnects. `requestLogger` makes this stream's log lines carry
   * its request id; the hub's own logger is used without it.
   */
  attach(res: ServerResponse, request: StreamOpenRequest, requestLogger?: StreamLogger): Promise<void>
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
  /** wall-clock ms between keep-alive comments */
  heartbeatMs: number
  /** a connection with more than this many bytes queued is cut off (decisions §6); default 1 MiB */
  maxQueuedBytes?: number
  logger: StreamLogger
}

export const DEFAULT_MAX_QUEUED_BYTES = 1024 * 1024
const REPLAY_BATCH = 500

/** Where a new stream starts: after a retained event of this deployment, or from a fresh snapshot. */
type Start = { scope: EventScope; resumeAfter: number | null }

export function createStreamHub(opts: StreamHubOptions): StreamHub {
  const { store, follower, epoch, heartbeatMs, logger } = opts
  const maxQueuedBytes = opts.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES
  const subscribers = createSubscriberIndex()
  const requestLoggers = new WeakMap<Subscriber, StreamLogger>()
  const logOf = (sub: Subscriber): StreamLogger => requestLoggers.get(sub) ?? logger
  const attaching = new Set<Promise<void>>()
  let closed = false

  /** Writes one frame; a client that has stopped reading is cut off (see checkQueue). */
  function write(sub: Subscriber, frame: Buffer): boolean {
    const { res } = sub
    if (sub.done || res.destroyed || res.writableEnded) return false
    let flowing: boolean
    try {
      flowing = res.write(frame)
    } catch (err) {
      logOf(sub).error({ err }, 'writing to a stream failed')
      drop(sub)
      res.destroy()
      return false
    }
    if (res.writableLength > maxQueuedBytes && !sub.queueCheckPending) {
      sub.queueCheckPending = true
      setImmediate(checkQueue, sub)
    }
    return flowing
  }

  /**
   * Node corks a response for the rest of the tick it writes in, so a burst of events counts as
   * queued even for a client that reads promptly. Judging one loop turn later, once the kernel has
   * taken what it will, cuts off only clients that really stopped reading. Buffering further would
   * let one of them hold unbounded memory; it resumes with Last-Event-ID from what it did read.
   */
  function checkQueue(sub: Subscriber): void {
    sub.queueCheckPending = false
    if (!sub.done && sub.res.writableLength > maxQueuedBytes) cutOff(sub)
  }

  function cutOff(sub: Subscriber): void {
    logOf(sub).warn(
      { scope: sub.scope, queuedBytes: sub.res.writableLength },
      'stream client is not reading; cut off',
    )
    drop(sub)
    sub.res.destroy()
  }

  function keepAlive(): void {
    for (const sub of subscribers.all()) {
      if (sub.drainWait === null) write(sub, KEEP_ALIVE_FRAME)
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

  function frameOf(event: StoredEvent): Buffer {
    return encodeEventFrame(event.type, formatEventId(epoch, event.seq), event.data)
  }

  function onEvents(events: readonly StoredEvent[]): void {
    for (const event of events) {
      if (!isPublicEventType(event.type)) continue
      const matching = subscribers.matching(event.series, event.ticker)
      if (matching.length === 0) continue
      // One frame per event, shared by every matching connection.
      let frame: Buffer
      try {
        frame = frameOf(event)
      } catch (err) {
        logger.error({ err, seq: event.seq }, 'event cannot be framed; not streamed')
        continue
      }
      for (const sub of matching) deliver(sub, event, frame)
    }
  }

  async function resolveStart(request: StreamOpenRequest): Promise<Start> {
    const parsed = parseEventId(request.lastEventId)
    const resumeAfter =
      parsed !== null && parsed.epoch === epoch && (await store.hasEvent(parsed.seq)) ? parsed.seq : null
    // A ticker selects its contest while it is live, and still on a resume of a stream opened that
    // way, so the client does not lose that contest's settlement (decisions §6).
    const contest = await store.getContest(request.series)
    if (contest !== null && (contest.state === 'live' || resumeAfter !== null)) {
      return { scope: { ticker: contest.ticker }, resumeAfter }
    }
    return { scope: { series: request.series }, resumeAfter }
  }

  /** Waits until the client has taken what is queued, or the stream is gone. */
  function drained(sub: Subscriber): Promise<void> {
    return new Promise((resolve) => {
      const resume = (): void => {
        sub.res.off('drain', resume)
        sub.res.off('close', resume)
        sub.drainWait = null
        resolve()
      }
      sub.res.on('drain', resume)
      sub.res.on('close', resume)
      sub.drainWait = { ticks: 0, resume }
    })
  }

  /**
   * Replays the scope's events after `sub.lastSeq` from the store, honouring backpressure. Runs
   * outside `follower.exclusive` so a long replay to a slow client never holds up live dispatch.
   */
  async function replay(sub: Subscriber, scope: EventScope): Promise<void> {
    for (;;) {
      const batch = await store.eventsAfter(sub.lastSeq, REPLAY_BATCH, scope)
      for (const event of batch) {
        if (sub.done) return
        if (!isPublicEventType(event.type)) {
          sub.lastSeq = event.seq
          continue
        }
        if (!deliver(sub, event, frameOf(event)) && !sub.done) await drained(sub)
      }
      if (sub.done || batch.length < REPLAY_BATCH) return
    }
  }

  /** The last stretch of a replay, up to the follower's cursor; runs inside `exclusive`. */
  async function catchUp(sub: Subscriber, scope: EventScope, cursor: number): Promise<void> {
    for (;;) {
      const batch = await store.eventsAfter(sub.lastSeq, REPLAY_BATCH, scope)
      for (const event of batch) {
        if (sub.done || event.seq > cursor) return
        if (isPublicEventType(event.type)) deliver(sub, event, frameOf(event))
        else sub.lastSeq = event.seq
      }
      if (batch.length < REPLAY_BATCH) return
    }
  }

  /** The live contest's opening and signals so far, with their original ids; runs inside `exclusive`. */
  async function snapshot(sub: Subscriber, scope: EventScope, cursor: number): Promise<void> {
    const ticker = 'ticker' in scope ? scope.ticker : (await store.getLiveContest(scope.series))?.ticker
    if (ticker !== undefined) {
      for (const event of await store.contestHistoryEvents(ticker, cursor)) {
        if (isPublicEventType(event.type)) deliver(sub, event, frameOf(event))
      }
    }
    // Everything up to the cursor is settled by the snapshot; live events start after it.
    sub.lastSeq = Math.max(sub.lastSeq, cursor)
  }

  async function open(sub: Subscriber, request: StreamOpenRequest): Promise<void> {
    const start = await resolveStart(request)
    sub.scope = start.scope
    if (start.resumeAfter !== null) {
      sub.lastSeq = start.resumeAfter
      await replay(sub, start.scope)
    }
    if (sub.done) return
    // Under exclusive no batch is being dispatched: events up to `cursor` come from the store here,
    // every later one from onEvents, so nothing is lost or doubled.
    await follower.exclusive(async (cursor) => {
      if (sub.done) return
      if (start.resumeAfter !== null) await catchUp(sub, start.scope, cursor)
      else await snapshot(sub, start.scope, cursor)
      if (!sub.done) subscribers.goLive(sub, start.scope)
    })
  }

  const unsubscribe = follower.onEvents(onEvents)
  const keepAliveTimer = setInterval(keepAlive, heartbeatMs)
  keepAliveTimer.unref()

  return {
    async attach(res, request, requestLogger) {
      if (closed) {
        if (!res.writableEnded) res.end()
        return
      }
      if (res.destroyed || res.writableEnded) return
      const sub: Subscriber = {
        res,
        scope: null,
        lastSeq: 0,
        done: false,
        queueCheckPending: false,
        drainWait: null,
      }
      if (requestLogger) requestLoggers.set(sub, requestLogger)
      // retry goes out before the stream is visible to keep-alives, so it is always the first frame
      write(sub, RETRY_FRAME)
      subscribers.add(sub)
      res.once('close', () => drop(sub))
      // Socket errors also surface as 'close'; this listener only keeps them from being unhandled.
      res.on('error', () => drop(sub))
      const opening = open(sub, request).catch((err: unknown) => {
        logOf(sub).error({ err }, 'opening a stream failed')
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
      for (const sub of subscribers.all()) {
        drop(sub)
        if (!sub.res.destroyed && !sub.res.writableEnded) sub.res.end()
      }
      await Promise.all(attaching)
    },
  }
}
