// The single error handler: everything that goes wrong in a route leaves as application/problem+json
// (requests that find no route go to not-found.ts). Known problems carry their own name; Fastify's validation and client
// errors map by context and status; anything else is logged with the request id and answered as a
// bare 500 (or 503 with Retry-After when the store cannot answer), with no internals in the body.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { isStoreUnavailable } from '../ports/store-errors.ts'
import type { StoreOutage } from '../store/store-outage.ts'
import type { StoreProbe } from '../store/store-probe.ts'
import { ProblemError, problemForStatus, sendProblem, TICKER_NOT_FOUND } from './problems.ts'
import { invalidParamsFrom, withBoundsOrder } from './query-rules.ts'

type SchemaParts = Partial<Record<string, unknown>>

export function createErrorHandler(opts: {
  baseUrl: string
  probe: StoreProbe
  storeOutage: Pick<StoreOutage, 'failed'>
}) {
  const { baseUrl, probe, storeOutage } = opts
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
      // A path parameter that fails its schema (an empty or overlong ticker) names no contest.
      if (error.validationContext === 'params')
        return sendProblem(reply, baseUrl, 'not-found', TICKER_NOT_FOUND)
      const schema = (request.routeOptions.schema as SchemaParts | undefined)?.[error.validationContext ?? '']
      const invalid = invalidParamsFrom(error.validation, schema)
      return sendProblem(reply, baseUrl, 'invalid-parameter', {
        invalidParams:
          error.validationContext === 'querystring'
            ? withBoundsOrder(invalid, request.query as Record<string, unknown>, schema)
            : invalid,
      })
    }
    const status = error.statusCode ?? 500
    if (status >= 400 && status < 500) {
      return sendProblem(reply, baseUrl, problemForStatus(status) ?? 'bad-request')
    }
    // The one place a store failure becomes 503 (decisions §4): the store says so itself
    // (connection lost, admin shutdown, cannot connect, statement timeout), or the probe cannot reach
    // it. Every request meets the outage: it is logged as one (store/store-outage.ts), not a stack each.
    if (isStoreUnavailable(error) || !(await probe.read()).reachable) {
      storeOutage.failed(error)
      return sendProblem(reply, baseUrl, 'unavailable')
    }
    request.log.error({ err: error }, 'request failed')
    return sendProblem(reply, baseUrl, 'internal-error')
  }
}
