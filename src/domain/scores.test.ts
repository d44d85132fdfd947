import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { clusteredRatio, logLossOf, ratioSumsOf, scoresOf } from './scores.ts'

describe('the clustered ratio', () => {
  it('sums each cluster before squaring, and gives the delta-method SE', () => {
    // clusters a: (1, 2), b: (0, 1) and (1, 1) → n_a 1, d_a 2; n_b 1, d_b 2
    const s = ratioSumsOf([1, 0, 1], [2, 1, 1], ['a', 'b', 'b'])
    assert.deepEqual(s, { num: 2, den: 4, clusters: 2, numSq: 2, cross: 4, denSq: 8 })
    // both clusters sit exactly on the ratio ½: no spread, SE 0
    assert.deepEqual(clusteredRatio(s), { value: 0.5, se: 0 })
    // clusters (3, 4) and (1, 4): R = ½, √(2 · ((3 − 2)² + (1 − 2)²)) / 8 = 0.25
    const t = clusteredRatio(ratioSumsOf([3, 1], [4, 4], ['a', 'b']))
    assert.equal(t.value, 0.5)
    assert.ok(Math.abs((t.se ?? 0) - 0.25) < 1e-12)
  })

  it('adds across disjoint clusters exactly', () => {
    const a = ratioSumsOf([1, 2, 0], [0.5, 1, 2], ['x', 'y', 'y'])
    const b = ratioSumsOf([3, 1], [1, 4], ['z', 'w'])
    const whole = ratioSumsOf([1, 2, 0, 3, 1], [0.5, 1, 2, 1, 4], ['x', 'y', 'y', 'z', 'w'])
    for (const k of ['num', 'den', 'clusters', 'numSq', 'cross', 'denSq'] as const)
      assert.ok(Math.abs(a[k] + b[k] - whole[k]) < 1e-12, k)
  })

  it('has no SE with one cluster, and no value with nothing in the denominator', () => {
    assert.deepEqual(clusteredRatio(ratioSumsOf([1, 1], [2, 2], ['a', 'a'])), { value: 0.5, se: null })
    const empty = clusteredRatio(ratioSumsOf([], [], []))
    assert.ok(Number.isNaN(empty.value))
    assert.equal(empty.se, null)
  })
})

describe('a probability of 0 or 1', () => {
  it('costs at most the log loss at the venue tick (ln 1000), never infinity or NaN', () => {
    assert.equal(logLossOf(0, 1), -Math.log(0.001)) // scored at 0.001: ln 1000
    assert.equal(logLossOf(1, 0), -Math.log(1 - 0.999))
    assert.equal(logLossOf(1, 1), -Math.log(0.999))
    const s = scoresOf([
      { contest: 'a', y: 1, p: 0 },
      { contest: 'b', y: 0, p: 1 },
      { contest: 'c', y: 1, p: 1 },
      { contest: 'd', y: 0, p: 0.3 },
    ])
    for (const x of [s.logLoss.value, s.logLoss.se, s.brier.value, s.brier.se]) assert.ok(Number.isFinite(x))
    assert.ok(
      Math.abs(
        s.logLoss.value - (-Math.log(0.001) - Math.log(1 - 0.999) - Math.log(0.999) - Math.log(0.7)) / 4,
      ) < 1e-12,
    )
    assert.equal(s.brier.value, (1 + 1 + 0 + 0.09) / 4) // the Brier score takes p as published
  })
})
