// How a request appears in the log: Fastify's own fields, with anything shaped like an API key in
// the URL masked. Keys belong in the Authorization header, but a client that pastes one into a
// query string must not have it written to the log (decisions §7).
import type { FastifyRequest } from 'fastify'

const KEY_IN_TEXT = /cs_[A-Za-z0-9_-]{20,}/g

export function maskKeys(text: string): string {
  return text.replace(KEY_IN_TEXT, 'cs_[redacted]')
}

export function serializeRequest(request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: maskKeys(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }
}
