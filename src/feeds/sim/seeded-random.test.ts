// Unit tests of the counter-based generator: purity, independence of counters, distributions.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createSeededRandom, hashString } from './seeded-random.ts'

describe('createSeededRandom', () => {
  it('is a pure function of (seed, stream, index, sub)', () => {
    const a = createSeededRandom(42)
    const b = createSeededRandom(42)
    for (const [stream, index, sub] of [
      [1, 0, 0],
      [1, -5, 0],
      [7, 2 ** 40 + 3, 9],
      [3, 123, 4],
    ] as const) {
      assert.equal(a.uniform(stream, index, sub), b.uniform(stream, index, sub))
      assert.equal(a.normal(stream, index, sub), b.normal(stream, index, sub))
      // asking again, in any order, changes nothing
      assert.equal(a.uniform(stream, index, sub), b.uniform(stream, index, sub))
    }
  })

  it('differs by seed, stream, index and sub', () => {
    const r = createSeededRandom(1)
    const base = r.uniform(1, 1, 1)
    assert.notEqual(createSeededRandom(2).uniform(1, 1, 1), base)
    assert.notEqual(createSeededRandom(1 + 2 ** 32).uniform(1, 1, 1), base)
    assert.notEqual(r.uniform(2, 1, 1), base)
    assert.notEqual(r.uniform(1, 2, 1), base)
    assert.notEqual(r.uniform(1, 1 + 2 ** 32, 1), base)
    assert.notEqual(r.uniform(1, 1, 2), base)
  })

  it('draws uniforms on [0, 1) with a flat histogram', () => {
    const r = createSeededRandom(5)
    const n = 200_000
    const bins = new Array<number>(20).fill(0)
    for (let i = 0; i < n; i++) {
      const u = r.uniform(3, i)
      assert.ok(u >= 0 && u < 1)
      bins[Math.floor(u * 20)] = (bins[Math.floor(u * 20)] as number) + 1
    }
    const expected = n / 20
    const chi2 = bins.reduce((acc, b) => acc + (b - expected) ** 2 / expected, 0)
    assert.ok(chi2 < 45, `chi-square ${chi2} on 19 degrees of freedom`)
  })

  it('draws normals with mean 0 and variance 1, uncorrelated across counters', () => {
    const r = createSeededRandom(9)
    const n = 200_000
    let sum = 0
    let sumSq = 0
    let lagged = 0
    let prev = r.normal(4, -1)
    for (let i = 0; i < n; i++) {
      const z = r.normal(4, i)
      sum += z
      sumSq += z * z
      lagged += z * prev
      prev = z
    }
    assert.ok(Math.abs(sum / n) < 0.01)
    assert.ok(Math.abs(sumSq / n - 1) < 0.02)
    assert.ok(Math.abs(lagged / n) < 0.01)
  })

  it('makes sequences that are pure functions of (seed, stream, index) and flat on [0, 1)', () => {
    const take = (seed: number, stream: number, index: number, n: number): number[] => {
      const next = createSeededRandom(seed).sequence(stream, index)
      return Array.from({ length: n }, () => next())
    }
    assert.deepEqual(take(5, 1, 42, 50), take(5, 1, 42, 50))
    assert.notDeepEqual(take(5, 1, 42, 50), take(5, 1, 43, 50))
    assert.notDeepEqual(take(5, 1, 42, 50), take(5, 2, 42, 50))
    assert.notDeepEqual(take(5, 1, 42, 50), take(6, 1, 42, 50))
    const xs = take(7, 3, 0, 100_000)
    const bins = new Array<number>(10).fill(0)
    for (const x of xs) {
      assert.ok(x >= 0 && x < 1)
      bins[Math.floor(x * 10)] = (bins[Math.floor(x * 10)] as number) + 1
    }
    // 10 000 expected per bin, sd 95
    for (const b of bins) assert.ok(Math.abs(b - 10_000) < 400, `${bins}`)
  })

  it('rejects seeds that are not safe integers', () => {
    assert.throws(() => createSeededRandom(1.5), RangeError)
    assert.throws(() => createSeededRandom(2 ** 60), RangeError)
  })
})

describe('hashString', () => {
  it('is stable and spreads near-identical strings', () => {
    assert.equal(hashString('KXBTC15M-26NOV221415-15'), hashString('KXBTC15M-26NOV221415-15'))
    const seen = new Set<number>()
    for (let i = 0; i < 10_000; i++) seen.add(hashString(`KXBTC15M-${i}`))
    assert.equal(seen.size, 10_000)
  })
})
