// Answers for requests that never reach a route, still as problems: URLs the router cannot parse
// (Fastify's frameworkErrors, which skip every hook, so they are counted and rate limited here) and
// requests Node cannot parse at all (clientErrorHandler, answered on the bare socket).
import type { IncomingMessage } from 'node:http'
import type { Duplex, Writable } from 'node:stream'
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { bucketKeyOf } from '../domain/client-address.ts'
import { type AccessLog, accessLevel } from './access-log.ts'
import type { ClientAddressOf } from './client-address.ts'
import { addCorsHeaders, type CorsPolicy, corsSimpleHeaders } from './cors.ts'
import { failedRequest, forwardedForIn, originIn, parserFault } from './parser-faults.ts'
import { PATHS } from './paths.ts'
import {
  PROBLEM_MEDIA_TYPE,
  PROBLEMS,
  type ProblemName,
  problemBody,
  sendProblem,
  TICKER_NOT_FOUND,
} from './problems.ts'
import type { LimitVerdict, RateLimiter } from './rate-limit.ts'
import { edgeHeaders, requestIdFrom, setEdgeHeaders } from './request-id.ts'
import { countWhenAnswered, type RequestMetrics, UNKNOWN_ROUTE } from './request-metrics.ts'
import { answerRefusal, type RequestRules } from './request-rules.ts'

export type FrameworkErrorDeps = {
  baseUrl: string
  cors: CorsPolicy
  rateLimiter: RateLimiter
  metrics?: RequestMetrics
  accessLog: AccessLog
  rules: RequestRules
  /** the client address of a request that has no request object (decisions §5) */
  clientAddress: ClientAddressOf
  /** writes a framework answer's access line (the hooks that would do it never run here) */
  logAnswer(request: FastifyRequest, reply: FastifyReply): void
  /** the app's logger, read when a socket error arrives (the app exists by then) */
  log: () => FastifyBaseLogger
}

/** What an answer on the bare socket says, and of which request. */
type SocketAnswer = {
  name: ProblemName
  detail: string | undefined
  head: boolean
  method: string
  target: string
  /** the request's Origin, where its bytes give one: the answer's CORS headers depend on it */
  origin: string | undefined
}

const remoteAddressOf = (socket: Duplex): string =>
  (socket as Duplex & { remoteAddress?: string }).remoteAddress ?? ''

