// Counts every answered request by route pattern, method and status for the metrics port. It
// listens for the raw response's 'close' rather than Fastify's onResponse, which never runs for a
// hijacked reply (the stream) nor for one whose client went away.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { KNOWN_PATHS, PATHS } from './paths.ts'

/** What the HTTP layer reports to; implemented by metrics/metrics.ts, absent when metrics are off. */
export type RequestMetrics = {
  countRequest(route: string, method: string, status: number, seconds: number | null): void
}

/** The route label for requests that matched no route: never the raw URL, to bound cardinality. */
export const UNKNOWN_ROUTE = 'unknown'

// each known path as a test of a raw path (`:name` is one segment, a trailing `*` the rest)
const PATTERNS = KNOWN_PATHS.map(({ url }) => ({
  url,
  test: new RegExp(
    `^${url
      .replace(/[.]/g, '\\.')
      .replace(/:[^/]+/g, '[^/]+')
      .replace(/\*$/, '.+')}$`,
  ),
}))

/**
 * The known path pattern a raw path falls under (`/v1/contests/X` → `/v1/contests/:ticker`), or
 * `unknown`: the label of a request no route of its own answered (a CORS preflight, which the CORS
 * plugin's catch-all `*` route answers; a plain OPTIONS; a method no stub serves).
 */
export function routeLabelOf(path: string): string {
  return PATTERNS.find((p) => p.test.test(path))?.url ?? UNKNOWN_ROUTE
}

/** Counts this request once its response is over; call it before anything can answer it. */
export function countWhenAnswered(
  metrics: RequestMetrics,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  reply.raw.once('close', () => {
    // A client that left before any answer was written got none: there is no status to count.
    if (!reply.raw.headersSent) return
    // Read at the end: the not-found handler swaps the route context, which has no url.
    const matched = request.routeOptions.url
    const route =
      matched === undefined || matched === '*' ? routeLabelOf(request.url.split('?')[0] ?? '') : matched
    // a stream's life is not a latency
    const seconds = route === PATHS.stream ? null : reply.elapsedTime / 1000
    metrics.countRequest(route, request.method, reply.raw.statusCode, seconds)
  })
}
