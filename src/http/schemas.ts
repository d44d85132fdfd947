// Every schema of the HTTP interface, written once: Fastify validates requests with them and
// @fastify/swagger turns the same objects into the OpenAPI document. Shared shapes are registered
// by $id and referenced, so the document lists them once under components.schemas.
import { Type } from 'typebox'
import { CONTEST_STATES, OUTCOMES, SIDES } from '../domain/contest.ts'
import { PROBLEM_MEDIA_TYPE } from './problems.ts'
import { contestVenueMembers, KalshiRefsSchema, PolymarketRefsSchema } from './venue-ref-schemas.ts'

export const JSON_MEDIA_TYPE = 'application/json'
export const SSE_MEDIA_TYPE = 'text/event-stream'

const stringEnum = <const T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...(description ? { description } : {}) })

const nullable = (schema: object, description: string) =>
  Type.Unsafe({ anyOf: [schema, { type: 'null' }], description })

const instant = (description: string) => Type.String({ format: 'date-time', description })

// ---- resources (docs/api-contract.md §2)

export const SignalSchema = Type.Object(
  {
    ticker: Type.String({ description: 'Ticker of the contest the signal belongs to.' }),
    raised_at: instant('When the signal was raised: RFC 3339 in UTC with milliseconds.'),
    side: stringEnum(SIDES),
    confidence: Type.Number({ minimum: 0, maximum: 100, description: 'Model probability on `side`, 0–100.' }),
    entry_price_cents: Type.Number({
      minimum: 0,
      maximum: 100,
      description: 'Venue quote for `side` on the 0–100 cent scale.',
    }),
    edge_cents: Type.Number({ description: 'confidence − entry_price_cents, in probability points.' }),
    outcome: stringEnum(OUTCOMES, 'pending while the contest is not settled.'),
    // always sent: null on readings stored before the tag was recorded
    model_version: nullable(
      { type: 'string' },
      'Tag of the model that produced the reading; null on older readings.',
    ),
  },
  { $id: 'Signal', description: 'A model signal raised on a contest.' },
)

export const ContestSchema = Type.Object(
  {
    ticker: Type.String({ description: 'Full contest ticker. Opaque: take it from responses whole.' }),
    state: stringEnum(CONTEST_STATES),
    window: Type.Object({
      opens_at: instant('RFC 3339 in UTC.'),
      expires_at: instant('RFC 3339 in UTC; the settlement time of a 15-minute round.'),
    }),
    // always sent, null when unknown: generated clients get `T | null`, never a phantom undefined
    strike_price_dollars: nullable(
      { type: 'number' },
      'Strike of the underlying in USD; null until the venue sets it.',
    ),
    settled_side: nullable(
      { type: 'string', enum: [...SIDES] },
      'null until settled, and on a void contest.',
    ),
    settled_price_dollars: nullable(
      { type: 'number' },
      'Oracle expiration value in USD once settled; null while live, or when the oracle did not report it.',
    ),
    ...contestVenueMembers,
    signals: Type.Array(Type.Ref('Signal'), { description: 'All signals of the contest, oldest first.' }),
  },
  { $id: 'Contest', description: 'A prediction-market contest with its signals.' },
)

export const ContestListSchema = Type.Object(
  { contests: Type.Array(Type.Ref('Contest'), { description: 'Settled contests, newest first.' }) },
  { $id: 'ContestList' },
)

export const SignalEmittedPayloadSchema = Type.Object(
  {
    signal: Type.Ref('Signal'),
    contest: Type.Ref('Contest'),
  },
  { $id: 'SignalEmittedPayload', description: 'The new signal and a snapshot of its contest including it.' },
)

const problemMembers = {
  type: Type.String({ format: 'uri', description: 'Identifies the problem; resolves to a human page.' }),
  title: Type.String({ description: 'Short summary, the same for every occurrence of the type.' }),
  status: Type.Integer({ description: 'The HTTP status code.' }),
  detail: Type.String({ description: 'What went wrong this time.' }),
}

