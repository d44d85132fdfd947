// Tests of the reconnect delay: exponential growth, the cap, and the jitter range.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { fullJitterDelay } from './backoff.ts'

describe('fullJitterDelay', () => {
  it('grows the ceiling exponentially up to the cap', () => {
    const top = () => 0.999999
    assert.equal(fullJitterDelay(0, 500, 30_000, top), 499)
    assert.equal(fullJitterDelay(3, 500, 30_000, top), 3_999)
    assert.equal(fullJitterDelay(10, 500, 30_000, top), 29_999)
    assert.equal(fullJitterDelay(1000, 500, 30_000, top), 29_999)
    assert.equal(
      fullJitterDelay(5, 500, 30_000, () => 0),
      0,
    )
  })
})
