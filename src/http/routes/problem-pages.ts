// GET /problems/{name}: the human page each problem `type` URI resolves to (RFC 9457 §3.1.1).
// Not part of the API proper, so it is left out of the OpenAPI document.
import { Type } from 'typebox'
import { PATHS } from '../paths.ts'
import { isProblemName, ProblemError, type ProblemPageContext, renderProblemPage } from '../problems.ts'
import type { TypedApp } from '../typed-app.ts'

export function registerProblemPages(app: TypedApp, baseUrl: string, context: ProblemPageContext): void {
  app.get(
    PATHS.problemPage,
    { schema: { hide: true, params: Type.Object({ name: Type.String() }) } },
    async (request, reply) => {
      const { name } = request.params
      if (!isProblemName(name))
        throw new ProblemError('not-found', { detail: 'There is no such problem type.' })
      return reply
        .header('cache-control', 'public, max-age=3600')
        .type('text/html; charset=utf-8')
        .send(renderProblemPage(baseUrl, name, context))
    },
  )
}
