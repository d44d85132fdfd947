// GET /v1/openapi.json: the document @fastify/swagger builds from the route schemas, serialized once
// and served like any cached representation (ETag, precompressed). No key; rate limited.
import { PATHS } from '../paths.ts'
import { createRepresentation, type Representation, sendRepresentation } from '../representation.ts'
import { JSON_MEDIA_TYPE, problemResponses } from '../schemas.ts'
import type { TypedApp } from '../typed-app.ts'

export function registerOpenApiRoute(app: TypedApp): void {
  let document: Representation | undefined
  app.get(
    PATHS.openApi,
    {
      schema: {
        operationId: 'getOpenApiDocument',
        summary: 'This OpenAPI 3.1.0 document',
        description:
          'The OpenAPI 3.1.0 description of this API, built from the same schemas that validate requests: every operation, parameter, response, header and problem type, with examples recorded from the running service. No key needed; rate limited like every endpoint but the health check.',
        tags: ['meta'],
        security: [],
        response: {
          200: {
            description: 'The OpenAPI 3.1.0 description of this API.',
            content: { [JSON_MEDIA_TYPE]: { schema: { type: 'object' } } },
          },
          ...problemResponses(429, 500, 503),
        },
      },
    },
    async (request, reply) => {
      document ??= createRepresentation(JSON.stringify(app.swagger()), `${JSON_MEDIA_TYPE}; charset=utf-8`)
      return sendRepresentation(request, reply, document, 'public, max-age=300')
    },
  )
}
