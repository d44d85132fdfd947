// Tests of Kalshi's settlement rule as the sandbox applies it: which 60 prints, rounding, ties.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { resolvesYes, sixtySecondMeanCents } from './settlement-rule.ts'

const T = Date.parse('2026-11-22T19:15:00Z')
const TS = T / 1000

describe('sixtySecondMeanCents', () => {
  it('averages the prints stamped T − 60 s … T − 1 s: the print at T is out, the one at T − 60 s in', () => {
    const flat = (s: number): number => (s === TS ? 99_999_999 : s === TS - 61 ? 1 : 10_000_000)
    assert.equal(sixtySecondMeanCents(flat, T), 10_000_000)
    const firstCounts = (s: number): number => (s === TS - 60 ? 10_006_000 : 10_000_000)
    assert.equal(sixtySecondMeanCents(firstCounts, T), 10_000_100)
    // an instant inside a second means the window ending at that second
    assert.equal(sixtySecondMeanCents(firstCounts, T + 999), 10_000_100)
  })

  it('rounds the mean half up to the cent', () => {
    // 59 prints at 100.00 and one at 100.30: mean 100.005 → 100.01
    const half = (s: number): number => (s === TS - 1 ? 10_030 : 10_000)
    assert.equal(sixtySecondMeanCents(half, T), 10_001)
    // one at 100.29: mean 100.00483 → 100.00
    const below = (s: number): number => (s === TS - 1 ? 10_029 : 10_000)
    assert.equal(sixtySecondMeanCents(below, T), 10_000)
  })

  it('resolves a tie YES', () => {
    assert.equal(resolvesYes(10_000, 10_000), true)
    assert.equal(resolvesYes(10_001, 10_000), true)
    assert.equal(resolvesYes(9_999, 10_000), false)
  })
})
