// One live event to every stream it matches. A client waits for the socket write alone, so the
// writes run back to back in one pass over a dense list: every per-subscriber check (already had it,
// ended, which framing) comes before the first of them, the look at each queue after the last. Walked
// fused, the checks sat between the writes and stretched the time from the first subscriber hearing
// of an event to the last (bench/stream-fanout.ts, the spread) by each stream's share of them.
import type { Socket } from 'node:net'
import type { Subscriber } from './subscriber-index.ts'

export type FanOutDeps = {
  /** a stream with no socket of its own yet: the frame goes through its response, with its checks */
  writeThroughResponse(sub: Subscriber, frame: Buffer): void
  /** a socket write threw: the stream is dropped and destroyed */
  failed(sub: Subscriber, err: unknown): void
  /** after the writes: how much waits for this client (the slow-consumer cut-off) */
  watchQueue(sub: Subscriber): void
}

export type FanOut = {
  /**
   * Writes event `seq` to every subscriber of `matching` that has not had it: `chunk` (the frame in
   * HTTP/1.1 chunk framing) to a chunk-encoded stream's socket, `frame` bare to any other. With
   * `corked`, each socket is corked before its first write and pushed there, for the caller to
   * uncork once its batch is written.
   */
  send(
    matching: readonly ReadonlySet<Subscriber>[],
    seq: number,
    frame: Buffer,
    chunk: Buffer,
    corked: Socket[] | null,
  ): void
}

export function createFanOut(deps: FanOutDeps): FanOut {
  // Reused from event to event and emptied after each, so no closed stream is held by them.
  const subs: Subscriber[] = []
  const sockets: Socket[] = []
  const payloads: Buffer[] = []

  return {
    send(matching, seq, frame, chunk, corked) {
      for (const set of matching) {
        for (const sub of set) {
          // replay and live can overlap: what a stream already had is skipped
          if (seq <= sub.lastSeq) continue
          sub.lastSeq = seq
          if (sub.done || sub.res.destroyed || sub.res.writableEnded) continue
          const socket = sub.socket
          if (socket === null) {
            deps.writeThroughResponse(sub, frame)
            continue
          }
          if (socket.destroyed) continue
          if (corked !== null && !socket.writableCorked) {
            socket.cork()
            corked.push(socket)
          }
          subs.push(sub)
          sockets.push(socket)
          payloads.push(sub.chunked ? chunk : frame)
        }
      }
      const n = sockets.length
      for (let i = 0; i < n; i++) {
        try {
          sockets[i]!.write(payloads[i]!)
        } catch (err) {
          deps.failed(subs[i]!, err)
        }
      }
      for (let i = 0; i < n; i++) deps.watchQueue(subs[i]!)
      subs.length = 0
      sockets.length = 0
      payloads.length = 0
    },
  }
}
