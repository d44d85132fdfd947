// Tests of one source's minute closes: live prices win over candles, and memory stays bounded.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MINUTE_MS } from '../../domain/contest.ts'
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
