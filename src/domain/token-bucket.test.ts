import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { type BucketPolicy, bucketIsFull, takeToken } from './token-bucket.ts'

const spec: BucketPolicy = { burst: 20, perSec: 1 }

/** Sends `count` requests at `now`, threading the TAT, and returns every step. */
function burst(tat: number | undefined, now: number, count: number, policy = spec) {
  const steps = []
  let t = tat
  for (let i = 0; i < count; i++) {
    const step = takeToken(t, now, policy)
    t = step.tat
    steps.push(step)
  }
  return { steps, tat: t }
}

describe('takeToken', () => {
  test('an idle client may send the whole burst at once, then is refused', () => {
    const { steps } = burst(undefined, 1_000_000, 21)
    assert.deepEqual(
      steps.slice(0, 20).map((s) => s.allowed),
      Array(20).fill(true),
    )
    assert.equal(steps[20]!.allowed, false)
  })

  test('remaining counts the whole tokens left after each request', () => {
    const { steps } = burst(undefined, 0, 21)
    assert.deepEqual(
      steps.map((s) => s.remaining),
      [19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0],
    )
  })

  test('a refused request reports retryAfterS as the whole seconds until one token, at least 1', () => {
    const { tat } = burst(undefined, 0, 20)
    assert.equal(takeToken(tat, 0, spec).retryAfterS, 1)
    assert.equal(takeToken(tat, 999, spec).retryAfterS, 1)
    const slow = { burst: 2, perSec: 0.25 }
    const drained = burst(undefined, 0, 2, slow).tat
    const refused = takeToken(drained, 500, slow)
    assert.equal(refused.allowed, false)
    assert.equal(refused.retryAfterS, 4)
  })

  test('a refused request leaves the bucket unchanged', () => {
    const { tat } = burst(undefined, 0, 20)
    const refused = takeToken(tat, 10, spec)
    assert.equal(refused.tat, tat)
  })

  test('the bucket refills continuously at perSec up to the burst', () => {
    const { tat } = burst(undefined, 0, 20)
    assert.equal(takeToken(tat, 999, spec).allowed, false)
    const after1s = takeToken(tat, 1000, spec)
    assert.equal(after1s.allowed, true)
    assert.equal(after1s.remaining, 0)
    const after5s = takeToken(tat, 5000, spec)
    assert.equal(after5s.remaining, 4)
    const afterAnHour = takeToken(tat, 3_600_000, spec)
    assert.equal(afterAnHour.remaining, 19)
  })

  test('a drained client settles to perSec requests per second', () => {
    let { tat } = burst(undefined, 0, 20)
    let admitted = 0
    for (let now = 0; now <= 10_000; now += 100) {
      const step = takeToken(tat, now, spec)
      tat = step.tat
      if (step.allowed) admitted++
    }
    assert.equal(admitted, 10)
  })

  test('never admits more than burst + elapsed × perSec in any interval', () => {
    const policy = { burst: 5, perSec: 3 }
    let tat: number | undefined
    const admittedAt: number[] = []
    for (let now = 0; now < 20_000; now += 37) {
      for (let k = 0; k < 3; k++) {
        const step = takeToken(tat, now, policy)
        tat = step.tat
        if (step.allowed) admittedAt.push(now)
      }
    }
    for (let i = 0; i < admittedAt.length; i++) {
      for (let j = i; j < admittedAt.length; j++) {
        const elapsed = (admittedAt[j]! - admittedAt[i]!) / 1000
        assert.ok(j - i + 1 <= policy.burst + elapsed * policy.perSec + 1e-6)
      }
    }
  })

  test('a wall clock stepping backwards cannot lock a client out beyond one empty bucket', () => {
    const { tat } = burst(undefined, 10_000_000, 20)
    const refused = takeToken(tat, 0, spec)
    assert.equal(refused.allowed, false)
    assert.ok(refused.retryAfterS <= 21)
  })

  test('fractional rates keep whole-token arithmetic exact', () => {
    const policy = { burst: 3, perSec: 3 }
    const { steps } = burst(undefined, 0, 4, policy)
    assert.deepEqual(
      steps.map((s) => [s.allowed, s.remaining]),
      [
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
      ],
    )
  })
})

describe('bucketIsFull', () => {
  test('a bucket is full once its TAT is not in the future', () => {
    const step = takeToken(undefined, 0, spec)
    assert.equal(bucketIsFull(step.tat, 999), false)
    assert.equal(bucketIsFull(step.tat, 1000), true)
  })
})