export const ProblemSchema = Type.Object(problemMembers, {
  $id: 'Problem',
  description: 'RFC 9457 problem details.',
})

export const InvalidParameterProblemSchema = Type.Object(
  {
    ...problemMembers,
    invalid_params: Type.Array(
      Type.Object({
        name: Type.String({ description: 'The parameter.' }),
        reason: Type.String({ description: 'Why it was refused.' }),
      }),
      { minItems: 1 },
    ),
  },
  { $id: 'InvalidParameterProblem', description: 'RFC 9457 problem details naming each invalid parameter.' },
)

export const HealthSchema = Type.Object(
  {
    status: stringEnum(['ok', 'degraded', 'unavailable'] as const),
    version: Type.String(),
    time: instant('Server time, RFC 3339 in UTC.'),
    checks: Type.Object({
      store: stringEnum(['ok', 'degraded', 'corrupt', 'unavailable'] as const),
      engine: stringEnum(
        ['ok', 'stale', 'unknown'] as const,
        'stale when no engine has written for 2 minutes.',
      ),
      rate_limit: Type.Optional(
        stringEnum(['degraded'] as const, 'Present when the shared rate-limit store is unreachable.'),
      ),
      venue: Type.Optional(
        stringEnum(
          ['unreachable', 'paused', 'malformed'] as const,
          'Present when not ok: unreachable when the venue has not answered for over a minute outside a pause it scheduled; paused while the venue has paused trading (status stays ok when the pause is one the venue scheduled, such as its weekly maintenance); malformed when every order book of the last 3 minutes failed to parse.',
        ),
      ),
      venues: Type.Optional(
        Type.Unsafe<Record<string, 'ok' | 'paused' | 'unreachable' | 'malformed'>>({
          type: 'object',
          additionalProperties: { type: 'string', enum: ['ok', 'paused', 'unreachable', 'malformed'] },
          description:
            'Present when the service follows several venues (decisions §14): each venue by name (`kalshi`, `polymarket`) with its own check, ok included. `venue` is then the venue check that says most (an outage or malformed quotes before a scheduled pause), and the status is degraded when any venue degrades it.',
          examples: [{ kalshi: 'paused', polymarket: 'ok' }],
        }),
      ),
      spot: Type.Optional(
        stringEnum(
          ['unreachable'] as const,
          'Present when no spot price source has answered for over a minute.',
        ),
      ),
      index: Type.Optional(
        stringEnum(
          ['ok', 'stale', 'refused'] as const,
          'Present when the engine follows the settlement index itself (BRTI, with a Kalshi key): ok while its prints are fresh and are the model’s spot; refused when the venue said at start that the account lacks the CF Benchmarks entitlement (a subscribe ack does not prove it); stale when no fresh print has come. Without the index the exchange median is the spot, so this never changes the status.',
        ),
      ),
    }),
  },
  { $id: 'Health' },
)

/** Registered with app.addSchema so that Type.Ref('<$id>') resolves and the document lists them once. */
export const SHARED_SCHEMAS = [
  KalshiRefsSchema,
  PolymarketRefsSchema,
  SignalSchema,
  ContestSchema,
  ContestListSchema,
  SignalEmittedPayloadSchema,
  ProblemSchema,
  InvalidParameterProblemSchema,
  HealthSchema,
] as const

// ---- request parameters (decisions §4)

export const SERIES_MAX_LENGTH = 128
export const LIMIT_MIN = 1
export const LIMIT_MAX = 100
export const LIMIT_DEFAULT = 20

const series = (extra: string) =>
  Type.String({
    minLength: 1,
    maxLength: SERIES_MAX_LENGTH,
    description: `Series prefix, exact and case-sensitive (not a string-prefix match), 1–${SERIES_MAX_LENGTH} characters.${extra} Must not be repeated.`,
  })

