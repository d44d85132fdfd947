// The request-level rules every request meets before anything else looks at it, whatever path it
// takes: app.ts's first hook, the framework-error answers and the fast path all ask `requestFault`,
// and a request that breaks one is answered 400 `bad-request` by the framework path (the fast path
// hands it over). RFC 9112 §3.2: an HTTP/1.1 request without Host, or any request with more than
// one Host line, is a 400. Authorization is a singleton field (RFC 9110 §11.6.2): two lines are an
// ambiguous credential, refused rather than resolved by picking one. A fragment is not part of a
// request target (RFC 9112 §3.2, RFC 9110 §4.2.5): a `#` in one is refused, never half-stripped.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { addCorsHeaders, type CorsPolicy } from './cors.ts'
import { type HotHeaders, readHotHeaders } from './hot-headers.ts'
import { sendProblem } from './problems.ts'

export type RequestFault = {
  detail: string
  /** a request whose framing cannot be trusted ends its connection */
  close: boolean
}

const NO_HOST: RequestFault = { detail: 'An HTTP/1.1 request must carry a Host header.', close: true }
const HOSTS: RequestFault = {
  detail: 'A request must carry exactly one Host header line; this one carries several.',
  close: true,
}
const AUTHORIZATIONS: RequestFault = {
  detail: 'A request may carry one Authorization header line; this one carries several.',
  close: false,
}
const FRAGMENT: RequestFault = {
  detail: 'The request target contains "#": a fragment is not sent to the server; remove it.',
  close: false,
}

/** The first rule the request breaks, or null. `lines` counts its Host and Authorization lines. */
export function requestFault(
  httpVersion: string,
  url: string,
  lines: Pick<HotHeaders, 'hostLines' | 'authorizationLines'>,
): RequestFault | null {
  if (lines.hostLines > 1) return HOSTS
  if (lines.hostLines === 0 && httpVersion === '1.1') return NO_HOST
  if (lines.authorizationLines > 1) return AUTHORIZATIONS
  if (url.includes('#')) return FRAGMENT
  return null
}

/** The framework path's answer: 400 `bad-request` naming the broken rule; false when none is broken. */
export function answerRequestFault(
  policy: { baseUrl: string; cors: CorsPolicy },
  request: FastifyRequest,
  reply: FastifyReply,
): boolean {
  const raw = request.raw
  const fault = requestFault(raw.httpVersion, raw.url ?? '', readHotHeaders(raw.rawHeaders))
  if (fault === null) return false
  addCorsHeaders(policy.cors, request, reply)
  sendProblem(reply, policy.baseUrl, 'bad-request', {
    detail: fault.detail,
    ...(fault.close ? { headers: { connection: 'close' } } : {}),
  })
  return true
}
