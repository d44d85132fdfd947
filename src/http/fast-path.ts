// The fast path: the hot GETs answered from the contest cache before Fastify sees them. Fastify's own
// per-request work (request and reply objects, hooks, the CORS and compression plugins inspecting
// bytes that are already precompressed) costs more than everything this API does for a cached
// answer, so a well-formed request for a contest, the active contest, a page of history or the
// stream is answered here, through the same modules as the framework path: the request rules, the
// rate limiter, the key check, the contest cache, the header builder (representationHead), the
// stream hand-over and the access log. Anything else — a request the rules refuse, an unusual URL, a
// 429 or 401, a contest that is not there, a cross-origin request, shutdown — is handed to Fastify
// untouched; a token already taken travels with it, so nothing is counted twice.
// Routes are found by find-my-way, Fastify's own router, with the same options, once per distinct
// URL. test/http-fast-path.test.ts and test/http-differential.test.ts hold the two paths to
// identical answers, headers included, and the whole HTTP suite runs on both (test/README.md).
import type { IncomingMessage, ServerResponse } from 'node:http'
import FindMyWay from 'find-my-way'
import { type AccessLog, accessPathJson, answerPart } from './access-log.ts'
import { activeKey, type CachedEntry, type ContestCache, contestKey, historyKey } from './contest-cache.ts'
import { type CorsPolicy, corsSimpleHeaders } from './cors.ts'
import type { AuthResult, KeyAuth } from './key-auth.ts'
import type { OpenStreams } from './open-streams.ts'
import { PATHS } from './paths.ts'
import type { LimitVerdict, RateLimiter } from './rate-limit.ts'
import {
  CONTEST_CACHE_CONTROL,
  chooseEncoding,
  type Encoding,
  encodingFor,
  type HeaderSink,
  ifNoneMatchHits,
  type Representation,
  representationHead,
} from './representation.ts'
import { edgeHeaders } from './request-id.ts'
import type { RequestMetrics } from './request-metrics.ts'
import { forgetRequestFacts, type RequestFacts, type RequestRules } from './request-rules.ts'
import { LIMIT_DEFAULT, SERIES_MAX_LENGTH, TICKER_MAX_LENGTH } from './schemas.ts'
import { openStream, STREAM_HEADERS, type StreamHandOver } from './stream-handover.ts'

