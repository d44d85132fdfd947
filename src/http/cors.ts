// CORS (decisions §4, Fetch standard): one description of the policy for @fastify/cors and for the
// few answers sent before its hook runs (429, shutdown 503, unparseable URLs), so a browser can read
// every response, the rate-limit headers of a 429 included.
import type { FastifyCorsOptions } from '@fastify/cors'
import type { FastifyReply, FastifyRequest } from 'fastify'

/** Authorization is never covered by a `*` wildcard; fetch-based SSE clients set Last-Event-ID by hand. */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Last-Event-ID'] as const

export const CORS_EXPOSED_HEADERS = [
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-Request-Id',
  'WWW-Authenticate',
  'ETag',
] as const

export const CORS_METHODS = ['GET', 'HEAD'] as const

/** The allowed browser origins (CORS_ORIGINS); AppSettings is one. */
export type CorsPolicy = { readonly corsOrigins: readonly string[] | '*' }

/** Chromium caps preflight caching at 7200 s. */
const PREFLIGHT_MAX_AGE_S = 7200

export function corsPluginOptions(config: CorsPolicy): FastifyCorsOptions {
  return {
    origin: config.corsOrigins === '*' ? '*' : [...config.corsOrigins],
    methods: [...CORS_METHODS],
    allowedHeaders: [...CORS_ALLOWED_HEADERS],
    exposedHeaders: [...CORS_EXPOSED_HEADERS],
    maxAge: PREFLIGHT_MAX_AGE_S,
    // A plain OPTIONS (no Origin or no Access-Control-Request-Method) never reaches the plugin: it is
    // answered 204 with Allow (404 on an unknown path) before, by not-found.ts. Not strict, so the
    // plugin could never send its text/plain 400: every error this API sends is a problem.
    strictPreflight: false,
  }
}

/** A CORS preflight: answered without a key and never counted by the rate limiter. */
export function isPreflight(request: FastifyRequest): boolean {
  return (
    request.method === 'OPTIONS' &&
    request.headers.origin !== undefined &&
    request.headers['access-control-request-method'] !== undefined
  )
}

/**
 * The headers @fastify/cors (with corsPluginOptions) sets on a non-preflight request, in its order;
 * the fast path builds its answers with them, and the differential test holds the two together.
 */
export function corsSimpleHeaders(config: CorsPolicy, origin: string | undefined): [string, string][] {
  const exposed: [string, string] = ['access-control-expose-headers', CORS_EXPOSED_HEADERS.join(', ')]
  if (config.corsOrigins === '*') return [['access-control-allow-origin', '*'], exposed]
  const allowed = origin !== undefined && config.corsOrigins.includes(origin)
  return [
    ['vary', 'Origin'],
    ...(allowed ? [['access-control-allow-origin', origin] as [string, string]] : []),
    exposed,
  ]
}

/** The simple-response CORS headers, for answers that leave before @fastify/cors's hook. */
export function addCorsHeaders(config: CorsPolicy, request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin
  if (config.corsOrigins === '*') reply.header('access-control-allow-origin', '*')
  else {
    reply.header('vary', 'Origin')
    if (origin === undefined || !config.corsOrigins.includes(origin)) return
    reply.header('access-control-allow-origin', origin)
  }
  reply.header('access-control-expose-headers', CORS_EXPOSED_HEADERS.join(', '))
}
