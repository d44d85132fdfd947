// What was wrong with bytes Node's HTTP parser refused, in words a client can act on. A request
// line that is well formed but names a method the parser does not know is 501 (decisions §4); bytes
// that are no request line at all — a TLS handshake on the plain port, binary junk, garbage
// pipelined after a good request — are the client's fault, 400, never a 5xx.
import type { ProblemName } from './problems.ts'

export type ParserFault = { name: ProblemName; detail?: string }

const NOT_A_REQUEST =
  'The bytes received are not an HTTP/1.1 request line (a TLS handshake sent to the plain-HTTP port, or binary data).'
const REQUEST_LINE =
  'The request line is malformed: a method, a target without spaces and HTTP/1.1, separated by single spaces and ended by CRLF.'
const TARGET = 'The request target is malformed: it must be an origin-form path such as /v1/health.'
/** Also the request rules' answer to a version the parser takes (request-rules.ts). */
export const UNSUPPORTED_VERSION =
  'The HTTP version is not one this server speaks: send HTTP/1.1 (or HTTP/1.0).'
const HEADER =
  'A header line is malformed: each is a token name, a colon and a value without control characters, ended by CRLF.'
const LINE_ENDING =
  'The request line ends in a bare LF: end it, and each header line, with CRLF (RFC 9112 §2.2).'
const FRAMING =
  'The message framing is malformed: Content-Length or Transfer-Encoding (chunked) is invalid or contradictory.'

/** Node's parser error codes by what they say is wrong. */
const DETAILS: Record<string, string> = {
  HPE_INVALID_CONSTANT: REQUEST_LINE,
  HPE_INVALID_URL: TARGET,
  HPE_INVALID_VERSION: UNSUPPORTED_VERSION,
  HPE_INVALID_HEADER_TOKEN: HEADER,
  HPE_LF_EXPECTED: HEADER,
  HPE_CR_EXPECTED: HEADER,
  HPE_INVALID_CONTENT_LENGTH: FRAMING,
  HPE_UNEXPECTED_CONTENT_LENGTH: FRAMING,
  HPE_INVALID_TRANSFER_ENCODING: FRAMING,
  HPE_INVALID_CHUNK_SIZE: FRAMING,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: FRAMING,
  HPE_INVALID_EOF_STATE: FRAMING,
}

/** A method token, one target, an HTTP version: the shape of a request line (RFC 9112 §3). */
const REQUEST_LINE_SHAPE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ [\x21-\x7e]+ HTTP\/\d\.\d\r?$/

/**
 * The answer to a parser error: `raw` is the packet being parsed and `at` where the parser stopped
 * in it (Node's `rawPacket` and `bytesParsed`).
 */
export function parserFault(code: string | undefined, raw: unknown, at: unknown): ParserFault {
  if (code === 'HPE_HEADER_OVERFLOW') return { name: 'request-header-fields-too-large' }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { name: 'request-timeout' }
  if (code === 'HPE_INVALID_METHOD')
    return isRequestLine(failingLine(raw, at))
      ? { name: 'not-implemented' }
      : { name: 'bad-request', detail: NOT_A_REQUEST }
  // the parser names the version when `HTTP/1.1` is followed by LF alone: the version is fine
  if (code === 'HPE_INVALID_VERSION' && /^\S+ \S+ HTTP\/1\.[01]$/.test(failingLine(raw, at) ?? ''))
    return { name: 'bad-request', detail: LINE_ENDING }
  return { name: 'bad-request', ...(DETAILS[code ?? ''] ? { detail: DETAILS[code ?? ''] } : {}) }
}

/**
 * The method and target of the request the parser failed in, when its first line is shaped like a
 * request line (an unknown method, a bad header below a good line); null for bytes that are none.
 */
export function failedRequest(raw: unknown, at: unknown): { method: string; target: string } | null {
  const line = failingLine(raw, at)
  if (line === null || !isRequestLine(line)) return null
  const [method = '', target = ''] = line.split(' ')
  return { method, target }
}

/** The first line of the request the parser failed in: after the last complete head before `at`. */
function failingLine(raw: unknown, at: unknown): string | null {
  if (!Buffer.isBuffer(raw)) return null
  const stop = typeof at === 'number' && at >= 0 ? Math.min(at, raw.length) : 0
  const headEnd = raw.lastIndexOf('\r\n\r\n', stop)
  const start = headEnd === -1 ? 0 : headEnd + 4
  const end = raw.indexOf('\n', start)
  return end === -1 ? null : raw.subarray(start, end).toString('latin1')
}

const isRequestLine = (line: string | null): boolean => line !== null && REQUEST_LINE_SHAPE.test(line)

/**
 * The X-Forwarded-For lines of the request the parser failed in (joined by commas, as Node joins
 * them), read from the bytes it got: the rate limiter counts such a request by its client too.
 */
export function forwardedForIn(raw: unknown, at: unknown): string | undefined {
  const values = headerLinesIn(raw, at, 'x-forwarded-for')
  return values.length === 0 ? undefined : values.join(', ')
}

/**
 * The Origin of the request the parser failed in, when its bytes name exactly one: its answer carries
 * the CORS headers every answer carries, so a browser can read why it was refused.
 */
export function originIn(raw: unknown, at: unknown): string | undefined {
  const values = headerLinesIn(raw, at, 'origin')
  return values.length === 1 ? values[0] : undefined
}

/** The values of the header lines named `name` (lower case) in the head the parser failed in. */
function headerLinesIn(raw: unknown, at: unknown, name: string): string[] {
  if (!Buffer.isBuffer(raw)) return []
  const stop = typeof at === 'number' && at >= 0 ? Math.min(at, raw.length) : 0
  const headEnd = raw.lastIndexOf('\r\n\r\n', stop)
  const start = headEnd === -1 ? 0 : headEnd + 4
  const end = raw.indexOf('\r\n\r\n', start)
  const prefix = `${name}:`
  return raw
    .subarray(start, end === -1 ? raw.length : end)
    .toString('latin1')
    .split('\r\n')
    .slice(1)
    .filter((line) => line.slice(0, prefix.length).toLowerCase() === prefix)
    .map((line) => line.slice(prefix.length).trim())
}
