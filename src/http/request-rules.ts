// The request-level rules, in one place for both request paths (decisions §4): whether the request
// may be served at all (a Host header on HTTP/1.1), the headers the API reads, the request id, and
// the client address that the rate limiter, the stream cap and the access log all use. The fast path
// calls `requestFacts` first; the framework path calls it from genReqId and its first hook. The
// answer is kept on the raw request, so a request the fast path hands over is never judged twice and
// both paths see the very same facts.
import type { IncomingMessage } from 'node:http'
import { performance } from 'node:perf_hooks'
import { bucketKeyOf } from '../domain/client-address.ts'
import type { ClientAddressOf } from './client-address.ts'
import { type HotHeaders, readHotHeaders } from './hot-headers.ts'
import type { ProblemName, ProblemOptions } from './problems.ts'
import { requestIdFrom } from './request-id.ts'

/** Why a request is refused before anything else looks at it: the problem it is answered with. */
export type Refusal = { problem: ProblemName; options: ProblemOptions }

export type RequestFacts = {
  /** null: the request may go on; else the answer it gets, before the rate limiter */
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

const NO_HOST: Refusal = {
  problem: 'bad-request',
  options: { detail: 'An HTTP/1.1 request must carry a Host header.', headers: { connection: 'close' } },
}

export type RequestRules = (req: IncomingMessage) => RequestFacts

export function createRequestRules(clientAddress: ClientAddressOf): RequestRules {
  return function requestFacts(req) {
    const raw = req as WithFacts
    const known = raw[FACTS]
    if (known !== undefined) return known
    const headers = readHotHeaders(req.rawHeaders)
    const address = clientAddress(req.socket?.remoteAddress, headers.forwardedFor)
    const facts: RequestFacts = {
      refusal: refusalOf(req, headers),
      headers,
      requestId: requestIdFrom(headers.requestId),
      address,
      bucketKey: bucketKeyOf(address),
      startedAt: performance.now(),
    }
    raw[FACTS] = facts
    return facts
  }
}

function refusalOf(req: IncomingMessage, headers: HotHeaders): Refusal | null {
  if (req.httpVersion === '1.1' && headers.host === undefined) return NO_HOST
  return null
}
