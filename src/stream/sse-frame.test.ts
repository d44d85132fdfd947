// SSE framing: exact bytes, rejected field values, and a property round trip through a real parser.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import fc from 'fast-check'
import { encodeEventFrame, KEEP_ALIVE_FRAME, RETRY_FRAME, shutdownRetryFrame } from './sse-frame.ts'

type Parsed = { events: EventSourceMessage[]; retries: number[]; comments: string[] }

/** Feeds `bytes` to eventsource-parser in the given chunk sizes, decoding UTF-8 across chunk edges. */
function parse(bytes: Buffer, chunkSizes: readonly number[] = []): Parsed {
  const out: Parsed = { events: [], retries: [], comments: [] }
  const parser = createParser({
    onEvent: (e) => out.events.push(e),
    onRetry: (r) => out.retries.push(r),
    onComment: (c) => out.comments.push(c),
    onError: (err) => assert.fail(err),
  })
  const decoder = new TextDecoder()
  let at = 0
  for (const size of chunkSizes) {
    if (at >= bytes.length) break
    parser.feed(decoder.decode(bytes.subarray(at, at + size), { stream: true }))
    at += size
  }
  parser.feed(decoder.decode(bytes.subarray(at)))
  return out
}

describe('encodeEventFrame', () => {
  test('writes exactly the three lines of the spec and a blank line', () => {
    const frame = encodeEventFrame('contest.opened', 'ab12cd-000000000042', '{"ticker":"X"}')
    assert.equal(
      frame.toString('utf8'),
      'event: contest.opened\nid: ab12cd-000000000042\ndata: {"ticker":"X"}\n\n',
    )
  })

  test('encodes UTF-8', () => {
    const frame = encodeEventFrame('e', '1', '"é€😀"')
    assert.deepEqual(frame, Buffer.from('event: e\nid: 1\ndata: "é€😀"\n\n', 'utf8'))
  })

  for (const [name, bad] of [
    ['LF', 'a\nb'],
    ['CR', 'a\rb'],
    ['CRLF', 'a\r\nb'],
    ['NUL', 'a\0b'],
  ] as const) {
    test(`rejects ${name} in the event name`, () => {
      assert.throws(() => encodeEventFrame(bad, '1', '{}'), TypeError)
    })
    test(`rejects ${name} in the id`, () => {
      assert.throws(() => encodeEventFrame('e', bad, '{}'), TypeError)
    })
  }

  test('splits data on CRLF, CR and LF into several data lines', () => {
    const frame = encodeEventFrame('e', '1', 'a\r\nb\rc\nd')
    assert.equal(frame.toString('utf8'), 'event: e\nid: 1\ndata: a\ndata: b\ndata: c\ndata: d\n\n')
  })

  test('keeps empty lines of data, including a trailing one', () => {
    const frame = encodeEventFrame('e', '1', 'a\n\nb\n')
    assert.equal(frame.toString('utf8'), 'event: e\nid: 1\ndata: a\ndata: \ndata: b\ndata: \n\n')
    assert.deepEqual(parse(frame).events, [{ event: 'e', id: '1', data: 'a\n\nb\n' }])
  })
})

describe('fixed frames', () => {
  test('RETRY_FRAME is retry: 3000 and parses as a 3000 ms retry', () => {
    assert.equal(RETRY_FRAME.toString('utf8'), 'retry: 3000\n\n')
    assert.deepEqual(parse(RETRY_FRAME), { events: [], retries: [3000], comments: [] })
  })

  test('KEEP_ALIVE_FRAME is a comment that dispatches no event', () => {
    assert.equal(KEEP_ALIVE_FRAME.toString('utf8'), ': keep-alive\n\n')
    assert.deepEqual(parse(KEEP_ALIVE_FRAME), { events: [], retries: [], comments: ['keep-alive'] })
  })
})

describe('round trip through eventsource-parser', () => {
  const fieldText = fc.string({ unit: 'binary' }).map((s) => s.replace(/[\r\n\0]/g, ''))
  // Line breaks of every kind, mixed into arbitrary Unicode text.
  const dataText = fc
    .array(fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('\r', '\n', '\r\n', '\r\r', '\n\r')), {
      maxLength: 12,
    })
    .map((parts) => parts.join(''))
  const frameInput = fc.record({
    // An empty event name means "message" to clients, so names are never empty in practice.
    event: fieldText.filter((s) => s.length > 0),
    id: fieldText,
    data: dataText,
  })

  test('every event, id and data survives framing, whatever the chunking', () => {
    fc.assert(
      fc.property(
        fc.array(frameInput, { minLength: 1, maxLength: 5 }),
        fc.array(fc.integer({ min: 1, max: 7 }), { maxLength: 200 }),
        (inputs, chunkSizes) => {
          const bytes = Buffer.concat([
            RETRY_FRAME,
            ...inputs.flatMap((i) => [encodeEventFrame(i.event, i.id, i.data), KEEP_ALIVE_FRAME]),
          ])
          const parsed = parse(bytes, chunkSizes)
          assert.deepEqual(parsed.retries, [3000])
          assert.equal(parsed.comments.length, inputs.length)
          // SSE carries line breaks in data as LF: CR and CRLF come back as LF, nothing else changes.
          const expected = inputs.map((i) => ({
            event: i.event,
            id: i.id,
            data: i.data.replace(/\r\n|\r/g, '\n'),
          }))
          assert.deepEqual(parsed.events, expected)
        },
      ),
      { numRuns: 500 },
    )
  })

  test('JSON documents come back byte-identical', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fieldText.filter((s) => s.length > 0),
        (value, id) => {
          const json = JSON.stringify(value)
          const [event] = parse(encodeEventFrame('signal.emitted', id, json)).events
          assert.equal(event?.data, json)
          assert.deepEqual(JSON.parse(event.data), JSON.parse(json))
        },
      ),
      { numRuns: 300 },
    )
  })
})

describe('shutdownRetryFrame', () => {
  test('draws a reconnect delay from 2 s up to (not including) 10 s', () => {
    assert.equal(shutdownRetryFrame(() => 0).toString(), 'retry: 2000\n\n')
    assert.equal(shutdownRetryFrame(() => 0.5).toString(), 'retry: 6000\n\n')
    assert.equal(shutdownRetryFrame(() => 0.9999999).toString(), 'retry: 9999\n\n')
  })
})
