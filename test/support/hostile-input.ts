// Hostile input for the property-based suite: fast-check arbitraries of requests no client should
// send (random paths and query strings, broken percent-encodings, unicode, 10 KB+ values, repeated
// parameters, odd methods, malformed Authorization and Last-Event-ID) and raw bytes no HTTP parser
// should accept (CL+TE, a header without a colon, NUL, a 100 KB header), and the checks every
// answer must pass: never ≥ 500 (501 for an unknown method aside), nosniff, every error a well-formed problem whose status is the HTTP status.
import assert from 'node:assert/strict'
import { request } from 'node:http'
import { connect } from 'node:net'
import fc from 'fast-check'

export type HostileRequest = {
  method: string
  target: string
  headers: Record<string, string>
}

export type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: string }

const METHODS = [
  'GET',
  'GET',
  'GET',
  'HEAD',
  'OPTIONS',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'QUERY',
  'TRACE',
  'PROPFIND',
  'SEARCH',
]
const KNOWN = [
  '/v1/contests',
  '/v1/contests/active',
  '/v1/stream/contests',
  '/v1/health',
  '/v1/openapi.json',
  '/problems/not-found',
  '/v1/contests/KXTEST15M-X',
]
const PARAM_NAMES = ['series', 'limit', 'since', 'before', 'last_event_id', 'x', '', 'series[]', 'LIMIT']

/** Text with the characters that break things: escapes (valid and not), unicode, controls, separators. */
const nasty = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '%ZZ',
    '%',
    '%2',
    '%E0%A4%A',
    '%00',
    '%C0%AF',
    '%2F',
    '%252F',
    '..%2F..%2F',
    '%FF%FE',
    '1e1',
    '+5',
    '-1',
    '0x10',
    '101',
    '2026-11-22T14:15:00Z',
    '2026-11-22T14:15:00+01:00',
    '2026-13-45T99:99:99Z',
    '23:59:60',
    'KXBTC15M',
    '&&&',
    '==',
    '?',
    '#',
  ),
  fc.integer({ min: 10_240, max: 12_000 }).map((n) => 'a'.repeat(n)),
)

const queryString = fc
  .array(fc.tuple(fc.constantFrom(...PARAM_NAMES), nasty), { maxLength: 6 })
  .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'))

const path = fc.oneof(
  fc.constantFrom(...KNOWN),
  nasty.map((s) => `/v1/contests/${s}`),
  nasty.map((s) => `/${s}`),
  fc.array(nasty, { maxLength: 4 }).map((segs) => `/v1/${segs.join('/')}`),
)

export function hostileRequest(key: string): fc.Arbitrary<HostileRequest> {
  const authorization = fc.oneof(
    fc.constant(`Bearer ${key}`),
    fc.constant(`bearer   ${key}  `),
    fc.constantFrom(
      '',
      'Bearer',
      'Bearer ',
      'Basic dXNlcjpwYXNz',
      `Bearer ${key}x`,
      `Bearer ${key} ${key}`,
      'Bearer cs_',
    ),
    nasty.map((s) => `Bearer ${s}`),
    nasty,
  )
  return fc.record({
    method: fc.constantFrom(...METHODS),
    target: fc
      .tuple(path, fc.option(queryString, { nil: undefined }))
      .map(([p, q]) => (q === undefined ? p : `${p}?${q}`)),
    headers: fc.record(
      {
        authorization,
        'last-event-id': nasty,
        'x-forwarded-for': fc.oneof(fc.ipV4(), fc.ipV6(), nasty),
        origin: fc.constantFrom('https://example.com', 'null', ''),
        'access-control-request-method': fc.constantFrom('GET', 'POST', ''),
        'if-none-match': fc.oneof(fc.constant('*'), nasty),
      },
      { requiredKeys: [] },
    ),
  })
}

