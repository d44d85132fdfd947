// The open-streams registry: the per-address count goes up on admission and down on release, exactly
// once per stream, and a key's streams are ended together.
import assert from 'node:assert/strict'
import type { ServerResponse } from 'node:http'
import { test } from 'node:test'
import { createOpenStreams } from './open-streams.ts'

function response(): ServerResponse & { ended: boolean } {
  const res = {
    writableEnded: false,
    ended: false,
    end() {
      res.writableEnded = true
      res.ended = true
    },
  }
  return res as unknown as ServerResponse & { ended: boolean }
}

test('open streams › the cap refuses a stream over the maximum until one of the address is released', () => {
  const streams = createOpenStreams(2)
  const [a, b, c] = [response(), response(), response()]
  assert.equal(streams.admit(7, 'k1', a), true)
  assert.equal(streams.admit(7, 'k1', b), true)
  assert.equal(streams.admit(7, 'k1', c), false)
  assert.equal(streams.admit(8, 'k1', c), true, 'another address has its own count')
  streams.release(7, 'k1', a)
  assert.equal(streams.countFor(7), 1)
  assert.equal(streams.admit(7, 'k1', a), true)
})

test('open streams › a second release of the same stream, or of one never admitted, counts nothing down', () => {
  const streams = createOpenStreams(5)
  const [a, b, stranger] = [response(), response(), response()]
  streams.admit('2001:db8::/64', 'k1', a)
  streams.admit('2001:db8::/64', 'k1', b)
  streams.release('2001:db8::/64', 'k1', a)
  streams.release('2001:db8::/64', 'k1', a)
  streams.release('2001:db8::/64', 'k1', stranger)
  assert.equal(streams.countFor('2001:db8::/64'), 1)
  assert.equal(streams.hasKey('k1'), true)
  streams.release('2001:db8::/64', 'k1', b)
  assert.equal(streams.countFor('2001:db8::/64'), 0)
  assert.equal(streams.hasKey('k1'), false)
})

test('open streams › ending a key ends its open streams and no other key’s', () => {
  const streams = createOpenStreams(5)
  const [a, b, other] = [response(), response(), response()]
  streams.admit(1, 'k1', a)
  streams.admit(2, 'k1', b)
  streams.admit(1, 'k2', other)
  assert.equal(streams.endForKey('k1'), 2)
  assert.deepEqual([a.ended, b.ended, other.ended], [true, true, false])
  assert.equal(streams.endForKey('k3'), 0)
})
