// The single error handler and the not-found handler: everything that goes wrong leaves as
// application/problem+json. Known problems carry their own name; Fastify's validation and client
// errors map by context and status; anything else is logged with the request id and answered as a
// bare 500 (or 503 when the store is the cause), with no internals in the body.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { ProblemError, problemForStatus, sendProblem } from './problems.ts'
import { invalidParamsFrom } from './query-rules.ts'
import { answerMethodNotAllowed } from './routes/method-not-allowed.ts'
import type { StoreProbe } from './store-probe.ts'

export const RETRY_AFTER_UNAVAILABLE_S = 5

type SchemaParts = Partial<Record<string, unknown>>

export function createErrorHandler(opts: { baseUrl: string; probe: StoreProbe }) {
  const { baseUrl, probe } = opts
  return async function errorHandler(
    error: FastifyError,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<FastifyReply | undefined> {
    if (reply.sent || reply.raw.headersSent) {
      request.log.error({ err: error }, 'error after the response started')
      return undefined
    }
    if (error instanceof ProblemError) return sendProblem(reply, baseUrl, error.problem, error.options)
    if (error.validation) {
      // A path parameter that fails its schema (an empty ticker) names no contest: not found.
      if (error.validationContext === 'params') {
        return sendProblem(reply, baseUrl, 'not-found', { detail: 'No contest has this ticker.' })
      }
      const schema = (request.routeOptions.schema as SchemaParts | undefined)?.[error.validationContext ?? '']
      return sendProblem(reply, baseUrl, 'invalid-parameter', {
        invalidParams: invalidParamsFrom(error.validation, schema),
      })
    }
    const status = error.statusCode ?? 500
    if (status >= 400 && status < 500) {
      return sendProblem(reply, baseUrl, problemForStatus(status) ?? 'bad-request')
    }
    request.log.error({ err: error }, 'request failed')
    if (!(await probe.read()).reachable) {
      return sendProblem(reply, baseUrl, 'unavailable', {
        headers: { 'retry-after': String(RETRY_AFTER_UNAVAILABLE_S) },
      })
    }
    return sendProblem(reply, baseUrl, 'internal-error')
  }
}

export function createNotFoundHandler(baseUrl: string, allowFor: (path: string) => string | null) {
  return function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
    if (answerMethodNotAllowed(request, reply, baseUrl, allowFor)) return reply
    return sendProblem(reply, baseUrl, 'not-found', { detail: 'There is no resource at this path.' })
  }
}