/** Bytes of a request that no HTTP/1.1 parser should accept whole. */
export const rawGarbage: fc.Arbitrary<Buffer> = fc.oneof(
  fc
    .constantFrom(
      'GET /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      'POST /v1/contests HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nabc',
      'GET /v1/health HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n',
      'GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Nul: a\u0000b\r\n\r\n',
      'GET /v1/he\u0000alth HTTP/1.1\r\nHost: x\r\n\r\n',
      `GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100 * 1024)}\r\n\r\n`,
      `GET /v1/contests?series=${'b'.repeat(100 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      'GET /v1/health HTTP/9.9\r\nHost: x\r\n\r\n',
      'GET /v1/health\r\n\r\n',
      'GET  HTTP/1.1\r\n\r\n',
      '\r\n\r\n\r\n',
      'GET /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
      'GET /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
      'GET /v1/health HTTP/1.1\r\nHost: x\r\n Folded: header\r\n\r\n',
      'GET /v1/health HTTP/1.1\nHost: x\n\n',
      'QUERY /v1/contests HTTP/1.1\r\nHost: x\r\n\r\n',
    )
    .map((s) => Buffer.from(s, 'latin1')),
  fc.uint8Array({ minLength: 1, maxLength: 2048 }).map((a) => Buffer.from(a)),
  fc
    .tuple(fc.constantFrom('GET', 'POST', 'BREW'), fc.uint8Array({ maxLength: 300 }))
    .map(([m, a]) =>
      Buffer.concat([Buffer.from(`${m} /v1/`), Buffer.from(a), Buffer.from(' HTTP/1.1\r\n\r\n')]),
    ),
)

/** Characters Node's client refuses in a request target are sent percent-encoded (as UTF-8). */
function sendable(target: string): string {
  return target.replace(/[^\u0021-\u007e]/gu, (c) => encodeURIComponent(c))
}

function headerValue(value: string): string {
  return value.replace(/[^\t\u0020-\u007e]/gu, '?')
}

/** Sends one request; a 200 stream is closed as soon as its head arrives. */
export function send(baseUrl: string, req: HostileRequest): Promise<Answer> {
  const u = new URL(baseUrl)
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(req.headers)) headers[k] = headerValue(v)
  return new Promise((resolve, reject) => {
    const r = request(
      {
        host: u.hostname,
        port: u.port,
        method: req.method,
        path: sendable(req.target),
        headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = []
        const answer = () => ({
          status: res.statusCode!,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        })
        if (String(res.headers['content-type']).startsWith('text/event-stream')) {
          resolve(answer())
          res.destroy()
          return
        }
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve(answer()))
        res.on('error', reject)
      },
    )
    r.setTimeout(10_000, () => r.destroy(new Error('no answer within 10 s')))
    r.on('error', reject)
    r.end()
  })
}

/** Writes raw bytes and reads until the server closes: the status line and body of its answer, if any. */
export function sendRaw(baseUrl: string, bytes: Buffer): Promise<Answer | null> {
  const u = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname)
    const chunks: Buffer[] = []
    socket.on('data', (c: Buffer) => chunks.push(c))
    socket.on('error', () => undefined)
    socket.setTimeout(15_000, () => {
      socket.destroy()
      reject(new Error('the server neither answered nor closed within 15 s'))
    })
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1')
      if (text === '') return resolve(null)
      const [head = '', body = ''] = text.split('\r\n\r\n', 2)
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(head)
      if (!m) return reject(new Error(`not an HTTP answer: ${JSON.stringify(text.slice(0, 200))}`))
      const headers: Record<string, string> = {}
      for (const line of head.split('\r\n').slice(1)) {
        const i = line.indexOf(':')
        if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim()
      }
      resolve({ status: Number(m[1]), headers, body })
    })
    socket.on('connect', () => {
      socket.write(bytes)
      // Half-close, so a server waiting for more of a request sees the end of it.
      socket.end()
    })
  })
}

/**
 * The invariants of every answer: below 500 — but for 501 `not-implemented`, the answer to a method
 * token the parser does not know (decisions §4), which says nothing failed — and every error a
 * problem with its own status.
 */
export function checkAnswer(answer: Answer, method: string): void {
  const unknownMethod = answer.status === 501 && answer.body.includes('/problems/not-implemented')
  assert.ok(answer.status < 500 || unknownMethod, `status ${answer.status}: ${answer.body.slice(0, 300)}`)
  assert.equal(answer.headers['x-content-type-options'], 'nosniff', `status ${answer.status} without nosniff`)
  if (answer.status < 400 || method === 'HEAD') return
  assert.match(
    String(answer.headers['content-type']),
    /^application\/problem\+json/,
    `status ${answer.status}`,
  )
  const problem = JSON.parse(answer.body) as Record<string, unknown>
  for (const member of ['type', 'title', 'detail']) assert.equal(typeof problem[member], 'string', member)
  assert.equal(problem.status, answer.status, 'the problem status is the HTTP status')
  assert.match(String(problem.type), /\/problems\/[a-z-]+$/)
}
