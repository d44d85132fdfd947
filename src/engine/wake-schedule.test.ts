import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MINUTE_MS } from '../domain/contest.ts'
import { nextBoundaryAfter, wakeDelayMs } from './wake-schedule.ts'

const Q = Date.parse('2026-11-22T19:00:00Z')
const onQuarter = { opensAt: Q, expiresAt: Q + 15 * MINUTE_MS }

describe('nextBoundaryAfter', () => {
  it('is the clock’s next whole minute, strictly after the instant', () => {
    assert.equal(nextBoundaryAfter(Q + 100, []), Q + MINUTE_MS)
    assert.equal(nextBoundaryAfter(Q + MINUTE_MS, []), Q + 2 * MINUTE_MS)
    assert.equal(nextBoundaryAfter(Q + 100, [onQuarter]), Q + MINUTE_MS)
  })

  it('counts a window’s minutes from its own open, and stops at its close', () => {
    const moved = { opensAt: Q + 20_000, expiresAt: Q + 10 * MINUTE_MS + 30_000 }
    assert.equal(nextBoundaryAfter(Q + 100, [moved]), Q + 20_000)
    assert.equal(nextBoundaryAfter(Q + 30_000, [moved]), Q + MINUTE_MS)
    assert.equal(nextBoundaryAfter(Q + MINUTE_MS, [moved]), Q + MINUTE_MS + 20_000)
    assert.equal(nextBoundaryAfter(Q + 10 * MINUTE_MS + 20_000, [moved]), Q + 10 * MINUTE_MS + 30_000)
    // a closed window says nothing more
    assert.equal(nextBoundaryAfter(Q + 10 * MINUTE_MS + 30_000, [moved]), Q + 11 * MINUTE_MS)
  })
})

describe('wakeDelayMs', () => {
  const base = { windows: [onQuarter], speed: 1, tickMs: 250 }

  it('is the fixed tick far from a boundary and the rest of the way near one', () => {
    assert.equal(wakeDelayMs({ ...base, tickBegan: Q + 1_000, now: Q + 1_010 }), 250)
    assert.equal(wakeDelayMs({ ...base, tickBegan: Q + MINUTE_MS - 200, now: Q + MINUTE_MS - 120 }), 120)
  })

  it('wakes at once for a boundary that passed while the tick ran', () => {
    assert.equal(wakeDelayMs({ ...base, tickBegan: Q + MINUTE_MS - 50, now: Q + MINUTE_MS + 30 }), 0)
  })

  it('divides by the clock’s speed, rounding up so the boundary has come when it wakes', () => {
    const fast = { ...base, speed: 60, tickMs: 3_600_000 }
    assert.equal(wakeDelayMs({ ...fast, tickBegan: Q + 100, now: Q + 100 }), 999)
    assert.equal(wakeDelayMs({ ...fast, tickBegan: Q + 120, now: Q + 120 }), 998)
  })
})
