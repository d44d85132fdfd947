// The one problem catalogue (RFC 9457): every error this API can answer, by name. The error handler,
// the problem pages and the OpenAPI document all read it, and a test keeps them in step.
import type { FastifyReply } from 'fastify'
import type { BucketPolicy } from '../domain/token-bucket.ts'
import { describeRatePolicy } from './app-settings.ts'
import { PATHS, problemPagePath } from './paths.ts'

/** What a problem page may state about this deployment. */
export type ProblemPageContext = { rateLimit: BucketPolicy }

export type ProblemDefinition = {
  status: number
  /** the same for every occurrence (RFC 9457 §3.1.4) */
  title: string
  /** the default `detail` when the occurrence has nothing more specific to say */
  detail: string
  /** the human page at `{base}/problems/{name}` */
  description: string | ((context: ProblemPageContext) => string)
  /** sent as Retry-After with every occurrence, unless the occurrence gives its own */
  retryAfterS?: number
}

export const PROBLEMS = {
  'bad-request': {
    status: 400,
    title: 'Bad Request',
    detail: 'The request could not be understood as HTTP/1.1.',
    description:
      'The request is not well-formed HTTP/1.1: bytes that are no request line (a TLS handshake on the plain-HTTP port), a malformed request line, target, header or message framing, or a path with invalid percent-encoding. The detail says which. Fix the request before sending it again.',
  },
  'invalid-parameter': {
    status: 400,
    title: 'Invalid Parameter',
    detail: 'One or more query parameters are invalid; see invalid_params.',
    description:
      'A query parameter is missing, repeated or out of its allowed range. The `invalid_params` member lists each one as `{name, reason}`. `series` is 1 to 128 characters; `limit` is a whole number from 1 to 100 written in decimal digits; `since` and `before` are RFC 3339 date-times with an offset (such as `2026-11-22T14:15:00Z`), and `since` must not be after `before`. Unknown parameters are ignored.',
  },
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    detail: 'A valid API key is required: send it as Authorization: Bearer <key>.',
    description:
      'The request carried no API key, or the key is malformed, unknown or revoked. Send `Authorization: Bearer <key>` with a key issued for your integration. The `WWW-Authenticate` header says `error="invalid_token"` when a key was sent but not accepted.',
  },
  'not-found': {
    status: 404,
    title: 'Not Found',
    detail: 'Nothing matches this request.',
    description:
      'No contest matches the ticker or series, or the path does not exist. Tickers are opaque: take them from responses whole, since a truncated ticker matches nothing.',
  },
  'method-not-allowed': {
    status: 405,
    title: 'Method Not Allowed',
    detail: 'This resource does not support the request method; see the Allow header.',
    description:
      'The API is read-only. Every resource answers GET (and HEAD where it makes sense); the `Allow` header lists the methods a resource supports.',
  },
  'request-timeout': {
    status: 408,
    title: 'Request Timeout',
    detail: 'The request was not received in time.',
    description: 'The server stopped waiting for the rest of the request. Send the request again.',
  },
  'payload-too-large': {
    status: 413,
    title: 'Payload Too Large',
    detail: 'The request body is larger than this read-only API accepts.',
    description: 'The API is read-only and takes no request bodies of any size worth sending.',
  },
  'unsupported-media-type': {
    status: 415,
    title: 'Unsupported Media Type',
    detail: 'The request body has a media type this API does not accept.',
    description: 'The API is read-only and does not read request bodies.',
  },
  'rate-limited': {
    status: 429,
    title: 'Too Many Requests',
    detail: 'The rate limit is exceeded; retry shortly, after the number of seconds given in Retry-After.',
    description: ({ rateLimit }: ProblemPageContext) =>
      `Each client IP address has a token bucket (${describeRatePolicy(rateLimit).burst}, refilled at ${describeRatePolicy(rateLimit).rate}), shared by every endpoint except the health check and by every API key used from that address. Over the allowance the answer is 429 with \`Retry-After\` (seconds to wait), \`X-RateLimit-Limit\` (the burst) and \`X-RateLimit-Remaining\` (0). This is not a sign of an invalid key: wait Retry-After seconds, then retry with exponential backoff and jitter. An open stream costs one request; its events are free.`,
  },
  'request-header-fields-too-large': {
    status: 431,
    title: 'Request Header Fields Too Large',
    detail: 'The request line or headers are too large.',
    description:
      'The request line and headers together exceed the server limit. Shorten the URL or the headers.',
  },
  'internal-error': {
    status: 500,
    title: 'Internal Server Error',
    detail: 'The server failed to answer this request; it has been logged. Retry later.',
    description:
      'An unexpected fault on the server. The response carries no internals; quote the `X-Request-Id` response header when reporting it.',
  },
  'not-implemented': {
    status: 501,
    title: 'Not Implemented',
    detail: 'The server does not implement this request method.',
    description:
      'The request method is not one this server knows, or is CONNECT (this server opens no tunnels); the API answers GET, HEAD and OPTIONS, and other standard methods get 405 with `Allow`. Send a GET.',
  },
  unavailable: {
    status: 503,
    title: 'Service Unavailable',
    detail: 'The service is temporarily unavailable; retry after the number of seconds given in Retry-After.',
    description:
      'The server is shutting down or cannot reach its store. Retry after the `Retry-After` delay; another replica usually answers at once.',
    retryAfterS: 5,
  },
} as const satisfies Record<string, ProblemDefinition>

