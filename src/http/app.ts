// buildApp: the whole HTTP interface as a Fastify instance, built from its dependencies and never
// listening (the composition root in src/main/ does that). Hook order is the contract: request
// counting (when metrics are on), request id and shutdown first, then the rate limiter, so a refused
// request runs nothing else yet is still counted, then the request rules (a malformed request is
// counted, then refused).
import { performance } from 'node:perf_hooks'
import { constants as zlibConstants } from 'node:zlib'
import compress from '@fastify/compress'
import cors from '@fastify/cors'
import swagger from '@fastify/swagger'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify'
import { createStoreProbe } from '../store/store-probe.ts'
import {
  accessLevel,
  countBodyBytes,
  countedBodyBytes,
  createAccessLog,
  serializeRequest,
} from './access-log.ts'
import type { AppDeps } from './app-deps.ts'
import { createClientAddress } from './client-address.ts'
import { createContestCache } from './contest-cache.ts'
import { addCorsHeaders, corsPluginOptions, isPreflight } from './cors.ts'
import { createErrorHandler } from './error-handler.ts'
import { createFastPath } from './fast-path.ts'
import { createFrameworkErrorAnswers } from './framework-errors.ts'
import { watchIdleConnections } from './idle-connections.ts'
import { createKeyAuth } from './key-auth.ts'
import { answersBeforeRouting, createNotFoundHandler } from './not-found.ts'
import { createOpenStreams, endStreamsOfRevokedKeys } from './open-streams.ts'
import { openApiOptions } from './openapi-options.ts'
import { KNOWN_PATHS, PATHS } from './paths.ts'
import { sendProblem } from './problems.ts'
import { createRateLimiter } from './rate-limit.ts'
import { BROTLI_QUALITY, COMPRESS_THRESHOLD } from './representation.ts'
import { setEdgeHeaders } from './request-id.ts'
import { countWhenAnswered } from './request-metrics.ts'
import { answerRefusal, createRequestRules } from './request-rules.ts'
import { createRequireKey } from './require-key.ts'
import { registerContestRoutes } from './routes/contests.ts'
import { registerHealthRoute } from './routes/health.ts'
import { registerMethodNotAllowed } from './routes/method-not-allowed.ts'
import { registerOpenApiRoute } from './routes/openapi.ts'
import { registerProblemPages } from './routes/problem-pages.ts'
import { registerStreamRoute } from './routes/stream.ts'
import { registerWebPages } from './routes/web-pages.ts'
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
  const clientAddress = createClientAddress(settings.trustProxy)
  const rules = createRequestRules(clientAddress)
  const rateLimiter = createRateLimiter({
    buckets: deps.buckets,
    policy: settings.rateLimit,
    baseUrl,
    cors: settings,
    rules,
  })
  const accessLog = createAccessLog(deps.logger)
  function logAnswer(request: FastifyRequest, reply: FastifyReply, level: 'info' | 'warn' = 'info'): void {
    const facts = rules(request.raw)
    accessLog.write(
      {
        method: request.method,
        path: request.url,
        status: reply.statusCode,
        bytes: bytesSent(reply),
        durationMs: performance.now() - facts.startedAt,
        address: facts.address,
        reqId: request.id,
      },
      level,
    )
  }
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
    accessLog,
    rules,
    clientAddress,
    logAnswer,
    ...(metrics ? { metrics } : {}),
    log: () => app.log,
  })
  const limits = settings.connectionLimits
  const serverOptions = {
    headersTimeout: limits.headersTimeoutMs,
    // Node checks the headers and request timeouts on this interval (its default, 30 s, would let a
    // slow-header connection live up to 30 s past its timeout).
    connectionsCheckingInterval: 1000,
    // Node would answer a missing Host with a bare text 400; the hook below answers it as a problem.
    requireHostHeader: false,
    // A request without Content-Length or Transfer-Encoding has no body (RFC 9112 §6.3): Node then
    // ends its request stream at once instead of running it through 'data'/'end'/'close'. Every
    // route here is a read; a request with a body still flows as usual. About 1.5 µs of a bare
    // server's 25 a request (BENCHMARKS.md).
    optimizeEmptyRequests: true,
  }
  const app = Fastify({
    // TLS material given: serve HTTPS directly (decisions §2); otherwise plain HTTP behind a proxy.
    ...(settings.tls
      ? { https: { cert: settings.tls.cert, key: settings.tls.key, ...serverOptions } }
      : { http: serverOptions }),
    // The idle timeout of the connection limits is idle-connections.ts's (below), not Node's
    // per-socket timer (connectionTimeout), which costs every read and write.
    requestTimeout: limits.requestTimeoutMs,
    // Above a load balancer's idle timeout (nginx upstream keepalive_timeout 60 s, AWS ALB 60 s), so
    // the proxy, never this server, closes an idle upstream connection: no request races a close.
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    loggerInstance: logger,
    // One access-log line per request, written below (access-log.ts), instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (req) => rules(req).requestId,
    trustProxy: settings.trustProxy.length > 0 ? [...settings.trustProxy] : false,
    // Open streams and keep-alive sockets must not hold close() for the 72 s keep-alive timeout.
    forceCloseConnections: true,
    // Our own hook answers during shutdown, with a problem body rather than Fastify's JSON.
    return503OnClosing: false,
    bodyLimit: BODY_LIMIT,
    // Every failing parameter is reported in invalid_params, not only the first one Ajv meets.
    ajv: { customOptions: { allErrors: true } },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    clientErrorHandler: edge.clientErrorHandler,
    frameworkErrors: edge.frameworkErrors,
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as TypedApp
  // A CONNECT request never reaches Fastify, and with no listener Node drops its socket unanswered.
  app.server.on('connect', edge.connectHandler)
  // A client may send its request and close its side at once (socket.end(request)). Node's default
  // then aborts every request still being answered and ends the socket, so an answer that waits on
  // the store (PostgreSQL) was lost; with this, the answers in progress are sent, and the socket
  // ends after the last. `httpAllowHalfOpen` is http.Server's own switch (not in its typings).
  ;(app.server as { httpAllowHalfOpen?: boolean }).httpAllowHalfOpen = true

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
  app.addHook('onRequest', (request, reply, done) => {
    // The answer of every route but the stream is due within the request timeout: a 503 the client
    // can retry beats a socket that goes quiet until the idle timeout drops it.
    if (request.routeOptions.url !== PATHS.stream) {
      const timer = setTimeout(() => {
        if (reply.sent || reply.raw.headersSent) return
        request.log.warn({ timeoutMs: limits.requestTimeoutMs }, 'no answer within the request timeout; 503')
        addCorsHeaders(settings, request, reply)
        sendProblem(reply, baseUrl, 'unavailable', {
          detail:
            'The server could not answer in time; retry after the number of seconds given in Retry-After.',
        })
      }, limits.requestTimeoutMs)
      timer.unref()
      reply.raw.once('close', () => clearTimeout(timer))
    }
    done()
  })
  app.addHook('onResponse', async (request, reply) => {
    // A probe that is answered is not worth a line each; one that fails is worth a warning.
    const level = accessLevel(request.url, reply.statusCode)
    if (level !== null) logAnswer(request, reply, level)
  })
  app.addHook('onRequest', rateLimiter.onRequest)
  // A malformed request is counted like any other (decisions §5: whatever its outcome), then refused
  // before anything reads it.
  app.addHook('onRequest', async (request, reply) =>
    answerRefusal({ baseUrl, cors: settings, rules }, request, reply) ? reply : undefined,
  )
  // Counted like any request, then answered before CORS and body handling: 405 with Allow on a
  // known path, 404 elsewhere (not-found.ts).
  const notFound = createNotFoundHandler(baseUrl, KNOWN_PATHS)
  app.addHook('onRequest', async (request, reply) => {
    if (!answersBeforeRouting(request)) return undefined
    addCorsHeaders(settings, request, reply)
    return notFound(request, reply)
  })

  await app.register(cors, corsPluginOptions(settings))
  // The stream answers GET alone (HEAD there is 405, as its Allow says): its preflight says so too.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (isPreflight(request) && request.url.split('?', 1)[0] === PATHS.stream)
      reply.header('access-control-allow-methods', 'GET')
    done(null, payload)
  })
  // Everything not served from a precompressed representation: problem pages, large problems.
  await app.register(compress, {
    global: true,
    threshold: COMPRESS_THRESHOLD + 1,
    encodings: ['br', 'gzip'],
    brotliOptions: { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } },
  })
  // Bodies streamed without a Content-Length (compressed on the fly) are counted for the access log.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (isStream(payload) && !reply.hasHeader('content-length')) countBodyBytes(reply.raw)
    return payload
  })
  await app.register(
    swagger,
    openApiOptions({ version: deps.version, baseUrl, rateLimit: settings.rateLimit }),
  )

  const probe = createStoreProbe({
    store: deps.store,
    wallClock: deps.wallClock,
    faults: deps.storeFaults,
  })
  const auth = createKeyAuth({
    store: deps.store,
    follower: deps.follower,
    wallClock: deps.wallClock,
    clock: deps.clock,
    logger: app.log,
  })
  const cache = createContestCache({ store: deps.store, follower: deps.follower, clock: deps.clock })
  const requireKey = createRequireKey(auth)

  app.setErrorHandler(createErrorHandler({ baseUrl, probe, storeOutage: deps.storeOutage }))
  app.setNotFoundHandler(notFound)

  registerContestRoutes(app, { cache, requireKey })
  const openStreams = createOpenStreams(settings.streamMaxPerAddress)
  const unwatchRevocations = deps.follower.onEvents(
    endStreamsOfRevokedKeys({ streams: openStreams, store: deps.store, logger: app.log }),
  )
  const handOver = { streams: deps.streams, accessLog, log: app.log, openStreams }
  if (settings.fastPath !== false) {
    // The hot GETs are answered before Fastify's own request handling (fast-path.ts); everything
    // else reaches Fastify's handler unchanged.
    const fastPath = createFastPath({
      cache,
      auth,
      limiter: rateLimiter,
      cors: settings,
      rules,
      accessLog,
      handOver,
      openStreams,
      routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
      ...(metrics ? { metrics } : {}),
      isClosing: () => closing,
    })
    const [framework, ...others] = app.server.listeners('request') as ((...args: unknown[]) => void)[]
    if (framework === undefined || others.length > 0) throw new Error('unexpected request listeners')
    app.server.removeListener('request', framework)
    app.server.on('request', fastPath(framework))
  }
  registerStreamRoute(app, {
    handOver,
    rules,
    requireKey,
    openStreams,
    rateLimitBurst: settings.rateLimit.burst,
    streamMaxPerAddress: settings.streamMaxPerAddress,
  })
  registerHealthRoute(app, {
    probe,
    buckets: deps.buckets,
    clock: deps.clock,
    wallClock: deps.wallClock,
    version: deps.version,
  })
  registerOpenApiRoute(app)
  registerProblemPages(app, baseUrl, { rateLimit: settings.rateLimit })
  registerWebPages(app, deps.webAssets ?? new Map(), settings.publicBaseUrl)
  registerMethodNotAllowed(app, baseUrl, KNOWN_PATHS)

  // Connection limits for a public API (docs/scaling.md, "Connection limits"): a connection quiet for this long
  // with a request open, or before its first byte, is closed; streams exempt themselves.
  const idle = watchIdleConnections(app.server, {
    idleMs: limits.idleTimeoutMs,
    tls: settings.tls !== null,
  })

  app.addHook('preClose', async () => {
    // From here every new request gets 503; open streams end cleanly so clients reconnect elsewhere.
    closing = true
    await deps.streams.close()
  })
  app.addHook('onClose', async () => {
    idle.stop()
    unwatchRevocations()
    cache.close()
    await auth.close()
    accessLog.close()
  })

  return app as unknown as FastifyInstance
}

function isStream(payload: unknown): boolean {
  return typeof (payload as { pipe?: unknown } | null)?.pipe === 'function'
}

/** The body bytes of a framework answer: its Content-Length, or what was counted as it went out. */
function bytesSent(reply: FastifyReply): number {
  const length = reply.getHeader('content-length')
  return length === undefined ? countedBodyBytes(reply.raw) : Number(length)
}
