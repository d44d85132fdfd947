// 405 for the other methods on every known path, with Allow (RFC 9110 §15.5.6). The common methods
// get stub routes answering in a route-level onRequest hook, before any body is read, so a POST with
// a body gets a 405 rather than a 415 or 413 about a body this API would never read; rarer methods
// (TRACE, PROPFIND…) reach the not-found handler (not-found.ts), which reads the same Allow lists.
// Left out of the OpenAPI document.
import type { HTTPMethods } from 'fastify'
import type { KnownPath } from '../paths.ts'
import { sendProblem } from '../problems.ts'
import type { TypedApp } from '../typed-app.ts'

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
