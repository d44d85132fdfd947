// The options @fastify/swagger builds the OpenAPI document from: info, servers, security scheme and
// tags. The route schemas supply the rest; the rate policy is stated as the operator set it.
import type { SwaggerOptions } from '@fastify/swagger'
import type { BucketPolicy } from '../domain/token-bucket.ts'
import { describeRatePolicy } from './app-settings.ts'
import { attachExamples } from './openapi-examples.ts'

export function openApiOptions(opts: {
  version: string
  baseUrl: string
  rateLimit: BucketPolicy
}): SwaggerOptions {
  const { burst, rate } = describeRatePolicy(opts.rateLimit)
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Contest Signals API',
        version: opts.version,
        license: { name: 'MIT', identifier: 'MIT' },
        contact: { name: 'Contest Signals operators', url: `${opts.baseUrl}/` },
        description: `Read-only HTTPS + JSON API and Server-Sent Events stream of model signals on 15-minute bitcoin prediction-market contests. Errors are application/problem+json. Requests are rate limited per client IP address: a token bucket of ${burst} refilled at ${rate}, shared by all endpoints except the health check and by all keys used from that address.`,
      },
      servers: [{ url: opts.baseUrl }],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key issued for the integration: Authorization: Bearer cs_…',
          },
        },
      },
      tags: [
        { name: 'contests', description: 'Live and settled contests with their signals.' },
        { name: 'stream', description: 'Server-Sent Events.' },
        { name: 'health', description: 'Liveness and readiness.' },
        { name: 'meta', description: 'This description.' },
      ],
    },
    // HEAD answers like GET without a body: integrators' tools should see it
    exposeHeadRoutes: true,
    transformObject: (document) =>
      'openapiObject' in document
        ? headersOnlyHeads(attachExamples(document.openapiObject, opts.baseUrl))
        : document.swaggerObject,
    // Shared schemas appear under components.schemas by their $id (Contest, Signal, Problem…).
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  }
}

// biome-ignore lint/suspicious/noExplicitAny: the document is plain JSON walked by key
type Json = any

/**
 * The HEAD operations @fastify/swagger mirrors from each GET carry the GET's response bodies; a
 * HEAD answer has none (RFC 9110 §9.3.2), and a schema-checking client would fail every one. Each
 * keeps its GET's status codes and headers, without `content`.
 */
function headersOnlyHeads(doc: Json): Json {
  for (const operations of Object.values(doc.paths ?? {}) as Json[]) {
    const head = operations.head
    if (head === undefined) continue
    head.description = `The headers GET answers, without a body.${head.description ? ` ${head.description}` : ''}`
    for (const response of Object.values(head.responses ?? {}) as Json[]) delete response.content
  }
  return doc
}
