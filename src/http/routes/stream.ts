// GET /v1/stream/contests (spec §4.4, §6): after the key check and the one token the hook took, the
// route hands the raw response to the stream hub. It is hijacked, so it bypasses serialization
// and compression; the CORS and request-id headers set so far are copied onto the status line.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http'
import type { FastifyBaseLogger, FastifyRequest } from 'fastify'
import { bucketKeyFor } from '../../domain/client-address.ts'
import type { StreamHub, StreamLogger, StreamOpenRequest } from '../../stream/stream-hub.ts'
import type { OpenStreams } from '../open-streams.ts'
import { PATHS } from '../paths.ts'
import { ProblemError } from '../problems.ts'
import { guardQueryShape } from '../query-rules.ts'
import { keyIdOf } from '../require-key.ts'
import {
  KEYED_PROBLEMS,
  SSE_MEDIA_TYPE,
  STREAM_RESPONSE,
  StreamHeadersSchema,
  StreamQuerySchema,
} from '../schemas.ts'
import type { TypedApp } from '../typed-app.ts'

export type StreamRouteDeps = {
  streams: StreamHub
  requireKey: (request: FastifyRequest) => Promise<void>
  openStreams: OpenStreams
  /** the burst, sent as X-RateLimit-Limit when the per-address stream cap refuses */
  rateLimitBurst: number
  streamMaxPerAddress: number
}

/** Seconds a client refused by the stream cap is asked to wait: streams close rarely, so not 1. */
const STREAM_CAP_RETRY_AFTER_S = 5

export function registerStreamRoute(app: TypedApp, deps: StreamRouteDeps): void {
  const { streams, requireKey, openStreams } = deps
  app.get(
    PATHS.stream,
    {
      // The key is checked before the parameters: a caller without a valid key learns nothing else.
      onRequest: requireKey,
      preValidation: guardQueryShape,
      // HEAD would open a stream with nowhere to send it; it gets a 405 instead.
      exposeHeadRoute: false,
      compress: false,
      schema: {
        operationId: 'streamContests',
        summary: 'Server-Sent Events of contest openings, signals and settlements',
        description:
          'A long-lived text/event-stream. Opening it costs one request against the rate allowance; events cost nothing. Reconnect with Last-Event-ID (or last_event_id) to resume without a gap or a duplicate; an unknown or expired id gets the fresh-connect snapshot. A `series` equal to a live contest ticker scopes the stream to that contest.',
        tags: ['stream'],
        security: [{ bearerAuth: [] }],
        querystring: StreamQuerySchema,
        headers: StreamHeadersSchema,
        response: { 200: STREAM_RESPONSE, ...KEYED_PROBLEMS },
      },
    },
    async (request, reply) => {
      const { series, last_event_id: queryId } = request.query
      const headerId = request.headers['last-event-id']
      const lastEventId = typeof headerId === 'string' ? headerId : (queryId ?? null)
      // The cap per client address (STREAM_MAX_PER_ADDRESS): refused as a rate limit, with its headers.
      if (!openStreams.admit(bucketKeyFor(request.ip), keyIdOf(request) ?? '', reply.raw)) {
        throw new ProblemError('rate-limited', {
          detail: `Too many open streams from this address (at most ${deps.streamMaxPerAddress}); close one, or retry after the number of seconds given in Retry-After.`,
          headers: {
            'retry-after': String(STREAM_CAP_RETRY_AFTER_S),
            'x-ratelimit-limit': String(deps.rateLimitBurst),
            'x-ratelimit-remaining': '0',
          },
        })
      }
      // A stream is quiet between keep-alives and has its own cut-off for clients that stop reading:
      // the idle timeout of ordinary requests does not apply to it.
      request.raw.socket?.setTimeout(0)
      reply.hijack()
      const headers: OutgoingHttpHeaders = {}
      for (const [name, value] of Object.entries(reply.getHeaders()))
        if (value !== undefined) headers[name] = value
      for (const [name, value] of STREAM_HEADERS) headers[name] = value
      await openStream(
        streams,
        reply.raw,
        headers,
        { series, lastEventId },
        lazyRequestLogger(app.log, request.id),
      )
    },
  )
}

/** What a stream's 200 adds to the headers set before it (the edge and CORS headers). */
export const STREAM_HEADERS: readonly (readonly [string, string])[] = [
  ['content-type', `${SSE_MEDIA_TYPE}; charset=utf-8`],
  ['cache-control', 'no-store'],
  // nginx and friends buffer responses unless told not to, which would hold events back.
  ['x-accel-buffering', 'no'],
]

/**
 * Writes a stream's head and hands the response to the hub: the route and the fast path both end
 * here, with the head each built (an object here, a flat list there, in the same order).
 */
export async function openStream(
  streams: StreamHub,
  res: ServerResponse,
  head: OutgoingHttpHeaders | string[],
  request: StreamOpenRequest,
  log: StreamLogger,
): Promise<void> {
  res.writeHead(200, head)
  res.flushHeaders()
  try {
    await streams.attach(res, request, log)
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
export function lazyRequestLogger(log: FastifyBaseLogger, reqId: string): StreamLogger {
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
