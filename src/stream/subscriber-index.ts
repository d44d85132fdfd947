// Open streams indexed by scope, so an event costs work only for the streams it matches.
import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { EventScope } from '../ports/store.ts'

export type Subscriber = {
  readonly res: ServerResponse
  /**
   * The socket live frames go straight to, once the head and `retry` are out on it (null until then,
   * or when the response has none: then they go through `res`). `chunked`: the response is
   * chunk-encoded, so what goes straight to the socket must carry the chunk framing too.
   */
  socket: Socket | null
  chunked: boolean
  /** the request id its log lines carry (`reqId`); null for a stream opened without one */
  readonly requestId: string | null
  /** null until the request has been resolved against the store */
  scope: EventScope | null
  /** the scope under which the index feeds it live events (set by goLive), else null */
  live: EventScope | null
  /** seq of the last event written or covered by the snapshot; anything at or below it is skipped */
  lastSeq: number
  /** true once removed; nothing is written after that */
  done: boolean
  /** a look at the queue is scheduled for the next loop turn */
  queueCheckPending: boolean
  /** set while a replay waits for the client to drain: keep-alive ticks seen, and how to wake it */
  drainWait: { ticks: number; resume(): void } | null
}

/** A stream just opened on `res`: nothing resolved, nothing written, not yet live. */
export function newSubscriber(res: ServerResponse, requestId: string | null): Subscriber {
  return {
    res,
    socket: null,
    chunked: false,
    requestId,
    scope: null,
    live: null,
    lastSeq: 0,
    done: false,
    queueCheckPending: false,
    drainWait: null,
  }
}

export type SubscriberIndex = {
  /** Counts a stream that is still being opened (keep-alives, close), not yet fed live events. */
  add(sub: Subscriber): void
  /** From now on `matching` returns it for events of its scope. */
  goLive(sub: Subscriber, scope: EventScope): void
  remove(sub: Subscriber): void
  /**
   * Live streams whose scope is `series` or `ticker`, as the index's own sets (none, one or two):
   * walked in place, so an event costs no copy of its subscribers.
   */
  matching(series: string, ticker: string): readonly ReadonlySet<Subscriber>[]
  all(): Iterable<Subscriber>
  size(): number
}

const NONE: readonly ReadonlySet<Subscriber>[] = []

export function createSubscriberIndex(): SubscriberIndex {
  const all = new Set<Subscriber>()
  const bySeries = new Map<string, Set<Subscriber>>()
  const byTicker = new Map<string, Set<Subscriber>>()
  // Where a live stream is filed is read off its own `live` scope: no second map entry per stream.
  const placeOf = (scope: EventScope): [Map<string, Set<Subscriber>>, string] =>
    'ticker' in scope ? [byTicker, scope.ticker] : [bySeries, scope.series]

  return {
    add(sub) {
      all.add(sub)
    },
    goLive(sub, scope) {
      if (!all.has(sub) || sub.live !== null) return
      const [map, key] = placeOf(scope)
      let set = map.get(key)
      if (set === undefined) {
        set = new Set()
        map.set(key, set)
      }
      set.add(sub)
      sub.live = scope
    },
    remove(sub) {
      all.delete(sub)
      if (sub.live === null) return
      const [map, key] = placeOf(sub.live)
      sub.live = null
      const set = map.get(key)
      set?.delete(sub)
      if (set?.size === 0) map.delete(key)
    },
    matching(series, ticker) {
      const s = bySeries.get(series)
      // Events outside any contest carry ticker '' and must not match a stream scoped to ''.
      const t = ticker === '' ? undefined : byTicker.get(ticker)
      if (t === undefined) return s === undefined ? NONE : [s]
      return s === undefined ? [t] : [s, t]
    },
    all: () => all,
    size: () => all.size,
  }
}
