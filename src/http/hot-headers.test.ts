import assert from 'node:assert/strict'
import { IncomingMessage } from 'node:http'
import { Socket } from 'node:net'
import { describe, test } from 'node:test'
import { readHotHeaders } from './hot-headers.ts'

/** What Node's own req.headers holds for these raw lines. */
function nodeHeaders(raw: string[]): Record<string, unknown> {
  const req = new IncomingMessage(new Socket())
  req.rawHeaders = raw
  ;(req as unknown as Record<symbol, number>)[
    Object.getOwnPropertySymbols(req).find((s) => s.description === 'kHeadersCount')!
  ] = raw.length
  return req.headers
}

describe('readHotHeaders', () => {
  test('reads each wanted header as req.headers would, duplicates included', () => {
    const raw = [
      'Host',
      'x',
      'AUTHORIZATION',
      'Bearer a',
      'authorization',
      'Bearer b',
      'X-Forwarded-For',
      '1.1.1.1',
      'x-forwarded-for',
      '2.2.2.2, 3.3.3.3',
      'Accept-Encoding',
      'gzip',
      'accept-encoding',
      'br',
      'If-None-Match',
      '"a"',
      'If-None-Match',
      '"b"',
      'Origin',
      'https://a.example',
      'X-Request-Id',
      'r1',
      'Last-Event-ID',
      'e-1',
      'X-Other',
      'y',
    ]
    const node = nodeHeaders(raw)
    const hot = readHotHeaders(raw)
    assert.equal(hot.authorization, node.authorization)
    assert.equal(hot.forwardedFor, node['x-forwarded-for'])
    assert.equal(hot.acceptEncoding, node['accept-encoding'])
    assert.equal(hot.ifNoneMatch, node['if-none-match'])
    assert.equal(hot.origin, node.origin)
    assert.equal(hot.requestId, node['x-request-id'])
    assert.equal(hot.lastEventId, node['last-event-id'])
    assert.equal(hot.authorization, 'Bearer a')
  })

  test('leaves absent headers undefined', () => {
    const { hostLines, authorizationLines, ...values } = readHotHeaders(['Host', 'x'])
    assert.deepEqual(Object.values(values), Array(7).fill(undefined))
    assert.deepEqual([hostLines, authorizationLines], [1, 0])
  })

  test('counts the Host and Authorization lines, whatever their case', () => {
    const h = readHotHeaders(['Host', 'a', 'HOST', 'b', 'Authorization', 'Bearer x', 'authorization', ''])
    assert.deepEqual([h.hostLines, h.authorizationLines], [2, 2])
    assert.deepEqual([readHotHeaders([]).hostLines, readHotHeaders([]).authorizationLines], [0, 0])
  })
})
