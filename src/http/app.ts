// buildApp: the whole HTTP interface as a Fastify instance, built from its dependencies and never
// listening (the composition root in src/main/ does that). Hook order is the contract: request
// counting (when metrics are on), request id and shutdown first, then the rate limiter, so a refused
// request runs nothing else yet is still counted.
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { constants as zlibConstants } from 'node:zlib'
import compress from '@fastify/compress'
import cors from '@fastify/cors'
import swagger from '@fastify/swagger'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify'
import type { AppDeps } from './app-deps.ts'
import { createContestCache } from './contest-cache.ts'
import { addCorsHeaders, corsPluginOptions } from './cors.ts'
import { createErrorHandler, createNotFoundHandler, RETRY_AFTER_UNAVAILABLE_S } from './error-handler.ts'
import { createKeyAuth } from './key-auth.ts'
import { PROBLEM_MEDIA_TYPE, PROBLEMS, problemBody, sendProblem } from './problems.ts'
import { createRateLimiter, HEALTH_PATH } from './rate-limit.ts'
import { BROTLI_QUALITY, COMPRESS_THRESHOLD } from './representation.ts'
import { serializeRequest } from './request-log.ts'
import { countWhenAnswered, UNKNOWN_ROUTE } from './request-metrics.ts'
import { createRequireKey } from './require-key.ts'
import { registerContestRoutes } from './routes/contests.ts'
import { registerHealthRoute } from './routes/health.ts'
import { createAllowLookup, type KnownPath, registerMethodNotAllowed } from './routes/method-not-allowed.ts'
import { OPENAPI_PATH, registerOpenApiRoute } from './routes/openapi.ts'
import { PROBLEM_PAGES_PATH, registerProblemPages } from './routes/problem-pages.ts'
import { registerStreamRoute, STREAM_PATH } from './routes/stream.ts'
import { SHARED_SCHEMAS } from './schemas.ts'
import { createStoreProbe } from './store-probe.ts'
import type { TypedApp } from './typed-app.ts'

/** Every path the API answers, with the methods it allows (the rest get 405). */
const KNOWN_PATHS: readonly KnownPath[] = [
  { url: '/v1/contests/active', allow: ['GET', 'HEAD'] },
  { url: '/v1/contests/:ticker', allow: ['GET', 'HEAD'] },
  { url: '/v1/contests', allow: ['GET', 'HEAD'] },
  { url: STREAM_PATH, allow: ['GET'] },
  { url: HEALTH_PATH, allow: ['GET', 'HEAD'] },
  { url: OPENAPI_PATH, allow: ['GET', 'HEAD'] },
  { url: PROBLEM_PAGES_PATH, allow: ['GET', 'HEAD'] },
]

