// GET /v1/stream/contests (docs/api-contract.md §4, §6): after the key check and the one token the
// hook took, the route hands the raw response to the stream hub. It is hijacked, so it bypasses
// serialization and compression; the CORS and request-id headers set so far are copied onto the
// status line.
import type { OutgoingHttpHeaders } from 'node:http'
import type { FastifyRequest } from 'fastify'
import type { OpenStreams } from '../open-streams.ts'
import { PATHS } from '../paths.ts'
import { ProblemError } from '../problems.ts'
import { guardQueryShape } from '../query-rules.ts'
import type { RequestRules } from '../request-rules.ts'
import { keyIdOf } from '../require-key.ts'
import { KEYED_PROBLEMS, STREAM_RESPONSE, StreamHeadersSchema, StreamQuerySchema } from '../schemas.ts'
import { openStream, STREAM_HEADERS, type StreamHandOver } from '../stream-handover.ts'
import type { TypedApp } from '../typed-app.ts'

export type StreamRouteDeps = {
  handOver: StreamHandOver
  rules: RequestRules
  requireKey: (request: FastifyRequest) => Promise<void>
  openStreams: OpenStreams
  /** the burst, sent as X-RateLimit-Limit when the per-address stream cap refuses */
  rateLimitBurst: number
  streamMaxPerAddress: number
}

/** Seconds a client refused by the stream cap is asked to wait: streams close rarely, so not 1. */
const STREAM_CAP_RETRY_AFTER_S = 5

export function registerStreamRoute(app: TypedApp, deps: StreamRouteDeps): void {
  const { requireKey, openStreams, rules } = deps
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
      const facts = rules(request.raw)
      const keyId = keyIdOf(request) ?? ''
      if (!openStreams.admit(facts.bucketKey, keyId, reply.raw)) {
        throw new ProblemError('rate-limited', {
          // The spec's rate-limit sentence (section 7), then which limit it was.
          detail: `The rate limit is exceeded: too many open streams from this address (at most ${deps.streamMaxPerAddress}); close one, or retry shortly, after the number of seconds given in Retry-After.`,
          headers: {
            'retry-after': String(STREAM_CAP_RETRY_AFTER_S),
            'x-ratelimit-limit': String(deps.rateLimitBurst),
            'x-ratelimit-remaining': '0',
          },
        })
      }
      reply.hijack()
      const headers: OutgoingHttpHeaders = {}
      for (const [name, value] of Object.entries(reply.getHeaders()))
        if (value !== undefined) headers[name] = value
      for (const [name, value] of STREAM_HEADERS) headers[name] = value
      await openStream(deps.handOver, reply.raw, headers, { series, lastEventId }, facts, keyId)
    },
  )
}
