// The fast path: hot GETs answered from the contest cache before Fastify sees them. Fastify's own
// per-request work (request and reply objects, hooks, the CORS and compression plugins inspecting
// bytes that are already precompressed) costs more than everything this API does for a cached
// answer, so a request that is certain to be a cache hit for a well-formed URL is answered here,
// through the same modules as the framework path: the rate limiter, the key check, the contest
// cache, the request id and the header builder (representationHead). Anything else — an unusual
// URL, a request that breaks a request rule (request-rules.ts), a cache miss, a 429 or 401, a
// cross-origin request, shutdown, request logging enabled —
// is handed to Fastify untouched; a token already taken travels with it, so nothing is counted twice.
// test/http-fast-path.test.ts sends one matrix of requests through both paths and requires
// identical answers, headers included.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyBaseLogger } from 'fastify'
import type { Logger } from 'pino'
import { bucketKeyFor } from '../domain/client-address.ts'
import type { StreamHub } from '../stream/stream-hub.ts'
import type { ClientAddressOf } from './client-address.ts'
import { activeKey, type CachedEntry, type ContestCache, contestKey, historyKey } from './contest-cache.ts'
import { type CorsPolicy, corsSimpleHeaders } from './cors.ts'
import { type HotHeaders, readHotHeaders } from './hot-headers.ts'
import type { AuthResult, KeyAuth } from './key-auth.ts'
import type { OpenStreams } from './open-streams.ts'
import { PATHS } from './paths.ts'
import type { LimitVerdict, RateLimiter } from './rate-limit.ts'
import {
  chooseEncoding,
  type Encoding,
  encodingFor,
  type HeaderSink,
  ifNoneMatchHits,
  type Representation,
  representationHead,
} from './representation.ts'
import { edgeHeaders, requestIdFrom } from './request-id.ts'
import type { RequestMetrics } from './request-metrics.ts'
import { requestFault } from './request-rules.ts'
import { CONTEST_CACHE_CONTROL } from './routes/contests.ts'
import { lazyRequestLogger, openStream, STREAM_HEADERS } from './routes/stream.ts'
import { LIMIT_DEFAULT, SERIES_MAX_LENGTH, TICKER_MAX_LENGTH } from './schemas.ts'