/** A client's X-Request-Id is echoed only when it is a sane token; otherwise we make our own. */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/
/** Long enough for any real ticker; a longer path segment is answered 404 by the router. */
const MAX_PARAM_LENGTH = 256
/** The API reads no bodies; anything bigger than this is not a request worth parsing. */
const BODY_LIMIT = 16 * 1024

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, metrics } = deps
  const baseUrl = config.publicBaseUrl
  const rateLimiter = createRateLimiter({ buckets: deps.buckets, config })
  let closing = false

  // The request serializer logs no headers; the redaction holds should anyone log them.
  const logger: FastifyBaseLogger = deps.logger.child(
    {},
    {
      redact: { paths: ['req.headers.authorization', 'headers.authorization'], censor: '[redacted]' },
      serializers: { req: serializeRequest },
    },
  )
  const app = Fastify({
    // TLS_CERT_FILE + TLS_KEY_FILE: serve HTTPS directly (decisions §2); otherwise plain HTTP behind a proxy.
    ...(config.tlsCertFile && config.tlsKeyFile
      ? { https: { cert: readFileSync(config.tlsCertFile), key: readFileSync(config.tlsKeyFile) } }
      : {}),
    loggerInstance: logger,
    genReqId: requestIdOf,
    trustProxy: config.trustProxy.length > 0 ? [...config.trustProxy] : false,
    // Open streams and keep-alive sockets must not hold close() for the 72 s keep-alive timeout.
    forceCloseConnections: true,
    // Our own hook answers during shutdown, with a problem body rather than Fastify's JSON.
    return503OnClosing: false,
    bodyLimit: BODY_LIMIT,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    clientErrorHandler,
    frameworkErrors(error, request, reply) {
      void answerFrameworkError(error, request, reply)
    },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as TypedApp

  // Responses are serialized by hand (pre-serialized bytes, problem strings): schemas document them.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data))
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema)

  if (metrics) {
    app.addHook('onRequest', (request, reply, done) => {
      countWhenAnswered(metrics, request, reply)
      done()
    })
  }
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
    if (!closing) return undefined
    addCorsHeaders(config, request, reply)
    return sendProblem(reply, baseUrl, 'unavailable', {
      detail: 'The server is shutting down; retry, and another instance will answer.',
      headers: { 'retry-after': String(RETRY_AFTER_UNAVAILABLE_S), connection: 'close' },
    })
  })
  app.addHook('onRequest', rateLimiter.onRequest)

  await app.register(cors, corsPluginOptions(config))
  // Everything not served from a precompressed representation: problem pages, large problems.
  await app.register(compress, {
    global: true,
    threshold: COMPRESS_THRESHOLD + 1,
    encodings: ['br', 'gzip'],
    brotliOptions: { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } },
  })
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Contest Signals API',
        version: deps.version,
        description:
          'Read-only HTTPS + JSON API and Server-Sent Events stream of model signals on 15-minute bitcoin prediction-market contests. Errors are application/problem+json. Requests are rate limited per client IP address: a token bucket of 20 requests refilled at 1 per second, shared by all endpoints except the health check and by all keys used from that address.',
      },
      servers: [{ url: baseUrl }],
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
    // Shared schemas appear under components.schemas by their $id (Contest, Signal, Problem…).
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  })

  const probe = createStoreProbe({ store: deps.store, wallClock: deps.wallClock })
  const auth = createKeyAuth({
    store: deps.store,
    follower: deps.follower,
    wallClock: deps.wallClock,
    clock: deps.clock,
    logger: app.log,
  })
  const cache = createContestCache({ store: deps.store, follower: deps.follower })
  const requireKey = createRequireKey(auth)

  app.setErrorHandler(createErrorHandler({ baseUrl, probe }))
  app.setNotFoundHandler(createNotFoundHandler(baseUrl, createAllowLookup(KNOWN_PATHS)))

  registerContestRoutes(app, { cache, requireKey })
  registerStreamRoute(app, { streams: deps.streams, requireKey })
  registerHealthRoute(app, {
    probe,
    buckets: deps.buckets,
    clock: deps.clock,
    wallClock: deps.wallClock,
    version: deps.version,
  })
  registerOpenApiRoute(app)
  registerProblemPages(app, baseUrl)
  registerMethodNotAllowed(app, baseUrl, KNOWN_PATHS)

  app.addHook('preClose', async () => {
    // From here every new request gets 503; open streams end cleanly so clients reconnect elsewhere.
    closing = true
    await deps.streams.close()
  })
  app.addHook('onClose', async () => {
    cache.close()
    await auth.close()
  })

  /** URLs the router cannot even parse skip every hook, so they are counted and answered here. */
  async function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    try {
      if (metrics) countWhenAnswered(metrics, request, reply)
      reply.header('x-request-id', request.id)
      addCorsHeaders(config, request, reply)
      if (await rateLimiter.refuse(request, reply)) return
      if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
        sendProblem(reply, baseUrl, 'not-found', { detail: 'No contest has this ticker.' })
      } else if (error.code === 'FST_ERR_BAD_URL') {
        sendProblem(reply, baseUrl, 'bad-request', { detail: 'The URL has invalid percent-encoding.' })
      } else {
        request.log.error({ err: error }, 'router failed')
        sendProblem(reply, baseUrl, 'internal-error')
      }
    } catch (err) {
      request.log.error({ err }, 'answering a framework error failed')
      if (!reply.raw.headersSent) reply.raw.writeHead(500).end()
    }
  }

  /** Requests Node cannot parse never reach Fastify: answer them on the socket, still as problems. */
  function clientErrorHandler(error: NodeJS.ErrnoException, socket: Duplex): void {
    if (error.code === 'ECONNRESET' || error.code === 'EPIPE' || !socket.writable) {
      socket.destroy()
      return
    }
    const name =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? 'request-header-fields-too-large'
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'request-timeout'
          : 'bad-request'
    const body = JSON.stringify(problemBody(baseUrl, name))
    const { status, title } = PROBLEMS[name]
    app.log.debug({ code: error.code }, 'client error')
    metrics?.countRequest(UNKNOWN_ROUTE, UNKNOWN_ROUTE, status)
    socket.end(
      `HTTP/1.1 ${status} ${title}\r\nContent-Type: ${PROBLEM_MEDIA_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    )
  }

  return app as unknown as FastifyInstance
}

function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id']
  return typeof given === 'string' && REQUEST_ID_PATTERN.test(given) ? given : randomUUID()
}
