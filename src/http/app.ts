// buildApp: the whole HTTP interface as a Fastify instance, built from its dependencies and never
// listening (the composition root in src/main/ does that). Hook order is the contract: request
// counting (when metrics are on), request id and shutdown first, then the rate limiter, so a refused
// request runs nothing else yet is still counted.
import { constants as zlibConstants } from 'node:zlib'
import compress from '@fastify/compress'
import cors from '@fastify/cors'
import swagger from '@fastify/swagger'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import { createStoreProbe } from '../store/store-probe.ts'
import type { AppDeps } from './app-deps.ts'
import { createClientAddress } from './client-address.ts'
import { createContestCache } from './contest-cache.ts'
import { addCorsHeaders, corsPluginOptions } from './cors.ts'
import { createErrorHandler } from './error-handler.ts'
import { createFastPath } from './fast-path.ts'
import { createFrameworkErrorAnswers } from './framework-errors.ts'
import { createKeyAuth } from './key-auth.ts'
import { createNotFoundHandler } from './not-found.ts'
import { openApiOptions } from './openapi-options.ts'
import { KNOWN_PATHS } from './paths.ts'
import { sendProblem } from './problems.ts'
import { createRateLimiter } from './rate-limit.ts'
import { BROTLI_QUALITY, COMPRESS_THRESHOLD } from './representation.ts'
import { requestIdOf, setEdgeHeaders } from './request-id.ts'
import { serializeRequest } from './request-log.ts'
import { countWhenAnswered } from './request-metrics.ts'
import { createRequireKey } from './require-key.ts'
import { registerContestRoutes } from './routes/contests.ts'
import { registerHealthRoute } from './routes/health.ts'
import { registerMethodNotAllowed } from './routes/method-not-allowed.ts'
import { registerOpenApiRoute } from './routes/openapi.ts'
import { registerProblemPages } from './routes/problem-pages.ts'
import { registerStreamRoute } from './routes/stream.ts'
import { SHARED_SCHEMAS, TICKER_MAX_LENGTH } from './schemas.ts'
import type { TypedApp } from './typed-app.ts'

/**
 * Path segments up to this long reach their route, where the key is checked before the ticker's
 * schema answers an overlong one as not found; a longer segment is refused by the router itself.
 */
const MAX_PARAM_LENGTH = 2 * TICKER_MAX_LENGTH
/** The API reads no bodies; anything bigger than this is not a request worth parsing. */
const BODY_LIMIT = 16 * 1024

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { settings, metrics } = deps
  const baseUrl = settings.publicBaseUrl
  const rateLimiter = createRateLimiter({
    buckets: deps.buckets,
    policy: settings.rateLimit,
    baseUrl,
    cors: settings,
    clientAddress: createClientAddress(settings.trustProxy),
  })
  let closing = false

  // The request serializer logs no headers; the redaction holds should anyone log them.
  const pinoLogger = deps.logger.child(
    {},
    {
      redact: { paths: ['req.headers.authorization', 'headers.authorization'], censor: '[redacted]' },
      serializers: { req: serializeRequest },
    },
  )
  const logger: FastifyBaseLogger = pinoLogger
  const edge = createFrameworkErrorAnswers({
    baseUrl,
    cors: settings,
    rateLimiter,
    ...(metrics ? { metrics } : {}),
    log: () => app.log,
  })
  const app = Fastify({
    // TLS material given: serve HTTPS directly (decisions §2); otherwise plain HTTP behind a proxy.
    ...(settings.tls ? { https: { cert: settings.tls.cert, key: settings.tls.key } } : {}),
    loggerInstance: logger,
    genReqId: requestIdOf,
    trustProxy: settings.trustProxy.length > 0 ? [...settings.trustProxy] : false,
    // Open streams and keep-alive sockets must not hold close() for the 72 s keep-alive timeout.
    forceCloseConnections: true,
    // Our own hook answers during shutdown, with a problem body rather than Fastify's JSON.
    return503OnClosing: false,
    bodyLimit: BODY_LIMIT,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    clientErrorHandler: edge.clientErrorHandler,
    frameworkErrors: edge.frameworkErrors,
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
    setEdgeHeaders(reply, request.id)
    if (!closing) return undefined
    addCorsHeaders(settings, request, reply)
    return sendProblem(reply, baseUrl, 'unavailable', {
      detail: 'The server is shutting down; retry, and another instance will answer.',
      headers: { connection: 'close' },
    })
  })
  app.addHook('onRequest', rateLimiter.onRequest)

  await app.register(cors, corsPluginOptions(settings))
  // Everything not served from a precompressed representation: problem pages, large problems.
  await app.register(compress, {
    global: true,
    threshold: COMPRESS_THRESHOLD + 1,
    encodings: ['br', 'gzip'],
    brotliOptions: { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } },
  })
  await app.register(
    swagger,
    openApiOptions({ version: deps.version, baseUrl, rateLimit: settings.rateLimit }),
  )

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
  app.setNotFoundHandler(createNotFoundHandler(baseUrl, KNOWN_PATHS))

  registerContestRoutes(app, { cache, requireKey })
  if (settings.fastPath !== false) {
    // Cache hits of the hot GETs are answered before Fastify's own request handling (fast-path.ts);
    // everything else reaches Fastify's handler unchanged.
    const fastPath = createFastPath({
      cache,
      auth,
      limiter: rateLimiter,
      cors: settings,
      log: pinoLogger,
      streams: deps.streams,
      ...(metrics ? { metrics } : {}),
      isClosing: () => closing,
    })
    const [framework, ...others] = app.server.listeners('request') as ((...args: unknown[]) => void)[]
    if (framework === undefined || others.length > 0) throw new Error('unexpected request listeners')
    app.server.removeListener('request', framework)
    app.server.on('request', fastPath(framework))
  }
  registerStreamRoute(app, { streams: deps.streams, requireKey })
  registerHealthRoute(app, {
    probe,
    buckets: deps.buckets,
    clock: deps.clock,
    wallClock: deps.wallClock,
    version: deps.version,
  })
  registerOpenApiRoute(app)
  registerProblemPages(app, baseUrl, { rateLimit: settings.rateLimit })
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

  return app as unknown as FastifyInstance
}
