// The request id (X-Request-Id): a client's value echoed when it is a sane token, otherwise a fresh
// UUID. Fastify's genReqId and the fast path both take it from here.
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { EVERY_RESPONSE_HEADERS } from './problems.ts'

/** A client's X-Request-Id is echoed only when it is a sane token; otherwise we make our own. */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/

export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id']
  return requestIdFrom(typeof given === 'string' ? given : undefined)
}

/** The request id for this X-Request-Id value (undefined: none was sent). */
export function requestIdFrom(given: string | undefined): string {
  return given !== undefined && REQUEST_ID_PATTERN.test(given) ? given : randomUUID()
}

/**
 * The headers every answer carries, set before anything else: by app.ts's first hook and the
 * framework-error answers on the framework path, and into every prebuilt head of the fast path. A
 * header that every response must carry belongs here, and both paths then send it.
 */
export function edgeHeaders(requestId: string): [string, string][] {
  return [['x-request-id', requestId], ...Object.entries(EVERY_RESPONSE_HEADERS)]
}

/** Sets edgeHeaders on a reply. */
export function setEdgeHeaders(
  reply: { header(name: string, value: string): unknown },
  requestId: string,
): void {
  for (const [name, value] of edgeHeaders(requestId)) reply.header(name, value)
}
