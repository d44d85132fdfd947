// The rate limiter at the edge (decisions §5, spec §7–8): one token per request from the bucket of
// the client's address, taken in the first onRequest hook so a refused request runs nothing else —
// no key check, no store read. Only GET/HEAD /v1/health and CORS preflights are free; 401s, 404s,
// 405s, the OpenAPI document and problem pages all count. The limit headers appear on 429 only.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { bucketKeyFor } from '../domain/client-address.ts'
import type { BucketPolicy } from '../domain/token-bucket.ts'
import type { BucketStore } from '../ports/bucket-store.ts'
import { addCorsHeaders, type CorsPolicy, isPreflight } from './cors.ts'
import { PAGE_PATHS, PATHS } from './paths.ts'
import { sendProblem } from './problems.ts'

export type RateLimiter = {
  /** The app-wide onRequest hook. */
  onRequest(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined>
  /**
   * Counts a request that bypasses the hooks (a URL the router cannot parse); true when it was
   * refused and the 429 has been sent.
   */
  refuse(request: FastifyRequest, reply: FastifyReply): Promise<boolean>
}

export function createRateLimiter(opts: {
  buckets: BucketStore
  policy: BucketPolicy
  baseUrl: string
  cors: CorsPolicy
}): RateLimiter {
  const { buckets, policy, baseUrl, cors } = opts

  async function refuse(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    let result: Awaited<ReturnType<BucketStore['take']>>
    try {
      result = await buckets.take(bucketKeyFor(request.ip))
    } catch (err) {
      // A limiter that cannot count must not take the API down with it: fail open, loudly.
      request.log.error({ err }, 'rate-limit store failed; request let through uncounted')
      return false
    }
    if (result.allowed) return false
    addCorsHeaders(cors, request, reply)
    sendProblem(reply, baseUrl, 'rate-limited', {
      headers: {
        'retry-after': String(result.retryAfterS),
        'x-ratelimit-limit': String(policy.burst),
        'x-ratelimit-remaining': String(result.remaining),
      },
    })
    return true
  }

  return {
    async onRequest(request, reply) {
      if (isExempt(request)) return undefined
      return (await refuse(request, reply)) ? reply : undefined
    },
    refuse,
  }
}

function isExempt(request: FastifyRequest): boolean {
  if (isPreflight(request)) return true
  if (request.method !== 'GET' && request.method !== 'HEAD') return false
  const route = request.routeOptions.url
  return route === PATHS.health || (route !== undefined && PAGE_PATHS.includes(route))
}
