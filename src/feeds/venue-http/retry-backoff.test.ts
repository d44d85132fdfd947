// Tests of the backoff schedule: doubling ceilings, the cap, and jitter inside them.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { retryDelayMs } from './retry-backoff.ts'

const opts = { baseMs: 250, capMs: 8_000 }

describe('retryDelayMs', () => {
  it('doubles the ceiling each retry up to the cap', () => {
    const top = () => 0.999_999
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 6, 10].map((r) => retryDelayMs(r, opts, top)),
      [249, 499, 999, 1999, 3999, 7999, 7999, 7999],
    )
  })

  it('draws anywhere from zero to the ceiling (full jitter)', () => {
    assert.equal(
      retryDelayMs(3, opts, () => 0),
      0,
    )
    assert.equal(
      retryDelayMs(3, opts, () => 0.5),
      1000,
    )
    for (let i = 0; i < 200; i++) {
      const d = retryDelayMs(2, opts, Math.random)
      assert.ok(d >= 0 && d < 1000, String(d))
    }
  })
})