export function createFrameworkErrorAnswers(deps: FrameworkErrorDeps) {
  const { baseUrl, metrics } = deps

  /** URLs the router cannot even parse skip every hook, so they are counted and answered here. */
  async function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    try {
      if (metrics) countWhenAnswered(metrics, request, reply)
      reply.raw.once('finish', () => deps.logAnswer(request, reply))
      setEdgeHeaders(reply, request.id)
      // as in app.ts's hooks: the limiter, then the request rules
      if (await deps.rateLimiter.refuse(request, reply)) return
      if (answerRefusal(deps, request, reply)) return
      addCorsHeaders(deps.cors, request, reply)
      if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
        sendProblem(reply, baseUrl, 'not-found', TICKER_NOT_FOUND)
      } else if (error.code === 'FST_ERR_BAD_URL') {
        sendProblem(reply, baseUrl, 'bad-request', { detail: 'The URL has invalid percent-encoding.' })
      } else {
        request.log.error({ err: error }, 'router failed')
        sendProblem(reply, baseUrl, 'internal-error')
      }
    } catch (err) {
      request.log.error({ err }, 'answering a framework error failed')
      if (!reply.raw.headersSent) reply.raw.writeHead(500).end()
    }
  }

  /** Requests Node cannot parse never reach Fastify: answer them on the socket, still as problems. */
  function clientErrorHandler(
    error: NodeJS.ErrnoException & { rawPacket?: unknown; bytesParsed?: unknown },
    socket: Duplex,
  ): void {
    if (error.code === 'ECONNRESET' || error.code === 'EPIPE' || !socket.writable) {
      socket.destroy()
      return
    }
    // Requests pipelined ahead of the bytes that failed are answered first, in order (RFC 9112 §9.3.2):
    // the fault's answer waits for each response still on the socket.
    const pending = (socket as Duplex & { _httpMessage?: Writable | null })._httpMessage
    if (pending && !pending.writableFinished) {
      pending.once('finish', () => clientErrorHandler(error, socket))
      return
    }
    const { name, detail } = parserFault(error.code, error.rawPacket, error.bytesParsed)
    deps.log().debug({ code: error.code }, 'client error')
    // The answer to HEAD has no body (RFC 9110 §9.3.2), even when the request was too big to parse.
    const raw = error.rawPacket
    const head = Buffer.isBuffer(raw) && raw.subarray(0, 5).toString('latin1') === 'HEAD '
    // The line has what the bytes say: method and target when the first line is shaped like a
    // request line, empty when the bytes are no request at all.
    const request = failedRequest(error.rawPacket, error.bytesParsed)
    const answer = {
      name,
      detail,
      head,
      method: request?.method ?? '',
      target: request?.target ?? '',
      origin: originIn(error.rawPacket, error.bytesParsed),
    }
    // A connection that sent no whole request in time asked for nothing to count; the health check is
    // never counted, whatever its bytes (decisions §5).
    const health =
      request !== null &&
      (request.method === 'GET' || request.method === 'HEAD') &&
      request.target.split('?', 1)[0] === PATHS.health
    if (name === 'request-timeout' || health) {
      answerOnSocket(socket, answer, remoteAddressOf(socket))
      return
    }
    const address = deps.clientAddress(
      remoteAddressOf(socket),
      forwardedForIn(error.rawPacket, error.bytesParsed),
    )
    countThenAnswer(socket, bucketKeyOf(address), answer, address)
  }

  /**
   * CONNECT asks for a tunnel, which this server never opens: Node hands such a request to the
   * server's 'connect' listeners and, with none, destroys the socket without a word. Answered here
   * as a method it does not implement (RFC 9110 §15.6.2), like an unknown method token.
   */
  function connectHandler(request: IncomingMessage, socket: Duplex): void {
    if (!socket.writable) {
      socket.destroy()
      return
    }
    const facts = deps.rules(request)
    countThenAnswer(
      socket,
      facts.bucketKey,
      {
        name: 'not-implemented',
        detail: undefined,
        head: false,
        method: request.method ?? 'CONNECT',
        target: request.url ?? '',
        origin: typeof request.headers.origin === 'string' ? request.headers.origin : undefined,
      },
      facts.address,
    )
  }

  /**
   * Counts an answer on the bare socket like any request (decisions §5: whatever its outcome), and
   * sends 429 instead when the client's bucket is empty.
   */
  function countThenAnswer(
    socket: Duplex,
    key: string | number,
    answer: SocketAnswer,
    address: string,
  ): void {
    const send = (verdict: LimitVerdict) => {
      if (!socket.writable) {
        socket.destroy()
        return
      }
      if (verdict === null || verdict.allowed) answerOnSocket(socket, answer, address)
      else
        answerOnSocket(
          socket,
          { ...answer, name: 'rate-limited', detail: undefined },
          address,
          deps.rateLimiter.refusalHeaders(verdict),
        )
    }
    const verdict = deps.rateLimiter.takeFor(key, (err) =>
      deps.log().error({ err }, 'rate-limit store failed; request let through uncounted'),
    )
    if (verdict instanceof Promise) void verdict.then(send)
    else send(verdict)
  }

  /** A problem written on the bare socket, which is then closed: counted and logged as an answer. */
  function answerOnSocket(
    socket: Duplex,
    a: SocketAnswer,
    address: string,
    headers: Record<string, string> = {},
  ): void {
    const body = JSON.stringify(
      problemBody(baseUrl, a.name, a.detail === undefined ? {} : { detail: a.detail }),
    )
    const { status, title } = PROBLEMS[a.name]
    metrics?.countRequest(UNKNOWN_ROUTE, UNKNOWN_ROUTE, status, 0)
    // No header was parsed, so the client's own X-Request-Id cannot be trusted to be read: a fresh one.
    const reqId = requestIdFrom(undefined)
    const always = [
      ...Object.entries(headers),
      ...corsSimpleHeaders(deps.cors, a.origin),
      ...edgeHeaders(reqId),
    ]
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')
    socket.end(
      `HTTP/1.1 ${status} ${title}\r\nContent-Type: ${PROBLEM_MEDIA_TYPE}; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\n${always}Connection: close\r\n\r\n${a.head ? '' : body}`,
    )
    const level = accessLevel(a.target, status)
    if (level !== null)
      deps.accessLog.write(
        {
          method: a.method,
          path: a.target,
          status,
          bytes: Buffer.byteLength(body),
          durationMs: 0,
          address,
          reqId,
        },
        level,
      )
  }

  return {
    frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
      void answerFrameworkError(error, request, reply)
    },
    clientErrorHandler,
    connectHandler,
  }
}
