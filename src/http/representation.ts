// A response body serialized once and sent many times: its bytes, a strong ETag computed once, and
// gzip/br variants compressed on first demand and then kept, so a hot contest costs no JSON
// serialization, hashing or compression per request. Also answers If-None-Match with 304.
import { hash } from 'node:crypto'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import type { FastifyReply, FastifyRequest } from 'fastify'

export type Encoding = 'br' | 'gzip'

export type Representation = {
  readonly body: Buffer
  readonly contentType: string
  /** strong validator of the identity bytes, quoted */
  readonly etag: string
  /** bytes held, variants included, for cache accounting */
  readonly size: number
  variant(encoding: Encoding): Buffer
}

/**
 * Cache-Control of every contest, active-contest and history answer, on either request path:
 * authenticated data may be kept by the client but must be revalidated (ETag) before reuse.
 */
export const CONTEST_CACHE_CONTROL = 'private, no-cache'

/** Bodies below this are sent as they are (decisions §4: compress when over 1 KiB). */
export const COMPRESS_THRESHOLD = 1024

/** Brotli's default 11 costs far more CPU than it saves bytes on small JSON (Cloudflare's figures). */
export const BROTLI_QUALITY = 4

export function createRepresentation(json: string | Buffer, contentType: string): Representation {
  const body = typeof json === 'string' ? Buffer.from(json) : json
  const etag = `"${hash('sha256', body, 'hex').slice(0, 32)}"`
  const variants: Partial<Record<Encoding, Buffer>> = {}
  let size = body.length
  return {
    body,
    contentType,
    etag,
    get size() {
      return size
    },
    variant(encoding) {
      let bytes = variants[encoding]
      if (!bytes) {
        bytes =
          encoding === 'br'
            ? brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } })
            : gzipSync(body, { level: 6 })
        variants[encoding] = bytes
        size += bytes.length
      }
      return bytes
    },
  }
}

/** What a response's headers are set through: a FastifyReply, or the fast path's head builder. */
export type HeaderSink = {
  header(name: string, value: string): unknown
  getHeader(name: string): unknown
}

/** The answer to one GET of a representation: its status and the bytes to send (none for 304). */
export type RepresentationAnswer = { status: 200 | 304; body: Buffer | null }

/**
 * Sets every header of a representation's answer on `sink` and says what to send: 304 when
 * If-None-Match matches, else the best encoding the client accepts. A compressed variant is a
 * different representation, so its ETag carries a suffix (`"…-br"`; ifNoneMatchHits). The framework path (sendRepresentation) and
 * the fast path both build their headers here, so they cannot drift.
 */
export function representationHead(
  sink: HeaderSink,
  rep: Representation,
  encoding: Encoding | null,
  notModified: boolean,
  cacheControl: string,
): RepresentationAnswer {
  sink.header('cache-control', cacheControl)
  sink.header('vary', appendVary(sink.getHeader('vary'), 'Accept-Encoding'))
  sink.header('etag', variantEtag(rep.etag, encoding))
  if (notModified) return { status: 304, body: null }
  sink.header('content-type', rep.contentType)
  if (!encoding) return { status: 200, body: rep.body }
  // @fastify/compress leaves a response alone once Content-Encoding is set.
  sink.header('content-encoding', encoding)
  return { status: 200, body: rep.variant(encoding) }
}

/** The encoding a representation is sent in for this Accept-Encoding (none at or below 1 KiB). */
export function encodingFor(
  rep: Representation,
  acceptEncoding: string | undefined,
  choose: (header: string | undefined) => Encoding | null = chooseEncoding,
): Encoding | null {
  return rep.body.length > COMPRESS_THRESHOLD ? choose(acceptEncoding) : null
}

/** Sends a representation through Fastify (see representationHead). */
export function sendRepresentation(
  request: FastifyRequest,
  reply: FastifyReply,
  rep: Representation,
  cacheControl: string,
): FastifyReply {
  const { headers } = request
  const encoding = encodingFor(rep, headers['accept-encoding'])
  const answer = representationHead(
    reply,
    rep,
    encoding,
    ifNoneMatchHits(headers['if-none-match'], rep.etag, encoding),
    cacheControl,
  )
  return answer.body === null ? reply.code(304).send() : reply.send(answer.body)
}

/** br or gzip by the client's q-values (br on a tie), or null for identity. */
export function chooseEncoding(header: string | undefined): Encoding | null {
  if (!header) return null
  const q: Record<string, number> = {}
  for (const part of header.split(',')) {
    const [token = '', ...params] = part.trim().toLowerCase().split(';')
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    const value = qParam === undefined ? 1 : Number(qParam.slice(2))
    q[token.trim()] = Number.isFinite(value) ? value : 0
  }
  const weight = (enc: Encoding) => q[enc] ?? (enc === 'gzip' ? q['x-gzip'] : undefined) ?? q['*'] ?? 0
  const br = weight('br')
  const gzip = weight('gzip')
  if (br <= 0 && gzip <= 0) return null
  return br >= gzip ? 'br' : 'gzip'
}

/**
 * If-None-Match against the variant this request would be sent (RFC 9110 §13.1.2, weak comparison):
 * `*`, or a listed entity-tag — quoted, `W/` or not — equal to that variant's ETag. Each encoding is
 * its own representation with its own tag (`"…-br"`), so a gzip copy does not validate the identity
 * one; a list holding both, as a cache keeping both sends, still matches. A tag without its quotes
 * is no entity-tag and matches nothing.
 */
export function ifNoneMatchHits(
  header: string | undefined,
  etag: string,
  encoding: Encoding | null,
): boolean {
  if (!header) return false
  if (header.trim() === '*') return true
  const wanted = variantEtag(etag, encoding)
  for (const raw of header.split(',')) {
    const tag = raw.trim()
    if (tag === wanted || (tag.startsWith('W/') && tag.slice(2) === wanted)) return true
  }
  return false
}

/** The ETag of a representation sent in `encoding`: the identity tag, suffixed for a compressed one. */
function variantEtag(etag: string, encoding: Encoding | null): string {
  return encoding ? `${etag.slice(0, -1)}-${encoding}"` : etag
}

function appendVary(current: unknown, field: string): string {
  const text = Array.isArray(current) ? current.join(', ') : typeof current === 'string' ? current : ''
  if (text.split(',').some((f) => f.trim().toLowerCase() === field.toLowerCase())) return text
  return text ? `${text}, ${field}` : field
}
