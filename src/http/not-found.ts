// Requests that found no route: 405 with Allow when the path is known but the method is not (the
// rarer methods, TRACE, PROPFIND…, that have no stub route), else 404. The Allow lists come from
// paths.ts, the same table the 405 stub routes are registered from.
import type { FastifyReply, FastifyRequest } from 'fastify'
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

export function createNotFoundHandler(baseUrl: string, paths: readonly KnownPath[]) {
  const allowFor = createAllowLookup(paths)
  return function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
    if (request.method !== 'GET' && request.method !== 'HEAD' && request.method !== 'OPTIONS') {
      const allow = allowFor(request.url.split('?')[0] ?? '')
      if (allow !== null) return sendProblem(reply, baseUrl, 'method-not-allowed', { headers: { allow } })
    }
    return sendProblem(reply, baseUrl, 'not-found', { detail: 'There is no resource at this path.' })
  }
}