const TICKER_ALSO = ' A full ticker also resolves while that round is live.'

/** RFC 3339 date-time with an explicit offset; `format` also rejects impossible calendar dates. */
const RFC3339_PATTERN =
  '^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-5][0-9](\\.[0-9]{1,9})?([Zz]|[+-][0-9]{2}:[0-9]{2})$'

const bound = (description: string) =>
  Type.String({
    format: 'date-time',
    pattern: RFC3339_PATTERN,
    description: `${description} RFC 3339 date-time with an offset, such as 2026-11-22T14:15:00Z (write + as %2B). Must not be repeated.`,
  })

export const ActiveQuerySchema = Type.Object({ series: series(TICKER_ALSO) })

export const HistoryQuerySchema = Type.Object({
  series: series(''),
  limit: Type.Optional(
    Type.Integer({
      minimum: LIMIT_MIN,
      maximum: LIMIT_MAX,
      default: LIMIT_DEFAULT,
      description: `Most contests returned, ${LIMIT_MIN}–${LIMIT_MAX}, written in decimal digits only. Must not be repeated.`,
    }),
  ),
  since: Type.Optional(
    bound('Only contests whose window.expires_at is at or after this instant (inclusive).'),
  ),
  before: Type.Optional(
    bound(
      'Only contests whose window.expires_at is at or before this instant (inclusive). To page, pass the oldest expires_at received and drop the repeated first row. Must not be earlier than since.',
    ),
  ),
})

export const StreamQuerySchema = Type.Object({
  series: series(TICKER_ALSO),
  last_event_id: Type.Optional(
    Type.String({
      description:
        'Resume after this event id, for clients that cannot send the Last-Event-ID header. The header wins when both are sent.',
    }),
  ),
})

export const StreamHeadersSchema = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({
      description:
        'The id of the last event received. The stream replays every later event of its scope, then continues live; an unknown or expired id gets the fresh-connect snapshot.',
    }),
  ),
})

/** Longer than any ticker a venue issues: a longer one cannot exist, so no store read is spent on it. */
export const TICKER_MAX_LENGTH = 128

export const TickerParamsSchema = Type.Object({
  ticker: Type.String({
    minLength: 1,
    maxLength: TICKER_MAX_LENGTH,
    description:
      'Full ticker including its trailing suffix, opaque. A truncated ticker returns 404, and so does one over 128 characters: no such contest can exist (it is not a malformed request).',
  }),
})

// ---- responses: problems written once, spread into every route (style: unkey)

/** Sent on every response: quote it when reporting a problem (it is in the server's log line). */
export const REQUEST_ID_HEADER = {
  'X-Request-Id': {
    type: 'string',
    description: 'Identifies this request in the server log; echoed when the client sent one.',
  },
}

const problemContent = (ref: string) => ({ [PROBLEM_MEDIA_TYPE]: { schema: Type.Ref(ref) } })

const integerHeader = (description: string) => ({ type: 'integer', minimum: 0, description })

export const PROBLEM_RESPONSES = {
  400: {
    description:
      'Invalid query parameter (problem type invalid-parameter), or a malformed request (bad-request): invalid percent-encoding or a fragment (#) in the URL, a missing or repeated Host header, a repeated Authorization header.',
    content: {
      [PROBLEM_MEDIA_TYPE]: { schema: { anyOf: [Type.Ref('InvalidParameterProblem'), Type.Ref('Problem')] } },
    },
  },
  401: {
    description: 'Missing, malformed, unknown or revoked API key.',
    headers: {
      'WWW-Authenticate': {
        type: 'string',
        description: 'Bearer realm="contest-signals", plus error="invalid_token" when a key was sent.',
      },
    },
    content: problemContent('Problem'),
  },
  404: { description: 'No matching contest.', content: problemContent('Problem') },
  429: {
    description: 'Rate limit exceeded. Retryable: wait Retry-After seconds, then back off with jitter.',
    headers: {
      'Retry-After': { ...integerHeader('Seconds to wait before retrying, at least 1.'), minimum: 1 },
      'X-RateLimit-Limit': integerHeader('The burst ceiling.'),
      'X-RateLimit-Remaining': integerHeader('Requests left in the current allowance (0).'),
    },
    content: problemContent('Problem'),
  },
  431: { description: 'Request header fields too large.', content: problemContent('Problem') },
  500: { description: 'Server fault; the body carries no internals.', content: problemContent('Problem') },
  503: {
    description: 'The store is unreachable or the server is shutting down.',
    headers: { 'Retry-After': { ...integerHeader('Seconds to wait before retrying.'), minimum: 1 } },
    content: problemContent('Problem'),
  },
} as const

