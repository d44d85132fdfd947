// GET /problems/{name}: the human page each problem `type` URI resolves to (RFC 9457 §3.1.1).
// Not part of the API proper, so it is left out of the OpenAPI document.
import { Type } from 'typebox'
import { isProblemName, ProblemError, renderProblemPage } from '../problems.ts'
import type { TypedApp } from '../typed-app.ts'

export const PROBLEM_PAGES_PATH = '/problems/:name'

export function registerProblemPages(app: TypedApp, baseUrl: string): void {
  app.get(
    PROBLEM_PAGES_PATH,
    { schema: { hide: true, params: Type.Object({ name: Type.String() }) } },
    async (request, reply) => {
      const { name } = request.params
      if (!isProblemName(name))
        throw new ProblemError('not-found', { detail: 'There is no such problem type.' })
      return reply
        .header('cache-control', 'public, max-age=3600')
        .type('text/html; charset=utf-8')
        .send(renderProblemPage(baseUrl, name))
    },
  )
}
