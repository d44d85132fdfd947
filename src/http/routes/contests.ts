// GET /v1/contests/active, /v1/contests/{ticker} and /v1/contests (docs/api-contract.md §4): every answer
// comes from the contest cache as pre-serialized bytes with a strong ETag.
import type { FastifyRequest } from 'fastify'
import type { ContestCache } from '../contest-cache.ts'
import { PATHS } from '../paths.ts'
import { ProblemError, TICKER_NOT_FOUND } from '../problems.ts'
import {
  beforeMs,
  guardQueryShape,
  isAfter,
  parseInstant,
  SINCE_AFTER_BEFORE,
  sinceMs,
} from '../query-rules.ts'
import { CONTEST_CACHE_CONTROL, sendRepresentation } from '../representation.ts'
import {
  ActiveQuerySchema,
  ConditionalHeadersSchema,
  contestLink,
  HistoryQuerySchema,
  jsonResponse,
  KEYED_PROBLEMS,
  LIMIT_DEFAULT,
  NOT_MODIFIED_RESPONSE,
  problemResponses,
  TickerParamsSchema,
} from '../schemas.ts'
import type { TypedApp } from '../typed-app.ts'

export type ContestRoutesDeps = {
  cache: ContestCache
  requireKey: (request: FastifyRequest) => Promise<void>
}

const TAGS = ['contests']
const SECURITY = [{ bearerAuth: [] }]

export function registerContestRoutes(app: TypedApp, deps: ContestRoutesDeps): void {
  const { cache, requireKey } = deps
  // After the rate limiter, the key is checked before the parameters: a caller without a valid key
  // learns nothing else (an overlong ticker fails TickerParamsSchema, answered as not found).
  const hooks = { onRequest: requireKey, preValidation: guardQueryShape }
  const headers = ConditionalHeadersSchema

  app.get(
    PATHS.activeContest,
    {
      ...hooks,
      schema: {
        operationId: 'getActiveContest',
        summary: 'The live contest of a series',
        description:
          'Returns the live contest of the series, with all its signals. A `series` equal to the ticker of a live contest selects that contest. 404 when the series has no live contest.',
        tags: TAGS,
        security: SECURITY,
        querystring: ActiveQuerySchema,
        headers,
        response: {
          200: jsonResponse(
            'Contest',
            'The live contest, including all its signals.',
            true,
            contestLink('/ticker', 'The same contest by its ticker, also once it has settled.'),
          ),
          304: NOT_MODIFIED_RESPONSE,
          ...KEYED_PROBLEMS,
          ...problemResponses(404),
        },
      },
    },
    async (request, reply) => {
      const { series } = request.query
      const rep = await cache.active(series)
      if (!rep) throw new ProblemError('not-found', { detail: 'No live contest matches this series.' })
      return sendRepresentation(request, reply, rep, CONTEST_CACHE_CONTROL)
    },
  )

  app.get(
    PATHS.contest,
    {
      ...hooks,
      schema: {
        operationId: 'getContest',
        summary: 'One contest by its full ticker',
        description: 'Returns one contest, live, expired or settled. A truncated ticker returns 404.',
        tags: TAGS,
        security: SECURITY,
        params: TickerParamsSchema,
        headers,
        response: {
          200: jsonResponse('Contest', 'The contest, including all its signals.', true),
          304: NOT_MODIFIED_RESPONSE,
          ...KEYED_PROBLEMS,
          ...problemResponses(404),
        },
      },
    },
    async (request, reply) => {
      const { ticker } = request.params
      const rep = await cache.contest(ticker)
      if (!rep) throw new ProblemError('not-found', TICKER_NOT_FOUND)
      return sendRepresentation(request, reply, rep, CONTEST_CACHE_CONTROL)
    },
  )

  app.get(
    PATHS.contests,
    {
      ...hooks,
      schema: {
        operationId: 'listSettledContests',
        summary: 'Settled contests of a series, newest first',
        description:
          'Settled contests of the series ordered by window.expires_at descending, then ticker descending, each with all its graded signals. Live and expired rounds are excluded. `since` and `before` are both inclusive. To page, pass the oldest expires_at received as `before` and drop the repeated first row.',
        tags: TAGS,
        security: SECURITY,
        querystring: HistoryQuerySchema,
        headers,
        response: {
          200: jsonResponse(
            'ContestList',
            'The settled contests, newest first; empty when there are none.',
            true,
            contestLink('/contests/0/ticker', 'The newest contest of the page by its ticker.'),
          ),
          304: NOT_MODIFIED_RESPONSE,
          ...KEYED_PROBLEMS,
        },
      },
    },
    async (request, reply) => {
      const { series, limit, since, before } = request.query
      const sinceBound = parseInstant('since', since)
      const beforeBound = parseInstant('before', before)
      if (sinceBound && beforeBound && isAfter(sinceBound, beforeBound)) {
        throw new ProblemError('invalid-parameter', { invalidParams: [SINCE_AFTER_BEFORE] })
      }
      const rep = await cache.history({
        series,
        limit: limit ?? LIMIT_DEFAULT,
        since: sinceBound && sinceMs(sinceBound),
        before: beforeBound && beforeMs(beforeBound),
      })
      return sendRepresentation(request, reply, rep, CONTEST_CACHE_CONTROL)
    },
  )
}
