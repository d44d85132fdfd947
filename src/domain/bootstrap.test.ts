import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { dayBlockBootstrap, MIN_BOOTSTRAP_DAYS } from './bootstrap.ts'

/** a small Lehmer generator: the draws are the caller's, and any uniform stream will do */
const uniforms = (seed: number) => () => {
  seed = (seed * 48_271) % 2_147_483_647
  return seed / 2_147_483_647
}

describe('dayBlockBootstrap', () => {
  const sample = (days: number) => {
    const values: number[] = []
    const dayOf: number[] = []
    for (let d = 0; d < days; d++)
      for (let i = 0; i < 20; i++) {
        values.push(((d * 7 + i * 3) % 11) / 10 - 0.5)
        dayOf.push(d)
      }
    return { values, dayOf }
  }
  it('gives no interval on fewer days than its minimum: a few blocks resampled are no evidence', () => {
    const few = sample(MIN_BOOTSTRAP_DAYS - 1)
    assert.equal(dayBlockBootstrap(few.values, few.dayOf, uniforms(1)), null)
    const enough = sample(MIN_BOOTSTRAP_DAYS)
    const interval = dayBlockBootstrap(enough.values, enough.dayOf, uniforms(1))
    assert.ok(interval && interval.low < interval.high)
    const mean = enough.values.reduce((a, b) => a + b, 0) / enough.values.length
    assert.ok(interval.low <= mean && mean <= interval.high, 'around the mean')
  })
})
