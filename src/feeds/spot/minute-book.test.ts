// Tests of one source's minute closes: live prices win over candles, and memory stays bounded.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MINUTE_MS } from '../../domain/contest.ts'
import { fullJitterDelay } from './backoff.ts'
import { median } from './median.ts'
import { createMinuteBook } from './minute-book.ts'

const T0 = Date.UTC(2026, 2, 2, 12)

describe('createMinuteBook', () => {
  it('keeps the last live mid of each minute as its close', () => {
    const book = createMinuteBook({ keepMinutes: 10 })
    book.recordLive(T0 + 1_000, 100)
    book.recordLive(T0 + 59_999, 101)
    book.recordLive(T0 + MINUTE_MS, 102)
    assert.equal(book.closeOf(T0), 101)
    assert.equal(book.closeOf(T0 + MINUTE_MS), 102)
    assert.equal(book.closeOf(T0 - MINUTE_MS), undefined)
  })

  it('fills minutes from candles without overwriting live closes', () => {
    const book = createMinuteBook({ keepMinutes: 10 })
    book.recordLive(T0 + 30_000, 200)
    book.loadCandles([
      { minuteStart: T0 - MINUTE_MS, close: 198 },
      { minuteStart: T0, close: 199 },
    ])
    assert.equal(book.closeOf(T0 - MINUTE_MS), 198)
    assert.equal(book.closeOf(T0), 200)
  })

  it('forgets minutes older than keepMinutes behind the newest', () => {
    const book = createMinuteBook({ keepMinutes: 3 })
    book.loadCandles([0, 1, 2, 3, 4].map((i) => ({ minuteStart: T0 + i * MINUTE_MS, close: i + 1 })))
    assert.equal(book.closeOf(T0 + MINUTE_MS), undefined)
    assert.equal(book.closeOf(T0 + 2 * MINUTE_MS), 3)
    book.recordLive(T0 + 5 * MINUTE_MS, 6)
    assert.equal(book.closeOf(T0 + 2 * MINUTE_MS), undefined)
    assert.equal(book.closeOf(T0 + 3 * MINUTE_MS), 4)
  })
})

describe('median', () => {
  it('takes the middle value, the mean of the middle two for even counts, null for none', () => {
    assert.equal(median([3, 1, 2]), 2)
    assert.equal(median([10, 1, 2, 3]), 2.5)
    assert.equal(median([5]), 5)
    assert.equal(median([]), null)
  })
})

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
