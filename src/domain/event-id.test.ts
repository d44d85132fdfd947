import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { formatEventId, generateEpoch, parseEventId } from './event-id.ts'

describe('event ids', () => {
  it('round-trip through format and parse', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[0-9a-z]{8}$/),
        fc.integer({ min: 1, max: 999_999_999_999 }),
        (epoch, seq) => {
          assert.deepEqual(parseEventId(formatEventId(epoch, seq)), { epoch, seq })
        },
      ),
    )
  })

  it('increase strictly as strings when seq increases, so ids order like the log', () => {
    fc.assert(
      // 12 digits: 10^12 events, three centuries at 100 events a second.
      fc.property(fc.integer({ min: 1, max: 999_999_998_000 }), fc.integer({ min: 1, max: 1000 }), (a, d) => {
        assert.ok(formatEventId('abcd1234', a) < formatEventId('abcd1234', a + d))
      }),
    )
  })

  it('never contain characters that would break an SSE frame', () => {
    assert.match(formatEventId('abcd1234', 42), /^[0-9a-z-]+$/)
  })

  it('treat anything malformed as unknown rather than an error', () => {
    for (const raw of [
      null,
      undefined,
      '',
      '-',
      'abc',
      'abcd1234-',
      '-000000000001',
      'ABCD1234-1',
      'abcd1234-1x',
      'abcd1234-1.5',
      'x'.repeat(100),
      'abcd1234-99999999999999999',
      'abcd\n1234-1',
      '💥-1',
    ]) {
      assert.equal(parseEventId(raw), null, String(raw))
    }
  })
})

describe('generateEpoch', () => {
  it('makes 8 characters of [0-9a-z] that parse as the epoch of an event id', () => {
    let n = 0
    const epoch = generateEpoch((max) => n++ % max)
    assert.equal(epoch, '01234567')
    assert.deepEqual(parseEventId(formatEventId(epoch, 1)), { epoch, seq: 1 })
  })
})
