// The request-level rules, in one place for both request paths (decisions §4): whether the request
// may be served at all, the headers the API reads, the request id, and the client address that the
// rate limiter, the stream cap and the access log all use. The fast path calls `requestFacts` first;
// the framework path calls it from genReqId, its first hook and the framework-error answers. The
// answer is kept on the raw request, so a request the fast path hands over is never judged twice and
// both paths see the very same facts. A request that breaks a rule is answered 400 `bad-request` by
// the framework path (the fast path hands it over), once the rate limiter has counted it:
// - an HTTP version other than 1.x: Node's parser takes `HTTP/2.0` and a request line without any
//   version (HTTP/0.9) as requests, which this server answers as HTTP/1.1 to a client that asked
//   for something else (`HTTP/1.2` is the parser's own 400, in the same words);
// - RFC 9112 §3.2: an HTTP/1.1 request without Host, or any request with more than one Host line;
// - Authorization is a singleton field (RFC 9110 §11.6.2): two lines are an ambiguous credential,
//   refused rather than resolved by picking one;
// - a fragment is not part of a request target (RFC 9112 §3.2, RFC 9110 §4.2.5): a `#` in one is
//   refused, never half-stripped.
import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { bucketKeyOf } from '../domain/client-address.ts'
import type { ClientAddressOf } from './client-address.ts'
import { addCorsHeaders, type CorsPolicy } from './cors.ts'
import { type HotHeaders, readHotHeaders } from './hot-headers.ts'
import { UNSUPPORTED_VERSION } from './parser-faults.ts'
import { type ProblemName, type ProblemOptions, sendProblem } from './problems.ts'
import { requestIdFrom } from './request-id.ts'

/** Why a request is refused before anything else looks at it: the problem it is answered with. */
export type Refusal = { problem: ProblemName; options: ProblemOptions }

export type RequestFacts = {
  /** null: the request may go on; else the answer it gets, after the rate limiter and before the key */
  refusal: Refusal | null
  headers: HotHeaders
  /** X-Request-Id when sane, else a fresh UUID */
  requestId: string
  /** the client address (decisions §5): the access log shows it */
  address: string
  /** the address as the limiter and the stream cap count it (IPv6 by /64, IPv4 as a number) */
  bucketKey: string | number
  /** performance.now() when the request was first looked at: the access log's duration */
  startedAt: number
}

const FACTS = Symbol('request facts')
type WithFacts = IncomingMessage & { [FACTS]?: RequestFacts }

// A connection's requests without X-Forwarded-For all come from its peer: the address and its bucket
// key are worked out once per connection, not once per request.
const PEER = Symbol('client address of the peer')
type ClientOf = { address: string; bucketKey: string | number }
type WithPeer = Socket & { [PEER]?: ClientOf }

const refusal = (detail: string, close: boolean): Refusal => ({
  problem: 'bad-request',
  // a request whose framing cannot be trusted ends its connection
  options: close ? { detail, headers: { connection: 'close' } } : { detail },
})
const VERSION = refusal(UNSUPPORTED_VERSION, true)
const NO_HOST = refusal('An HTTP/1.1 request must carry a Host header.', true)
const HOSTS = refusal('A request must carry exactly one Host header line; this one carries several.', true)
const AUTHORIZATIONS = refusal(
  'A request may carry one Authorization header line; this one carries several.',
  false,
)
const FRAGMENT = refusal(
  'The request target contains "#": a fragment is not sent to the server; remove it.',
  false,
)

export type RequestRules = (req: IncomingMessage) => RequestFacts

export function createRequestRules(clientAddress: ClientAddressOf): RequestRules {
  const clientOf = (socketAddress: string | undefined, forwardedFor: string | undefined): ClientOf => {
    const address = clientAddress(socketAddress, forwardedFor)
    return { address, bucketKey: bucketKeyOf(address) }
  }
  return function requestFacts(req) {
    const raw = req as WithFacts
    const known = raw[FACTS]
    if (known !== undefined) return known
    const headers = readHotHeaders(req.rawHeaders)
    const socket = req.socket as WithPeer | null
    let client: ClientOf
    if (headers.forwardedFor === undefined && socket) {
      client = socket[PEER] ??= clientOf(socket.remoteAddress, undefined)
    } else client = clientOf(socket?.remoteAddress, headers.forwardedFor)
    const facts: RequestFacts = {
      refusal: refusalOf(req, headers),
      headers,
      requestId: requestIdFrom(headers.requestId),
      address: client.address,
      bucketKey: client.bucketKey,
      startedAt: performance.now(),
    }
    raw[FACTS] = facts
    return facts
  }
}

/**
 * Lets go of the facts kept on a request that nothing will judge again: a stream's request lives as
 * long as its response, and its facts, with the headers they read, would live with it. Only for a
 * request whose answer no longer looks at its facts (the fast path's streams, once handed over).
 */
export function forgetRequestFacts(req: IncomingMessage): void {
  const raw = req as WithFacts
  // Set, not deleted: deleting a property would turn the request object into a slower dictionary.
  if (raw[FACTS] !== undefined) raw[FACTS] = undefined
}

/** The first rule the request breaks, or null. */
function refusalOf(req: IncomingMessage, headers: HotHeaders): Refusal | null {
  if (req.httpVersionMajor !== 1) return VERSION
  if (headers.hostLines > 1) return HOSTS
  if (headers.hostLines === 0 && req.httpVersion === '1.1') return NO_HOST
  if (headers.authorizationLines > 1) return AUTHORIZATIONS
  if (req.url?.includes('#')) return FRAGMENT
  return null
}

/** The framework path's answer to a request that breaks a rule; false when it breaks none. */
export function answerRefusal(
  policy: { baseUrl: string; cors: CorsPolicy; rules: RequestRules },
  request: FastifyRequest,
  reply: FastifyReply,
): boolean {
  const { refusal } = policy.rules(request.raw)
  if (refusal === null) return false
  addCorsHeaders(policy.cors, request, reply)
  sendProblem(reply, policy.baseUrl, refusal.problem, refusal.options)
  return true
}
