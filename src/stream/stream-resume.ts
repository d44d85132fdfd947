// How a stream starts (decisions §6): resolve its scope and resume point, then either replay the
// retained events after Last-Event-ID or send the fresh-connect snapshot of the live contest, and
// hand it to live dispatch under the follower's `exclusive`, so no event is lost or doubled.
import { isLiveAt } from '../domain/contest.ts'
import { parseEventId } from '../domain/event-id.ts'
import { isPublicEventType, type StoredEvent } from '../domain/events.ts'
import type { Clock } from '../ports/clock.ts'
import type { EventScope, Store } from '../ports/store.ts'
import type { LogFollower } from './log-follower.ts'
import type { Subscriber, SubscriberIndex } from './subscriber-index.ts'

export type StreamOpenRequest = {
  /** the `series` query value: a series, or the ticker of a contest */
  series: string
  /** Last-Event-ID header or last_event_id query value, unparsed; null when absent */
  lastEventId: string | null
}

const REPLAY_BATCH = 500

/** Where a new stream starts: after a retained event of this deployment, or from a fresh snapshot. */
type Start = { scope: EventScope; resumeAfter: number | null }

export type StreamOpenerDeps = {
  store: Store
  follower: LogFollower
  /** this store's epoch: ids of other deployments are foreign */
  epoch: string
  /** how long an event stays a resume point (EVENT_RETENTION_HOURS), on the wall clock the store stamps events with */
  retentionMs: number
  wallClock: Clock
  /**
   * the service clock: a contest the store still holds live is no longer "the live contest" from
   * its expires_at on (decisions §3), as the HTTP answers read it (contest-cache.ts)
   */
  clock: Clock
  subscribers: SubscriberIndex
  /** the hub's write of one event, skipped when the stream already had it; false when it must wait for drain */
  deliver(sub: Subscriber, event: StoredEvent, frame: Buffer): boolean
  frameOf(event: StoredEvent): Buffer
}

/** Returns open(sub, request): brings a new stream up to date, then makes it live. */
export function createStreamOpener(deps: StreamOpenerDeps) {
  const { store, follower, epoch, subscribers, deliver, frameOf, retentionMs, wallClock, clock } = deps

  async function resolveStart(request: StreamOpenRequest): Promise<Start> {
    const parsed = parseEventId(request.lastEventId)
    // Expired by age, not only once pruned: the engine prunes hourly, and an id past the retention
    // gets the snapshot whether or not its row is still there (decisions §6).
    const resumable =
      parsed !== null &&
      parsed.epoch === epoch &&
      (await store.hasEvent(parsed.seq, wallClock.now() - retentionMs))
    const resumeAfter = resumable ? parsed.seq : null
    // A ticker selects its contest while it is live on the service clock, and still on a resume of a
    // stream opened that way, so the client does not lose that contest's settlement (decisions §6).
    const contest = await store.getContest(request.series)
    if (contest !== null && (isLiveAt(contest, clock.now()) || resumeAfter !== null)) {
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

  /** The series' live contest; past its expiry it is none, though the engine has not written it yet. */
  async function liveTicker(series: string): Promise<string | undefined> {
    const live = await store.getLiveContest(series)
    return live !== null && isLiveAt(live, clock.now()) ? live.ticker : undefined
  }

  /** The live contest's opening and signals so far, with their original ids; runs inside `exclusive`. */
  async function snapshot(sub: Subscriber, scope: EventScope, cursor: number): Promise<void> {
    const ticker = 'ticker' in scope ? scope.ticker : await liveTicker(scope.series)
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

  return open
}