export type FastPathDeps = {
  cache: ContestCache
  auth: KeyAuth
  limiter: RateLimiter
  cors: CorsPolicy
  /** the app's logger: with request logging on (info), every request goes through Fastify */
  log: FastifyBaseLogger & Pick<Logger, 'isLevelEnabled'>
  streams: StreamHub
  /** the per-address stream cap and the streams a revocation ends: shared with the stream route */
  openStreams: OpenStreams
  /** the client address as the rate limiter and Fastify's request.ip see it */
  clientAddress: ClientAddressOf
  metrics?: RequestMetrics
  isClosing(): boolean
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void

/**
 * A URL the fast path may answer, parsed once and remembered: a cached read (its cache key and
 * entry), or a stream of a series.
 */
type Route = { key: string; label: string; entry: CachedEntry | undefined; stream?: string }

/** One prebuilt answer: the flat header list (slot `idAt` takes the request id), status and bytes. */
type Head = { status: number; headers: string[]; idAt: number; body: Buffer | null }

/** URLs remembered (parsed routes and refusals alike) before the memo starts over. */
const MAX_MEMO = 10_000
/** Characters a series or ticker may have on the fast path: what needs no percent-decoding. */
const PLAIN = /^[A-Za-z0-9._~-]+$/
const LIMIT = /^(?:[1-9][0-9]?|100)$/

export function createFastPath(deps: FastPathDeps): (framework: Handler) => Handler {
  const { cache, auth, limiter, cors, log, metrics } = deps
  const routes = new Map<string, Route | null>()
  const heads = new WeakMap<Representation, Map<string, Head>>()
  const encodings = new Map<string, Encoding | null>()

  function routeOf(url: string): Route | null {
    let route = routes.get(url)
    if (route === undefined) {
      if (routes.size >= MAX_MEMO) routes.clear()
      route = parseRoute(url)
      routes.set(url, route)
    }
    return route
  }

  function entryOf(route: Route): CachedEntry | undefined {
    const held = route.entry
    if (held?.live) return held
    route.entry = cache.peek(route.key)
    return route.entry
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
    const id = `${encoding ?? 'identity'}${notModified ? ' 304' : ''}${head ? ' HEAD' : ''}`
    let byRep = heads.get(rep)
    if (byRep === undefined) {
      byRep = new Map()
      heads.set(rep, byRep)
    }
    let built = byRep.get(id)
    if (built === undefined) {
      built = buildHead(cors, rep, encoding, notModified, head)
      byRep.set(id, built)
    }
    return built
  }

  function answer(
    req: IncomingMessage,
    res: ServerResponse,
    h: HotHeaders,
    route: Route,
    rep: Representation,
  ): void {
    const encoding = encodingFor(rep, h.acceptEncoding, chooseRemembered)
    const notModified = ifNoneMatchHits(h.ifNoneMatch, rep.etag)
    const head = headOf(rep, encoding, notModified, req.method === 'HEAD')
    // The list is copied into the header block synchronously, so one array serves every request.
    head.headers[head.idAt] = requestIdFrom(h.requestId)
    res.writeHead(head.status, head.headers)
    if (head.body === null) res.end()
    else res.end(head.body)
    metrics?.countRequest(route.label, req.method!, head.status)
  }

  return (framework) => {
    /** After the token: the key, then the answer (or Fastify, with the token taken). */
    function afterLimit(
      req: IncomingMessage,
      res: ServerResponse,
      h: HotHeaders,
      route: Route,
      verdict: LimitVerdict,
    ): void {
      if (verdict !== null && !verdict.allowed) {
        handOver(req, res, verdict)
        return
      }
      const checked = auth.checkNow(h.authorization, req.socket)
      if (checked instanceof Promise) {
        checked.then(
          (result) => afterAuth(req, res, h, route, verdict, result),
          () => handOver(req, res, verdict),
        )
      } else afterAuth(req, res, h, route, verdict, checked)
    }

    function afterAuth(
      req: IncomingMessage,
      res: ServerResponse,
      h: HotHeaders,
      route: Route,
      verdict: LimitVerdict,
      result: AuthResult,
    ): void {
      if (route.stream !== undefined) {
        // over the per-address cap, the stream route answers its 429 (the token travels with it)
        const address = bucketKeyFor(deps.clientAddress(req.socket?.remoteAddress, h.forwardedFor))
        if (result.ok && deps.openStreams.admit(address, result.keyId, res)) stream(req, res, h, route.stream)
        else handOver(req, res, verdict)
        return
      }
      // The entry may have been dropped while the limiter or the key store was asked.
      const rep = result.ok ? entryOf(route)?.rep : null
      if (rep) answer(req, res, h, route, rep)
      else handOver(req, res, verdict)
    }

    function handOver(req: IncomingMessage, res: ServerResponse, verdict: LimitVerdict): void {
      limiter.remember(req, verdict)
      framework(req, res)
    }

    /** The stream route's work without the route: the same head, the same hand-over to the hub. */
    function stream(req: IncomingMessage, res: ServerResponse, h: HotHeaders, series: string): void {
      // as in the stream route: quiet between keep-alives, cut off by its own rule, not the idle timeout
      req.socket?.setTimeout(0)
      const head = streamHead(cors)
      const id = requestIdFrom(h.requestId)
      head.headers[head.idAt] = id
      if (metrics) res.once('close', () => metrics.countRequest(PATHS.stream, 'GET', 200))
      void openStream(
        deps.streams,
        res,
        head.headers,
        { series, lastEventId: h.lastEventId ?? null },
        lazyRequestLogger(log, id),
      )
    }

    return function fastPath(req, res) {
      const method = req.method
      if ((method !== 'GET' && method !== 'HEAD') || deps.isClosing() || log.isLevelEnabled('info')) {
        framework(req, res)
        return
      }
      const route = routeOf(req.url ?? '')
      const rep = route === null ? null : route.stream !== undefined ? true : entryOf(route)?.rep
      // HEAD on the stream is Fastify's 405.
      if (!rep || route === null || (route.stream !== undefined && method !== 'GET')) {
        framework(req, res)
        return
      }
      const h = readHotHeaders(req.rawHeaders)
      // A request that breaks a request rule gets its 400 from the framework path (request-rules.ts);
      // cross-origin requests are @fastify/cors's (the fast path builds heads for requests without Origin).
      if (h.origin !== undefined || requestFault(req.httpVersion, req.url ?? '', h) !== null) {
        framework(req, res)
        return
      }
      const verdict = limiter.takeFor(req.socket?.remoteAddress, h.forwardedFor, (err) =>
        log.error(
          { err, reqId: requestIdFrom(h.requestId) },
          'rate-limit store failed; request let through uncounted',
        ),
      )
      if (verdict instanceof Promise) verdict.then((v) => afterLimit(req, res, h, route, v))
      else afterLimit(req, res, h, route, verdict)
    }
  }
}

/**
 * The URLs the fast path answers, in their plain spelling only: a series or ticker that needs no
 * percent-decoding, `limit` in canonical decimal, no other parameter. Everything else (encoded
 * characters, repeated or unknown parameters, since/before, an overlong value) is Fastify's.
 */
function parseRoute(url: string): Route | null {
  const q = url.indexOf('?')
  const path = q === -1 ? url : url.slice(0, q)
  const query = q === -1 ? null : url.slice(q + 1)
  const contestsPrefix = `${PATHS.contests}/`
  if (path === PATHS.activeContest) {
    const series = query === null ? null : onlyParam(query, 'series')
    if (series === null || !plain(series, SERIES_MAX_LENGTH)) return null
    return { key: activeKey(series), label: PATHS.activeContest, entry: undefined }
  }
  if (path === PATHS.contests) {
    if (query === null) return null
    let series: string | null = null
    let limit: number = LIMIT_DEFAULT
    const parts = query.split('&')
    if (parts.length > 2) return null
    let sawLimit = false
    for (const part of parts) {
      if (part.startsWith('series=') && series === null) series = part.slice(7)
      else if (part.startsWith('limit=') && !sawLimit && LIMIT.test(part.slice(6))) {
        sawLimit = true
        limit = Number(part.slice(6))
      } else return null
    }
    if (series === null || !plain(series, SERIES_MAX_LENGTH)) return null
    return {
      key: historyKey({ series, limit, since: undefined, before: undefined }),
      label: PATHS.contests,
      entry: undefined,
    }
  }
  if (path === PATHS.stream) {
    const series = query === null ? null : onlyParam(query, 'series')
    if (series === null || !plain(series, SERIES_MAX_LENGTH)) return null
    return { key: '', label: PATHS.stream, entry: undefined, stream: series }
  }
  if (path.startsWith(contestsPrefix) && query === null) {
    const ticker = path.slice(contestsPrefix.length)
    if (ticker === 'active' || !plain(ticker, TICKER_MAX_LENGTH)) return null
    return { key: contestKey(ticker), label: PATHS.contest, entry: undefined }
  }
  return null
}

function onlyParam(query: string, name: string): string | null {
  return query.startsWith(`${name}=`) && !query.includes('&') ? query.slice(name.length + 1) : null
}

function plain(value: string, maxLength: number): boolean {
  return value.length >= 1 && value.length <= maxLength && PLAIN.test(value)
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
 * edge headers with the request id (app.ts's first hook), the CORS headers of a request without Origin (@fastify/cors),
 * the representation's own (representationHead), then what Fastify adds as it sends: the length
 * of the bytes, and `content-length: 0` on a HEAD that has none (its HEAD route's onSend).
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
  return { status, headers, idAt: headers.indexOf(ID), body }
}
