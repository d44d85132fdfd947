import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  CROWD_LAG_MAX_S,
  CROWD_LAG_MIN_READINGS,
  CROWD_LAG_WINDOW_MS,
  createCrowdLag,
} from '../src/domain/crowd-lag.ts'
import { seededUniforms } from './support/seeded-uniforms.ts'

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z))
const MINUTE = 60_000

/**
 * A made-up world: the model's log-odds at each second before the book follow a random walk, and a
 * crowd `lag` seconds late quotes the model of that second, plus a bias and noise of its own.
 */
function readingsOfACrowd(lag: number, count: number, seed: number) {
  const random = seededUniforms(seed)
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  return Array.from({ length: count }, (_, i) => {
    // the walk backwards from the book's instant: index 0 is the newest second
    const path = [normal()]
    for (let s = 1; s <= CROWD_LAG_MAX_S; s++) path.push((path[s - 1] as number) + 0.15 * normal())
    const mid = sigmoid(0.9 * (path[lag] as number) + 0.05 + 0.1 * normal())
    return { at: i * MINUTE, mid, modelAtLag: path.map(sigmoid) }
  })
}

describe('createCrowdLag', () => {
  it('measures the seconds a crowd quotes late, whatever its bias and noise', () => {
    for (const lag of [0, 4, 10]) {
      const crowd = createCrowdLag()
      for (const r of readingsOfACrowd(lag, 400, 7 + lag)) crowd.observe(r.at, r.mid, () => r.modelAtLag)
      assert.equal(crowd.secondsAt(400 * MINUTE), lag)
    }
  })

  it('measures nothing from fewer readings than it needs, and from the readings before the instant asked only', () => {
    const crowd = createCrowdLag()
    const readings = readingsOfACrowd(6, CROWD_LAG_MIN_READINGS, 3)
    for (const r of readings.slice(0, -1)) crowd.observe(r.at, r.mid, () => r.modelAtLag)
    assert.equal(crowd.secondsAt(CROWD_LAG_MIN_READINGS * MINUTE), 0, 'one reading short')
    const last = readings.at(-1) as (typeof readings)[number]
    crowd.observe(last.at, last.mid, () => last.modelAtLag)
    assert.equal(crowd.secondsAt(CROWD_LAG_MIN_READINGS * MINUTE), 6)
  })

  it('forgets readings older than its window', () => {
    const crowd = createCrowdLag()
    for (const r of readingsOfACrowd(9, 300, 11)) crowd.observe(r.at, r.mid, () => r.modelAtLag)
    assert.equal(crowd.secondsAt(300 * MINUTE), 9)
    // a day later the old crowd's readings are gone; too few new ones to measure
    const later = 300 * MINUTE + CROWD_LAG_WINDOW_MS
    for (const r of readingsOfACrowd(2, 50, 12)) crowd.observe(later + r.at, r.mid, () => r.modelAtLag)
    assert.equal(crowd.secondsAt(later + 50 * MINUTE), 0)
  })

  it('measures no lag where the prints do not move within seconds (one-minute tapes)', () => {
    const crowd = createCrowdLag()
    for (const r of readingsOfACrowd(8, 300, 5)) {
      const still = r.modelAtLag.map(() => r.modelAtLag[0] as number)
      crowd.observe(r.at, r.mid, () => still)
    }
    assert.equal(crowd.secondsAt(300 * MINUTE), 0)
  })

  it('leaves out pinned books, readings with a spot unknown at some lag, and mids at 0 or 1', () => {
    const crowd = createCrowdLag()
    const readings = readingsOfACrowd(5, 300, 9)
    for (const r of readings) {
      crowd.observe(r.at, 0.99, () => assert.fail('a pinned book is not priced at all'))
      crowd.observe(r.at, 1, () => assert.fail('nor a mid of 1'))
      crowd.observe(r.at, r.mid, () => [...r.modelAtLag.slice(0, 3), null, ...r.modelAtLag.slice(4)])
    }
    assert.equal(crowd.secondsAt(300 * MINUTE), 0, 'nothing measured')
    for (const r of readings) crowd.observe(r.at + 300 * MINUTE, r.mid, () => r.modelAtLag)
    assert.equal(crowd.secondsAt(600 * MINUTE), 5)
  })
})
