// Tests of the sandbox's distributions: the moments they promise, and its own normal CDF.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { laplace, normalCdf, normalPair, unitStudentT } from './draws.ts'
import { createSeededRandom } from './seeded-random.ts'

const moments = (xs: readonly number[]) => {
  const n = xs.length
  const mean = xs.reduce((a, x) => a + x, 0) / n
  const v = xs.reduce((a, x) => a + (x - mean) ** 2, 0) / n
  const k = xs.reduce((a, x) => a + (x - mean) ** 4, 0) / n / (v * v)
  return { mean, v, k }
}

describe('the sandbox distributions', () => {
  const next = createSeededRandom(99).sequence(1, 0)

  it('draws standard normals in pairs', () => {
    const xs: number[] = []
    for (let i = 0; i < 100_000; i++) xs.push(...normalPair(next))
    const m = moments(xs)
    assert.ok(
      Math.abs(m.mean) < 0.01 && Math.abs(m.v - 1) < 0.015 && Math.abs(m.k - 3) < 0.06,
      JSON.stringify(m),
    )
  })

  it('draws a Student-t (ν = 5) of unit variance, fat-tailed', () => {
    const xs: number[] = []
    for (let i = 0; i < 200_000; i++) xs.push(unitStudentT(next, 5))
    const m = moments(xs)
    assert.ok(Math.abs(m.mean) < 0.01 && Math.abs(m.v - 1) < 0.03, JSON.stringify(m))
    // the population kurtosis of t₅ is 9; a sample's converges slowly, but is far above a normal's 3
    assert.ok(m.k > 5, JSON.stringify(m))
    // P(|t₅| > 3.365) = 2 %, scaled to unit variance: |x| > 3.365·√(3/5)
    const tail = xs.filter((x) => Math.abs(x) > 3.365 * Math.sqrt(0.6)).length / xs.length
    assert.ok(Math.abs(tail - 0.02) < 0.002, `tail ${tail}`)
  })

  it('draws Laplace sizes of scale b: mean |x| = b, both signs', () => {
    const xs: number[] = []
    for (let i = 0; i < 100_000; i++) xs.push(laplace(next(), 0.0025))
    const meanAbs = xs.reduce((a, x) => a + Math.abs(x), 0) / xs.length
    assert.ok(Math.abs(meanAbs - 0.0025) < 0.00005, `${meanAbs}`)
    assert.ok(Math.abs(xs.filter((x) => x > 0).length / xs.length - 0.5) < 0.01)
  })

  it('has its own normal CDF, accurate to 1e-7', () => {
    for (const [x, p] of [
      [0, 0.5],
      [1, 0.8413447460685429],
      [-1.959963984540054, 0.025],
      [3, 0.9986501019683699],
      [-5, 2.866515718791939e-7],
    ] as const)
      assert.ok(Math.abs(normalCdf(x) - p) < 1e-7, `Φ(${x}) = ${normalCdf(x)}, not ${p}`)
  })
})