export type FastPathDeps = {
  cache: ContestCache
  auth: KeyAuth
  limiter: RateLimiter
  cors: CorsPolicy
  rules: RequestRules
  accessLog: AccessLog
  handOver: StreamHandOver
  /** the per-address stream cap and the streams a revocation ends: shared with the stream route */
  openStreams: OpenStreams
  /** Fastify's router options (the same find-my-way settings) */
  routerOptions: { maxParamLength: number }
  metrics?: RequestMetrics
  isClosing(): boolean
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void

type Kind = 'contest' | 'active' | 'history' | 'stream'

/** A URL the fast path may answer, looked up once and remembered, with its cached entry. */
type Route = {
  kind: Kind
  /** the route pattern: the metrics label */
  label: string
  /** the series of an active contest, a history page or a stream; the ticker of a contest */
  name: string
  limit: number
  key: string
  entry: CachedEntry | undefined
  /** the URL as the access log shows it, worked out once */
  pathJson: string
  /** the access line's `answerPart` for the head this URL was last answered with */
  logged: { head: Head; part: string } | null
}

/** One prebuilt answer: the flat header list (slot `idAt` takes the request id), status and bytes. */
type Head = { status: number; headers: string[]; idAt: number; body: Buffer | null; bytes: number }

/** URLs remembered (routes and refusals alike) before the memo starts over. */
const MAX_MEMO = 10_000
/** Characters a series may have on the fast path: what the query parser passes through unchanged. */
const PLAIN = /^[A-Za-z0-9._~-]+$/
const LIMIT = /^(?:[1-9][0-9]?|100)$/

export function createFastPath(deps: FastPathDeps): (framework: Handler) => Handler {
  const { cache, auth, limiter, cors, rules, accessLog, metrics } = deps
  const router = createRouter(deps.routerOptions)
  const routes = new Map<string, Route | null>()
  const heads = new WeakMap<Representation, (Head | undefined)[]>()
  const encodings = new Map<string, Encoding | null>()

  function routeOf(url: string): Route | null {
    let route = routes.get(url)
    if (route === undefined) {
      if (routes.size >= MAX_MEMO) routes.clear()
      route = findRoute(router, url)
      routes.set(url, route)
    }
    return route
  }

  /** The cached answer, or null (none, or no such contest), without waiting for the store. */
  function held(route: Route): Representation | null | undefined {
    const entry = route.entry !== undefined && cache.holds(route.entry) ? route.entry : cache.peek(route.key)
    route.entry = entry
    return entry?.rep
  }

  function load(route: Route): Promise<Representation | null> {
    if (route.kind === 'contest') return cache.contest(route.name)
    if (route.kind === 'active') return cache.active(route.name)
    return cache.history({ series: route.name, limit: route.limit, since: undefined, before: undefined })
  }

  /** chooseEncoding, remembered per Accept-Encoding value (clients send a handful of spellings). */
  function chooseRemembered(header: string | undefined): Encoding | null {
    if (header === undefined) return null
    let enc = encodings.get(header)
    if (enc === undefined) {
      if (encodings.size >= 256) encodings.clear()
      enc = chooseEncoding(header)
      encodings.set(header, enc)
    }
    return enc
  }

  function headOf(rep: Representation, encoding: Encoding | null, notModified: boolean, head: boolean): Head {
    // Twelve variants (three encodings, 304 or not, HEAD or GET), each in its own slot.
    const slot =
      (encoding === null ? 0 : encoding === 'gzip' ? 4 : 8) + (notModified ? 2 : 0) + (head ? 1 : 0)
    let byRep = heads.get(rep)
    if (byRep === undefined) {
      byRep = new Array<Head | undefined>(12).fill(undefined)
      heads.set(rep, byRep)
    }
    let built = byRep[slot]
    if (built === undefined) {
      built = buildHead(cors, rep, encoding, notModified, head)
      byRep[slot] = built
    }
    return built
  }

  function answer(
    req: IncomingMessage,
    res: ServerResponse,
    facts: RequestFacts,
    route: Route,
    rep: Representation,
  ) {
    const h = facts.headers
    const encoding = encodingFor(rep, h.acceptEncoding, chooseRemembered)
    const notModified = ifNoneMatchHits(h.ifNoneMatch, rep.etag, encoding)
    const method = req.method!
    const head = headOf(rep, encoding, notModified, method === 'HEAD')
    // The list is copied into the header block synchronously, so one array serves every request.
    head.headers[head.idAt] = facts.requestId
    res.writeHead(head.status, head.headers)
    if (head.body === null) res.end()
    else res.end(head.body)
    metrics?.countRequest(route.label, method, head.status, (performance.now() - facts.startedAt) / 1000)
    let logged = route.logged
    if (logged?.head !== head) {
      logged = { head, part: answerPart(method, route.pathJson, head.status, head.bytes) }
      route.logged = logged
    }
    accessLog.writeAnswer(logged.part, facts.startedAt, facts.address, facts.requestId)
  }

  return (framework) => {
    /** After the token: the key, then the answer (or Fastify, with the token taken). */
    function afterLimit(
      req: IncomingMessage,
      res: ServerResponse,
      facts: RequestFacts,
      route: Route,
      verdict: LimitVerdict,
    ): void {
      if (verdict !== null && !verdict.allowed) {
        handOver(req, res, verdict)
        return
      }
      // A stream's connection carries no later request, so a key memo on it would only be held for
      // as long as the stream is open.
      const checked = auth.checkNow(
        facts.headers.authorization,
        route.kind === 'stream' ? undefined : req.socket,
      )
      if (checked instanceof Promise) {
        checked.then(
          (result) => afterAuth(req, res, facts, route, verdict, result),
          () => handOver(req, res, verdict),
        )
      } else afterAuth(req, res, facts, route, verdict, checked)
    }

    function afterAuth(
      req: IncomingMessage,
      res: ServerResponse,
      facts: RequestFacts,
      route: Route,
      verdict: LimitVerdict,
      result: AuthResult,
    ): void {
      if (!result.ok) {
        handOver(req, res, verdict)
        return
      }
      if (route.kind === 'stream') {
        // over the per-address cap, the stream route answers its 429 (the token travels with it)
        if (deps.openStreams.admit(facts.bucketKey, result.keyId, res))
          stream(res, facts, route.name, result.keyId)
        else handOver(req, res, verdict)
        return
      }
      const rep = held(route)
      if (rep) {
        answer(req, res, facts, route, rep)
        return
      }
      // Not held (or held as "no such contest", which Fastify answers as its 404).
      if (rep === null) {
        handOver(req, res, verdict)
        return
      }
      load(route).then(
        (loaded) => (loaded ? answer(req, res, facts, route, loaded) : handOver(req, res, verdict)),
        // The store failed: Fastify asks again and answers as its error handler decides (503).
        () => handOver(req, res, verdict),
      )
    }

    function handOver(req: IncomingMessage, res: ServerResponse, verdict: LimitVerdict): void {
      limiter.remember(req, verdict)
      framework(req, res)
    }

    /** The stream route's work without the route: the same head, the same hand-over to the hub. */
    function stream(res: ServerResponse, facts: RequestFacts, series: string, keyId: string): void {
      const head = streamHead(cors)
      head.headers[head.idAt] = facts.requestId
      // `on`: 'close' comes once, and once() would hold a wrapper per open stream
      if (metrics) res.on('close', () => metrics.countRequest(PATHS.stream, 'GET', 200, null))
      void openStream(
        deps.handOver,
        res,
        head.headers,
        { series, lastEventId: facts.headers.lastEventId ?? null },
        facts,
        keyId,
      )
      // Nothing judges this request again, and its response keeps it for as long as the stream is open.
      forgetRequestFacts(res.req)
    }

    return function fastPath(req, res) {
      const method = req.method
      if ((method !== 'GET' && method !== 'HEAD') || deps.isClosing()) {
        framework(req, res)
        return
      }
      const route = routeOf(req.url ?? '')
      // HEAD on the stream is Fastify's 405.
      if (route === null || (route.kind === 'stream' && method !== 'GET')) {
        framework(req, res)
        return
      }
      const facts = rules(req)
      // Refused by the request rules (answered by Fastify's first hook, which reads the same facts),
      // or cross-origin, which is @fastify/cors's (the fast path builds heads for requests without Origin).
      if (facts.refusal !== null || facts.headers.origin !== undefined) {
        framework(req, res)
        return
      }
      const verdict = limiter.take(req, (err) =>
        deps.handOver.log.error(
          { err, reqId: facts.requestId },
          'rate-limit store failed; request let through uncounted',
        ),
      )
      if (verdict instanceof Promise) verdict.then((v) => afterLimit(req, res, facts, route, v))
      else afterLimit(req, res, facts, route, verdict)
    }
  }
}

type RouteStore = { kind: Kind; label: string }

/** find-my-way, configured as Fastify configures it, holding the four routes the fast path answers. */
function createRouter(options: { maxParamLength: number }) {
  const router = FindMyWay({ maxParamLength: options.maxParamLength })
  const noop = () => undefined
  const add = (label: string, kind: Kind) =>
    router.on('GET', label, noop, { kind, label } satisfies RouteStore)
  add(PATHS.contest, 'contest')
  add(PATHS.activeContest, 'active')
  add(PATHS.contests, 'history')
  add(PATHS.stream, 'stream')
  return router
}

/**
 * The route of a URL the fast path answers. The router matches the path and splits the query as
 * Fastify's does; on top, only the plain spellings are taken: nothing percent-encoded (a malformed
 * escape is the framework's 400), each parameter once, no parameter the route does not read, a
 * series in plain characters, `limit` in canonical decimal. Everything else is Fastify's.
 */
function findRoute(router: ReturnType<typeof createRouter>, url: string): Route | null {
  if (url.includes('%')) return null
  const found = router.find('GET', url)
  if (found === null) return null
  const { kind, label } = found.store as RouteStore
  const route = (name: string, limit: number, key: string): Route => ({
    kind,
    label,
    name,
    limit,
    key,
    entry: undefined,
    pathJson: accessPathJson(url),
    logged: null,
  })
  const query = found.searchParams as Record<string, string | string[]>
  const names = Object.keys(query)
  if (kind === 'contest') {
    const ticker = found.params.ticker ?? ''
    if (names.length > 0 || ticker.length < 1 || ticker.length > TICKER_MAX_LENGTH || ticker === 'active')
      return null
    return route(ticker, 0, contestKey(ticker))
  }
  const series = query.series
  if (typeof series !== 'string' || series.length > SERIES_MAX_LENGTH || !PLAIN.test(series)) return null
  if (kind === 'history') {
    const limit = query.limit
    if (names.length > (limit === undefined ? 1 : 2)) return null
    if (limit !== undefined && (typeof limit !== 'string' || !LIMIT.test(limit))) return null
    const n = limit === undefined ? LIMIT_DEFAULT : Number(limit)
    const key = historyKey({ series, limit: n, since: undefined, before: undefined })
    return route(series, n, key)
  }
  if (names.length > 1) return null
  const key = kind === 'active' ? activeKey(series) : ''
  return route(series, 0, key)
}

/** Headers in the order Fastify writes them: its reply header object keeps insertion order. */
function createHeadBuilder(): HeaderSink & { flat(): string[] } {
  const headers = new Map<string, string>()
  return {
    header(name, value) {
      headers.set(name.toLowerCase(), value)
    },
    getHeader: (name) => headers.get(name.toLowerCase()),
    flat: () => [...headers].flat(),
  }
}

/** The stream route's head for a request without Origin: edge headers, CORS, then STREAM_HEADERS. */
function streamHead(cors: CorsPolicy): { headers: string[]; idAt: number } {
  const builder = createHeadBuilder()
  const ID = '\0request-id'
  for (const [name, value] of edgeHeaders(ID)) builder.header(name, value)
  for (const [name, value] of corsSimpleHeaders(cors, undefined)) builder.header(name, value)
  for (const [name, value] of STREAM_HEADERS) builder.header(name, value)
  const headers = builder.flat()
  return { headers, idAt: headers.indexOf(ID) }
}

/**
 * The framework path's header sequence for a cached representation, built once per variant: the
 * edge headers with the request id (app.ts's first hook), the CORS headers of a request without
 * Origin (@fastify/cors), the representation's own (representationHead), then what Fastify adds as
 * it sends: the length of the bytes, and `content-length: 0` on a HEAD that has none.
 */
function buildHead(
  cors: CorsPolicy,
  rep: Representation,
  encoding: Encoding | null,
  notModified: boolean,
  head: boolean,
): Head {
  const builder = createHeadBuilder()
  const ID = '\0request-id'
  for (const [name, value] of edgeHeaders(ID)) builder.header(name, value)
  for (const [name, value] of corsSimpleHeaders(cors, undefined)) builder.header(name, value)
  const { status, body } = representationHead(builder, rep, encoding, notModified, CONTEST_CACHE_CONTROL)
  if (body !== null) builder.header('content-length', String(body.length))
  else if (head) builder.header('content-length', '0')
  const headers = builder.flat()
  return { status, headers, idAt: headers.indexOf(ID), body, bytes: body?.length ?? 0 }
}
