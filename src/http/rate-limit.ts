// The rate limiter at the edge (decisions §5, docs/api-contract.md §7–8): one token per request
// from the bucket of the client's address, taken in the first onRequest hook so a refused request
// runs nothing else — no key check, no store read. Only GET/HEAD /v1/health, CORS preflights and the
// dashboard's static modules are free; 400s, 401s, 404s, 405s, the OpenAPI document, the pages and
// problem pages all count, and so do the answers sent on the bare socket (framework-errors.ts). The limit headers
// appear on 429 only. The fast path (fast-path.ts) takes its token through `take` too; a request it
// hands over to the framework carries that answer, and the hook uses it instead of taking a second
// token. Both count by the client address of request-rules.ts.
import type { IncomingMessage } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { BucketPolicy } from '../domain/token-bucket.ts'
import type { BucketStore, TakeResult } from '../ports/bucket-store.ts'
import { addCorsHeaders, type CorsPolicy, isPreflight } from './cors.ts'
import { PATHS, UNCOUNTED_PAGE_PATHS } from './paths.ts'
import { sendProblem } from './problems.ts'
import type { RequestRules } from './request-rules.ts'

/** A limiter step: its answer, or null when the bucket store failed and the request goes uncounted. */
export type LimitVerdict = TakeResult | null

export type RateLimiter = {
  /** The app-wide onRequest hook. */
  onRequest(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined>
  /**
   * Counts a request that bypasses the hooks (a URL the router cannot parse); true when it was
   * refused and the 429 has been sent.
   */
  refuse(request: FastifyRequest, reply: FastifyReply): Promise<boolean>
  /**
   * Takes this request's token: synchronously when the bucket store can, else a promise. Failures
   * are logged through `onError` and let the request through uncounted (null).
   */
  take(raw: IncomingMessage, onError: (err: unknown) => void): LimitVerdict | Promise<LimitVerdict>
  /** `take` for a bucket key worked out without a request object (an answer on the bare socket). */
  takeFor(key: string | number, onError: (err: unknown) => void): LimitVerdict | Promise<LimitVerdict>
  /** The rate-limit headers of a refusal. */
  refusalHeaders(verdict: TakeResult): Record<string, string>
  /** Hands a verdict already taken to the framework path, so the request is not counted twice. */
  remember(raw: IncomingMessage, verdict: LimitVerdict): void
}

/** Where a verdict taken before routing waits for the hook. */
const TAKEN = Symbol('rate-limit verdict')
type WithVerdict = IncomingMessage & { [TAKEN]?: LimitVerdict }

export function createRateLimiter(opts: {
  buckets: BucketStore
  policy: BucketPolicy
  baseUrl: string
  cors: CorsPolicy
  rules: RequestRules
}): RateLimiter {
  const { buckets, policy, baseUrl, cors, rules } = opts
  const takeNow = buckets.takeNow?.bind(buckets)

  function take(raw: IncomingMessage, onError: (err: unknown) => void): LimitVerdict | Promise<LimitVerdict> {
    return takeFor(rules(raw).bucketKey, onError)
  }

  function takeFor(
    key: string | number,
    onError: (err: unknown) => void,
  ): LimitVerdict | Promise<LimitVerdict> {
    try {
      if (takeNow) return takeNow(key)
      return buckets.take(key).catch((err: unknown) => {
        onError(err)
        return null
      })
    } catch (err) {
      onError(err)
      return null
    }
  }

  async function refuse(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const raw = request.raw as WithVerdict
    const result =
      TAKEN in raw
        ? raw[TAKEN]
        : await take(raw, (err) =>
            // A limiter that cannot count must not take the API down with it: fail open, loudly.
            request.log.error({ err }, 'rate-limit store failed; request let through uncounted'),
          )
    if (result == null || result.allowed) return false
    addCorsHeaders(cors, request, reply)
    sendProblem(reply, baseUrl, 'rate-limited', { headers: refusalHeaders(result) })
    return true
  }

  function refusalHeaders(result: TakeResult): Record<string, string> {
    return {
      'retry-after': String(result.retryAfterS),
      'x-ratelimit-limit': String(policy.burst),
      'x-ratelimit-remaining': String(result.remaining),
    }
  }

  return {
    async onRequest(request, reply) {
      if (isExempt(request)) return undefined
      return (await refuse(request, reply)) ? reply : undefined
    },
    refuse,
    take,
    takeFor,
    refusalHeaders,
    remember(raw, verdict) {
      ;(raw as WithVerdict)[TAKEN] = verdict
    },
  }
}

function isExempt(request: FastifyRequest): boolean {
  if (isPreflight(request)) return true
  if (request.method !== 'GET' && request.method !== 'HEAD') return false
  const route = request.routeOptions.url
  return route === PATHS.health || (route !== undefined && UNCOUNTED_PAGE_PATHS.includes(route))
}