type ProblemStatus = keyof typeof PROBLEM_RESPONSES

export function problemResponses<const S extends ProblemStatus>(...statuses: S[]) {
  const out = {} as Pick<typeof PROBLEM_RESPONSES, S>
  for (const s of statuses) {
    const response = PROBLEM_RESPONSES[s]
    const own = 'headers' in response ? response.headers : {}
    Object.assign(out, { [s]: { ...response, headers: { ...REQUEST_ID_HEADER, ...own } } })
  }
  return out
}

/** The errors every keyed JSON endpoint can answer. */
export const KEYED_PROBLEMS = problemResponses(400, 401, 429, 500, 503)

const etagHeader = {
  ETag: { type: 'string', description: 'Strong validator; send it back in If-None-Match.' },
}

/** The conditional-request header of the cached GETs (decisions §4). */
export const ConditionalHeadersSchema = Type.Object({
  'if-none-match': Type.Optional(
    Type.String({
      description:
        'An ETag received earlier: 304 Not Modified while it still matches (the request is still counted).',
    }),
  ),
})

export function jsonResponse(ref: string, description: string, withEtag = false, links?: object) {
  return {
    description,
    headers: { ...REQUEST_ID_HEADER, ...(withEtag ? etagHeader : {}) },
    content: { [JSON_MEDIA_TYPE]: { schema: Type.Ref(ref) } },
    ...(links ? { links } : {}),
  }
}

/** OpenAPI links from a response carrying contest tickers to the by-ticker operation. */
export function contestLink(tickerPointer: string, description: string) {
  return {
    GetContestByTicker: {
      operationId: 'getContest',
      parameters: { ticker: `$response.body#${tickerPointer}` },
      description,
    },
  }
}

export const NOT_MODIFIED_RESPONSE = {
  description: 'Not Modified: the If-None-Match validator still matches (the request is still counted).',
  type: 'null',
  headers: { ...REQUEST_ID_HEADER, ...etagHeader },
} as const

const sseData = (event: string, ref: string) =>
  Type.Object({
    event: Type.Literal(event),
    id: Type.String({ description: 'Opaque event id; do not parse it.' }),
    data: Type.String({ contentMediaType: JSON_MEDIA_TYPE, contentSchema: Type.Ref(ref) }),
  })

/** One frame of the stream (OpenAPI 3.1 has no item model for text/event-stream; 3.2 calls this itemSchema). */
export const StreamEventSchema = Type.Union(
  [
    sseData('contest.opened', 'Contest'),
    sseData('signal.emitted', 'SignalEmittedPayload'),
    sseData('contest.settled', 'Contest'),
  ],
  {
    description:
      'Each frame is `event`, `id` and `data` lines and a blank line; `data` is one JSON document. The first frame is `retry: 3000`, and a `: keep-alive` comment is sent periodically.',
  },
)

export const STREAM_RESPONSE = {
  description:
    'Server-Sent Events: contest.opened (Contest), signal.emitted (SignalEmittedPayload), contest.settled (Contest). On a fresh connect the live contest and its signals come first.',
  content: { [SSE_MEDIA_TYPE]: { schema: StreamEventSchema } },
}
