// Tests of one source's minute closes: live prices win over candles, memory stays bounded, and a
// minute's range is known only when live prices saw it whole.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MINUTE_MS } from '../../domain/contest.ts'
import { MIN_PRICES_FOR_RANGE } from '../../domain/price-history.ts'
import { createMinuteBook, type MinuteBook } from './minute-book.ts'

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

  describe('a minute’s range and mean', () => {
    const rangeOf = (book: MinuteBook) => {
      const whole = book.wholeMinuteOf(T0)
      return whole && { high: whole.high, low: whole.low }
    }
    // a price every second of minute T0, after one in the minute before at `open`
    const secondly = (open: number, prices: (s: number) => number) => {
      const book = createMinuteBook({ keepMinutes: 10 })
      book.recordLive(T0 - 1_000, open)
      for (let s = 0; s < 60; s++) book.recordLive(T0 + s * 1_000 + 200, prices(s))
      return book
    }

    it('is the highest and lowest live price, counting the one the minute opened at', () => {
      const book = secondly(100, (s) => 101 + (s === 30 ? 2 : 0) - (s === 40 ? 1.5 : 0))
      assert.deepEqual(rangeOf(book), { high: 103, low: 99.5 })
      // the open itself outside the minute's own prices
      assert.deepEqual(rangeOf(secondly(98, () => 101)), { high: 101, low: 98 })
    })

    it('has the mean of the prices in force at its 60 whole seconds, the open’s before the first price', () => {
      // prices at s + 0.2 s: whole second k sees the price sent at k − 1 (200 + k − 1)
      assert.equal(secondly(100, (s) => 200 + s).wholeMinuteOf(T0)?.mean, 229.5)
      // a price sent exactly on a whole second is not yet in force at it; the last one holds to the end
      const onTheSecond = createMinuteBook({ keepMinutes: 10 })
      onTheSecond.recordLive(T0 - 500, 10)
      for (let s = 0; s < MIN_PRICES_FOR_RANGE; s++) onTheSecond.recordLive(T0 + 10_000 + s, 20)
      onTheSecond.recordLive(T0 + 30_000, 40)
      // seconds 1–10 at 10, 11–30 at 20, 31–60 at 40
      assert.equal(onTheSecond.wholeMinuteOf(T0)?.mean, (10 * 10 + 20 * 20 + 30 * 40) / 60)
    })

    it('sums the squared log moves between the prices in force at its whole seconds, and their neighbours’ products', () => {
      // seconds 1–10 at 10, 11–30 at 20, 31–60 at 40: two moves, at seconds 11 and 31, none beside another
      const steps = createMinuteBook({ keepMinutes: 10 })
      steps.recordLive(T0 - 500, 10)
      for (let s = 0; s < MIN_PRICES_FOR_RANGE; s++) steps.recordLive(T0 + 10_000 + s, 20)
      steps.recordLive(T0 + 30_000, 40)
      const whole = steps.wholeMinuteOf(T0)
      assert.ok(whole)
      assert.ok(Math.abs(whole.squares - 2 * Math.LN2 ** 2) < 1e-15)
      assert.equal(whole.crosses, 0)
      assert.equal(whole.largest, Math.log(2))
    })

    it('counts a move back and forth every second as a negative cross sum (a source’s own noise)', () => {
      // whole second k sees the price sent at k − 1: 101 at odd k, 100 at even k; second 0 is the open (100)
      const book = secondly(100, (s) => (s % 2 === 0 ? 101 : 100))
      const whole = book.wholeMinuteOf(T0)
      assert.ok(whole)
      const up = Math.log(101 / 100)
      // sixty moves of ±up (the last second is in force at the close's price), each the reverse of the one before
      assert.ok(Math.abs(whole.squares - 60 * up * up) < 1e-12)
      assert.ok(Math.abs(whole.crosses + 59 * up * up) < 1e-12)
      assert.equal(Math.abs(whole.largest), up)
    })

    it('is unknown without the price the minute opened at', () => {
      const book = createMinuteBook({ keepMinutes: 10 })
      // the last price before the minute came two minutes earlier: where the minute opened is not known
      book.recordLive(T0 - MINUTE_MS - 1_000, 100)
      for (let s = 0; s < 60; s++) book.recordLive(T0 + s * 1_000, 101)
      assert.equal(book.wholeMinuteOf(T0), undefined)
      assert.equal(book.closeOf(T0), 101)
    })

    it(`is unknown with fewer than ${MIN_PRICES_FOR_RANGE} prices inside the minute (a one-minute grain)`, () => {
      const few = createMinuteBook({ keepMinutes: 10 })
      few.recordLive(T0 - 1_000, 100)
      for (let s = 0; s < MIN_PRICES_FOR_RANGE - 1; s++) few.recordLive(T0 + s * 5_000, 100 + s)
      assert.equal(few.wholeMinuteOf(T0), undefined)
      few.recordLive(T0 + 59_000, 90)
      assert.deepEqual(rangeOf(few), { high: 100 + MIN_PRICES_FOR_RANGE - 2, low: 90 })
    })

    it('is never taken from candles, which hold only a close', () => {
      const book = createMinuteBook({ keepMinutes: 10 })
      book.loadCandles([
        { minuteStart: T0 - MINUTE_MS, close: 99 },
        { minuteStart: T0, close: 100 },
      ])
      assert.equal(book.wholeMinuteOf(T0), undefined)
      assert.equal(book.closeOf(T0), 100)
    })
  })
})
