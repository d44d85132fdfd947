// The route-level onRequest hook of keyed routes (RFC 6750), run after the app-wide rate limiter: 401 with a Bearer challenge that names
// invalid_token only when a key was actually sent.
import type { FastifyRequest } from 'fastify'
import type { KeyAuth } from './key-auth.ts'
import { ProblemError } from './problems.ts'

export const BEARER_REALM = 'Bearer realm="contest-signals"'

const keyIds = new WeakMap<FastifyRequest, string>()

/** The id of the key a request was admitted with (set by the hook below), e.g. to end its streams on revocation. */
export function keyIdOf(request: FastifyRequest): string | undefined {
  return keyIds.get(request)
}

export function createRequireKey(auth: KeyAuth): (request: FastifyRequest) => Promise<void> {
  return async function requireKey(request) {
    const result = await auth.check(request.headers.authorization)
    if (result.ok) {
      keyIds.set(request, result.keyId)
      return
    }
    if (result.reason === 'missing') {
      throw new ProblemError('unauthorized', {
        detail: 'This endpoint needs an API key: send it as Authorization: Bearer <key>.',
        headers: { 'www-authenticate': BEARER_REALM },
      })
    }
    throw new ProblemError('unauthorized', {
      detail: 'The API key is malformed, unknown or revoked.',
      headers: { 'www-authenticate': `${BEARER_REALM}, error="invalid_token"` },
    })
  }
}
