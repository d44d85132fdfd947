// Handing a response over to the stream hub: the stream route and the fast path both end here, with
// the head each built (an object there, a flat list here, in the same order). Also the stream's
// access-log line, written when the stream ends (its status is the 200 it opened with, its bytes
// what went out on the socket meanwhile, head included).
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import type { FastifyBaseLogger } from 'fastify'
import type { StreamHub } from '../stream/stream-hub.ts'
import type { StreamOpenRequest } from '../stream/stream-resume.ts'
import type { AccessLog } from './access-log.ts'
import { exemptFromIdleTimeout } from './idle-connections.ts'
import type { OpenStreams } from './open-streams.ts'
import type { RequestFacts } from './request-rules.ts'
import { SSE_MEDIA_TYPE } from './schemas.ts'

/** What a stream's 200 adds to the headers set before it (the edge and CORS headers). */
export const STREAM_HEADERS: readonly (readonly [string, string])[] = [
  ['content-type', `${SSE_MEDIA_TYPE}; charset=utf-8`],
  ['cache-control', 'no-store'],
  // nginx and friends buffer responses unless told not to, which would hold events back.
  ['x-accel-buffering', 'no'],
]

export type StreamHandOver = {
  streams: StreamHub
  accessLog: AccessLog
  log: FastifyBaseLogger
  /** the registry that admitted the stream (the per-address cap, revocation): released at its end */
  openStreams: OpenStreams
}

/**
 * A stream's client that closes its side of the connection is gone: an event-stream client sends
 * nothing after its request. The server lets answers in progress finish after a client's FIN
 * (app.ts: httpAllowHalfOpen), so a stream would otherwise stay open until a write to the closed
 * peer failed, up to a keep-alive interval later, holding its place under STREAM_MAX_PER_ADDRESS.
 * One function for every stream (`this` is the socket), not a closure each.
 */
function endWithClient(this: Socket): void {
  this.destroy()
}

/**
 * Writes a stream's head and hands the response to the hub. The stream was admitted to
 * `deps.openStreams` under its client's bucket key and `keyId`.
 */
export async function openStream(
  deps: StreamHandOver,
  res: ServerResponse,
  head: OutgoingHttpHeaders | string[],
  request: StreamOpenRequest,
  facts: RequestFacts,
  keyId: string,
): Promise<void> {
  // A stream is quiet between keep-alives and has its own cut-off for clients that stop reading:
  // the idle timeout of ordinary requests does not apply to it.
  const socket = res.socket
  if (socket) {
    exemptFromIdleTimeout(socket)
    if (socket.readableEnded) socket.destroy()
    else socket.on('end', endWithClient)
  }
  const bytesBefore = socket?.bytesWritten ?? 0
  // The few facts the end of the stream needs, not the facts object (and the headers it holds),
  // which the fast path lets go of once the stream is handed over (forgetRequestFacts).
  const { bucketKey, startedAt, address, requestId } = facts
  // One listener for everything that happens at the end of a stream here, and `on` rather than
  // `once` ('close' comes once): every listener and every once() wrapper is held per open stream.
  res.on('close', () => {
    deps.openStreams.release(bucketKey, keyId, res)
    deps.accessLog.write({
      method: 'GET',
      path: res.req.url ?? '',
      status: 200,
      bytes: (socket?.bytesWritten ?? bytesBefore) - bytesBefore,
      durationMs: performance.now() - startedAt,
      address,
      reqId: requestId,
    })
  })
  res.writeHead(200, head)
  res.flushHeaders()
  try {
    await deps.streams.attach(res, request, requestId)
  } catch (err) {
    deps.log.error({ reqId: requestId, err }, 'stream attach failed')
    if (!res.writableEnded) res.end()
  }
}
