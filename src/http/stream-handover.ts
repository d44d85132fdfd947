// Handing a response over to the stream hub: the stream route and the fast path both end here, with
// the head each built (an object there, a flat list here, in the same order). Also the stream's
// access-log line, written when the stream ends (its status is the 200 it opened with, its bytes
// what went out on the socket meanwhile, head included).
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http'
import { performance } from 'node:perf_hooks'
import type { FastifyBaseLogger } from 'fastify'
import type { StreamHub, StreamLogger, StreamOpenRequest } from '../stream/stream-hub.ts'
import type { AccessLog } from './access-log.ts'
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
}

/** Writes a stream's head and hands the response to the hub. */
export async function openStream(
  deps: StreamHandOver,
  res: ServerResponse,
  head: OutgoingHttpHeaders | string[],
  request: StreamOpenRequest,
  facts: RequestFacts,
): Promise<void> {
  // A stream is quiet between keep-alives and has its own cut-off for clients that stop reading:
  // the idle timeout of ordinary requests does not apply to it.
  const socket = res.socket
  socket?.setTimeout(0)
  const bytesBefore = socket?.bytesWritten ?? 0
  res.once('close', () =>
    deps.accessLog.write({
      method: 'GET',
      path: res.req.url ?? '',
      status: 200,
      bytes: (socket?.bytesWritten ?? bytesBefore) - bytesBefore,
      durationMs: performance.now() - facts.startedAt,
      address: facts.address,
      reqId: facts.requestId,
    }),
  )
  res.writeHead(200, head)
  res.flushHeaders()
  const log = lazyRequestLogger(deps.log, facts.requestId)
  try {
    await deps.streams.attach(res, request, log)
  } catch (err) {
    log.error({ err }, 'stream attach failed')
    if (!res.writableEnded) res.end()
  }
}

/**
 * A stream's logger, with its request id, made only if the stream ever logs: holding the request's
 * own child logger for the whole life of every open stream cost memory per connection for lines
 * that are rarely written. The lines carry the same `reqId` binding.
 */
function lazyRequestLogger(log: FastifyBaseLogger, reqId: string): StreamLogger {
  let child: FastifyBaseLogger | undefined
  const get = () => {
    child ??= log.child({ reqId })
    return child
  }
  return {
    warn: (...args: Parameters<FastifyBaseLogger['warn']>) => get().warn(...args),
    error: (...args: Parameters<FastifyBaseLogger['error']>) => get().error(...args),
  } as StreamLogger
}
