// Requests that found no route: 405 with Allow when the path is known but the method is not (the
// rarer methods, TRACE, PROPFIND, QUERY…, that have no stub route), else 404. A plain OPTIONS (not a
// CORS preflight) asks which methods a resource allows: 204 with Allow on a known path (RFC 9110
// §9.3.7), 404 elsewhere (decisions §4). `OPTIONS *` asks the same of the server as a whole: 204 with
// every method some path allows.
// The Allow lists come from paths.ts, the same table the 405 stub routes are registered from.
// `answersBeforeRouting` sends these answers from an onRequest hook, before Fastify would read a
// body (QUERY without Content-Type would otherwise be a misleading 400) or @fastify/cors would
// answer a plain OPTIONS as if it were a preflight.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { isPreflight } from './cors.ts'
import type { KnownPath } from './paths.ts'
import { sendProblem } from './problems.ts'

/** The Allow list of a known path (`/v1/contests/:ticker` matches any one segment), or null. */
export function createAllowLookup(paths: readonly KnownPath[]): (path: string) => string | null {
  const matchers = paths.map(({ url, allow }) => ({
    pattern: new RegExp(`^${url.replace(/[.]/g, '\\.').replace(/:[^/]+/g, '[^/]+')}$`),
    allow: allow.join(', '),
  }))
  return (path) => matchers.find((m) => m.pattern.test(path))?.allow ?? null
}

/** Every method some path allows, in the order the paths first name them: the server's own Allow. */
export function serverAllow(paths: readonly KnownPath[]): string {
  return [...new Set(paths.flatMap((p) => p.allow))].join(', ')
}

export function createNotFoundHandler(baseUrl: string, paths: readonly KnownPath[]) {
  const allowFor = createAllowLookup(paths)
  const wholeServer = serverAllow(paths)
  return function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const allow =
        request.method === 'OPTIONS' && request.url === '*'
          ? wholeServer
          : allowFor(request.url.split('?')[0] ?? '')
      if (allow !== null && request.method === 'OPTIONS') {
        return reply.code(204).header('allow', allow).header('cache-control', 'no-store').send()
      }
      if (allow !== null) return sendProblem(reply, baseUrl, 'method-not-allowed', { headers: { allow } })
    }
    return sendProblem(reply, baseUrl, 'not-found', { detail: 'There is no resource at this path.' })
  }
}

/**
 * True when the request is one the not-found handler must answer now: another method on a path no
 * route serves, or a plain OPTIONS (no Origin or no Access-Control-Request-Method: not a preflight,
 * which @fastify/cors answers).
 */
export function answersBeforeRouting(request: FastifyRequest): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return false
  if (request.method === 'OPTIONS') return !isPreflight(request)
  return request.routeOptions.url === undefined
}
