// The few settings buildApp uses, as plain values: the composition root derives them from the
// configuration and reads the TLS files, so the app builder itself does no I/O.
import type { BucketPolicy } from '../domain/token-bucket.ts'

export type AppSettings = Readonly<{
  /** the spec's {base_url}: problem `type` URIs and the OpenAPI `servers` */
  publicBaseUrl: string
  /** proxies whose X-Forwarded-For is honoured */
  trustProxy: readonly string[]
  corsOrigins: readonly string[] | '*'
  /** the token bucket per client address: the limiter, its 429 headers and the documents that describe it */
  rateLimit: BucketPolicy
  /** PEM certificate and key: serve HTTPS directly; null for plain HTTP behind a proxy */
  tls: Readonly<{ cert: Buffer; key: Buffer }> | null
  /**
   * Answer the hot GETs before Fastify (fast-path.ts); default true. false (FAST_PATH=off) sends
   * every request through the framework: for debugging, and the other half of the differential tests.
   */
  fastPath?: boolean
  /** the HTTP server's connection limits (docs/scaling.md, "Connection limits") */
  connectionLimits: ConnectionLimits
  /** open streams allowed per client address on this replica */
  streamMaxPerAddress: number
}>

export type ConnectionLimits = Readonly<{
  /** from a request's first byte to the end of its headers */
  headersTimeoutMs: number
  /** receiving a whole request; also the deadline for the answer of every route but the stream */
  requestTimeoutMs: number
  /** a socket with no traffic either way (a connection that never sends a byte included); not streams */
  idleTimeoutMs: number
  /** an idle kept-alive connection between requests */
  keepAliveTimeoutMs: number
}>

/** How the rate policy reads in prose: "a token bucket of 20 requests refilled at 1 per second". */
export function describeRatePolicy(policy: BucketPolicy): { burst: string; rate: string } {
  return { burst: `${policy.burst} requests`, rate: `${policy.perSec} per second` }
}
