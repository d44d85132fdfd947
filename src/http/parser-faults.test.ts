import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parserFault } from './parser-faults.ts'

const bytes = (s: string) => Buffer.from(s, 'latin1')

test('an unknown method on a well-formed request line is 501, also pipelined after a good request', () => {
  assert.deepEqual(parserFault('HPE_INVALID_METHOD', bytes('FROBNICATE / HTTP/1.1\r\nHost: x\r\n\r\n'), 1), {
    name: 'not-implemented',
  })
  const pipelined = bytes('GET /ok HTTP/1.1\r\nHost: x\r\n\r\nFROB /x HTTP/1.1\r\nHost: x\r\n\r\n')
  assert.equal(parserFault('HPE_INVALID_METHOD', pipelined, 30).name, 'not-implemented')
})

test('bytes that are no request line are 400 saying so: a TLS hello, junk, junk after a good request', () => {
  const cases: [Buffer, number][] = [
    [Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]), 0],
    [bytes('hello\r\n\r\n'), 0],
    [bytes('GET\r\n\r\n'), 3],
    [bytes('GET /ok HTTP/1.1\r\nHost: x\r\n\r\n\x16\x03\x01junk\r\n\r\n'), 29],
    [bytes('FROBNICATE'), 1],
  ]
  for (const [raw, at] of cases) {
    const fault = parserFault('HPE_INVALID_METHOD', raw, at)
    assert.equal(fault.name, 'bad-request', raw.toString('latin1'))
    assert.match(fault.detail!, /not an HTTP\/1\.1 request line/)
  }
})

test('each kind of parser fault says what was wrong: the line, the target, the version, a header, the framing', () => {
  assert.match(parserFault('HPE_INVALID_CONSTANT', null, 0).detail!, /request line is malformed/)
  assert.match(parserFault('HPE_INVALID_URL', null, 0).detail!, /target/)
  assert.match(parserFault('HPE_INVALID_VERSION', null, 0).detail!, /HTTP version/)
  // `HTTP/1.1` then a bare LF: Node's parser calls it the version; the fault is the line's end
  const bareLf = Buffer.from('GET /v1/health HTTP/1.1\nHost: a\n\n')
  assert.match(parserFault('HPE_INVALID_VERSION', bareLf, 23).detail!, /bare LF/)
  const http2 = Buffer.from('GET /v1/health HTTP/2.0\r\nHost: a\r\n\r\n')
  assert.match(parserFault('HPE_INVALID_VERSION', http2, 23).detail!, /HTTP version/)
  assert.match(parserFault('HPE_INVALID_HEADER_TOKEN', null, 0).detail!, /header line/)
  assert.match(parserFault('HPE_INVALID_CHUNK_SIZE', null, 0).detail!, /framing/)
  assert.match(parserFault('HPE_INVALID_CONTENT_LENGTH', null, 0).detail!, /framing/)
  assert.equal(parserFault('HPE_HEADER_OVERFLOW', null, 0).name, 'request-header-fields-too-large')
  assert.equal(parserFault('HPE_SOMETHING_NEW', null, 0).name, 'bad-request')
})
