// 405 for the other methods on every known path, with Allow (RFC 9110 §15.5.6). The common methods
// get stub routes answering in a route-level onRequest hook, before any body is read, so a POST with
// a body gets a 405 rather than a 415 or 413 about a body this API would never read; rarer methods
// (TRACE, PROPFIND…) reach the not-found handler, which asks allowedMethods(). Left out of the
// OpenAPI document.
import type { FastifyReply, FastifyRequest, HTTPMethods } from 'fastify'
import { sendProblem } from '../problems.ts'
import type { TypedApp } from '../typed-app.ts'

export type KnownPath = { url: string; allow: readonly HTTPMethods[] }

const OTHER_METHODS: HTTPMethods[] = ['DELETE', 'PATCH', 'POST', 'PUT']

export function registerMethodNotAllowed(app: TypedApp, baseUrl: string, paths: readonly KnownPath[]): void {
  for (const { url, allow } of paths) {
    const methods = [...OTHER_METHODS, ...(allow.includes('HEAD') ? [] : (['HEAD'] as HTTPMethods[]))]
    const allowHeader = allow.join(', ')
    app.route({
      method: methods,
      url,
      schema: { hide: true },
      onRequest: async (_request, reply) =>
        sendProblem(reply, baseUrl, 'method-not-allowed', { headers: { allow: allowHeader } }),
      handler: async () => undefined,
    })
  }
}

/** The Allow list of a known path (`/v1/contests/:ticker` matches any one segment), or null. */
export function createAllowLookup(paths: readonly KnownPath[]): (path: string) => string | null {
  const matchers = paths.map(({ url, allow }) => ({
    pattern: new RegExp(`^${url.replace(/[.]/g, '\\.').replace(/:[^/]+/g, '[^/]+')}$`),
    allow: allow.join(', '),
  }))
  return (path) => matchers.find((m) => m.pattern.test(path))?.allow ?? null
}

/** Answers 405 when a request that found no route is an unsupported method on a known path. */
export function answerMethodNotAllowed(
  request: FastifyRequest,
  reply: FastifyReply,
  baseUrl: string,
  allowFor: (path: string) => string | null,
): boolean {
  if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return false
  const allow = allowFor(request.url.split('?')[0] ?? '')
  if (allow === null) return false
  sendProblem(reply, baseUrl, 'method-not-allowed', { headers: { allow } })
  return true
}