export type ProblemName = keyof typeof PROBLEMS

export const PROBLEM_NAMES = Object.keys(PROBLEMS) as ProblemName[]

export type InvalidParam = { name: string; reason: string }

export type ProblemBody = {
  type: string
  title: string
  status: number
  detail: string
  invalid_params?: InvalidParam[]
}

export type ProblemOptions = {
  detail?: string
  invalidParams?: InvalidParam[]
  headers?: Record<string, string>
}

export const PROBLEM_MEDIA_TYPE = 'application/problem+json'

/**
 * Headers every response carries, whatever answers it (a route, a hook, the not-found handler, a
 * framework error, the bare-socket answer to an unparseable request): no browser may sniff a JSON or
 * problem body into something it would render or run.
 */
export const EVERY_RESPONSE_HEADERS = { 'x-content-type-options': 'nosniff' } as const

/** The one answer for a ticker that names no contest, however it failed (unknown, empty, overlong). */
export const TICKER_NOT_FOUND: ProblemOptions = { detail: 'No contest has this ticker.' }

export function isProblemName(name: string): name is ProblemName {
  return Object.hasOwn(PROBLEMS, name)
}

export function problemType(baseUrl: string, name: ProblemName): string {
  return `${baseUrl}${problemPagePath(name)}`
}

export function problemBody(baseUrl: string, name: ProblemName, opts: ProblemOptions = {}): ProblemBody {
  const def = PROBLEMS[name]
  const body: ProblemBody = {
    type: problemType(baseUrl, name),
    title: def.title,
    status: def.status,
    detail: opts.detail ?? def.detail,
  }
  if (opts.invalidParams) body.invalid_params = opts.invalidParams
  return body
}

/** An error that already knows which problem it is; thrown by hooks and handlers, sent by the error handler. */
export class ProblemError extends Error {
  readonly problem: ProblemName
  readonly options: ProblemOptions
  constructor(problem: ProblemName, options: ProblemOptions = {}) {
    // A problem is an expected answer (401, 404, 400), never a fault to debug: capturing a stack
    // trace for it cost more than the rest of a 401 (about 15 µs in the profile).
    const limit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
    super(options.detail ?? PROBLEMS[problem].detail)
    Error.stackTraceLimit = limit
    this.name = 'ProblemError'
    this.problem = problem
    this.options = options
  }
}

/** Sends a problem+json response; the body is serialized here so no schema can drop a member. */
export function sendProblem(
  reply: FastifyReply,
  baseUrl: string,
  name: ProblemName,
  opts: ProblemOptions = {},
): FastifyReply {
  const body = problemBody(baseUrl, name, opts)
  const def: ProblemDefinition = PROBLEMS[name]
  if (def.retryAfterS !== undefined) reply.header('retry-after', String(def.retryAfterS))
  if (opts.headers) reply.headers(opts.headers)
  // A cached error would outlive its cause (a 429 MUST NOT be stored, RFC 6585 §4).
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store')
  return reply.code(body.status).type(PROBLEM_MEDIA_TYPE).send(JSON.stringify(body))
}

/** The catalogue problem for an HTTP status that the framework or the socket layer chose. */
export function problemForStatus(status: number): ProblemName | null {
  for (const name of PROBLEM_NAMES) {
    if (PROBLEMS[name].status === status && name !== 'invalid-parameter') return name
  }
  return null
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!)
}

/** Inline `code` spans of a description as HTML. */
function renderDescription(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>')
}

/** The short human page that a problem `type` URI resolves to (RFC 9457 §3.1.1). */
export function renderProblemPage(baseUrl: string, name: ProblemName, context: ProblemPageContext): string {
  const def: ProblemDefinition = PROBLEMS[name]
  const description = typeof def.description === 'string' ? def.description : def.description(context)
  const title = `${def.status} ${def.title}`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)} · Contest Signals API</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#222}code{background:#f2f2f2;padding:0 .25em;border-radius:3px}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p>${renderDescription(description)}</p>
<p>Problem type: <code>${escapeHtml(problemType(baseUrl, name))}</code></p>
<p>Responses of this type have the media type <code>${PROBLEM_MEDIA_TYPE}</code> and the members <code>type</code>, <code>title</code>, <code>status</code> and <code>detail</code>${name === 'invalid-parameter' ? ', plus <code>invalid_params</code>' : ''}.</p>
<p><a href="${escapeHtml(baseUrl)}${PATHS.openApi}">OpenAPI document</a></p>
</body>
</html>
`
}
