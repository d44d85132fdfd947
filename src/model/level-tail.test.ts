import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  levelComponents,
  levelTailProblem,
  MIN_NARROW,
  narrowMultiplier,
  probabilityWithLevelTail,
} from './level-tail.ts'
import { unitStudentTCdf } from './student-t.ts'

const normalish = (centre: number) => (sd: number) => unitStudentTCdf(centre / sd, 1000)

describe('the level error as a scale mixture', () => {
  it('keeps the measured variance as its mean: weights sum to 1, weighted multipliers to 1', () => {
    for (const tail of [
      { share: 0.02, wide: 8 },
      { share: 0.2, wide: 4 },
      { share: 0.002, wide: 64 },
    ]) {
      const parts = levelComponents(tail)
      assert.ok(Math.abs(parts.reduce((s, c) => s + c.weight, 0) - 1) < 1e-15)
      assert.ok(Math.abs(parts.reduce((s, c) => s + c.weight * c.multiplier, 0) - 1) < 1e-15)
      assert.ok(narrowMultiplier(tail) < 1 && narrowMultiplier(tail) > 0)
    }
  })

  it('prices a long shot a step would bring in above one normal of the same variance, and at-the-money alike', () => {
    // a last-minute reading: little of the index's move left, the level's error most of the variance
    const diffusion = 1e-8
    const measured = 3.2e-9
    const tail = { share: 0.02, wide: 12 }
    const variance = diffusion + measured
    const far = -5.2e-4 // about 4.3 sds: a long shot the plain normal calls all but impossible
    const plain = normalish(far)(Math.sqrt(variance))
    const mixed = probabilityWithLevelTail(variance, measured, tail, normalish(far))
    assert.ok(plain < 1e-4, `plain ${plain}`)
    assert.ok(mixed > 5 * plain, `mixed ${mixed} against plain ${plain}`)
    // the same arithmetic by hand
    const [narrow, wide] = levelComponents(tail) as [
      { weight: number; multiplier: number },
      { weight: number; multiplier: number },
    ]
    const byHand =
      narrow.weight * normalish(far)(Math.sqrt(diffusion + narrow.multiplier * measured)) +
      wide.weight * normalish(far)(Math.sqrt(diffusion + wide.multiplier * measured))
    assert.ok(Math.abs(mixed - byHand) < 1e-15)
    // at even odds the mixture changes nothing; a step of the level moves no probability there
    assert.equal(probabilityWithLevelTail(variance, measured, tail, normalish(0)), 0.5)
  })

  it('names what is wrong with a tail it cannot price', () => {
    assert.equal(levelTailProblem({ share: 0.02, wide: 8 }), null)
    assert.equal(levelTailProblem(null), 'must be an object')
    assert.equal(levelTailProblem({ share: 0, wide: 8 }), 'share must be within (0, 1)')
    assert.equal(levelTailProblem({ share: 1, wide: 8 }), 'share must be within (0, 1)')
    assert.equal(levelTailProblem({ share: 0.1, wide: 0.5 }), 'wide must be ≥ 1')
    assert.equal(levelTailProblem({ share: 0.1, wide: Number.POSITIVE_INFINITY }), 'wide must be ≥ 1')
    assert.equal(
      levelTailProblem({ share: 0.2, wide: 5 }),
      `share × wide must leave the narrow part at least ${MIN_NARROW} of the variance`,
    )
  })
})
