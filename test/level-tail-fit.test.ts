// The level error's tail measured on errors alone (tools/fit/level-tail-fit.ts): a mixture the errors
// were drawn from is found again, one normal is left as one, and each error's measurement noise is
// not taken for a tail.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { narrowMultiplier } from '../src/model/level-tail.ts'
import { fitLevelTail, levelLogLikelihood } from '../tools/fit/level-tail-fit.ts'
import type { BasisError } from '../tools/fit/stages.ts'
import { normals } from './support/normals.ts'

const VARIANCE = 4e-9
/** `n` errors of mean variance VARIANCE: with chance `share` `wide` times it, each seen through `noise`. */
function draw(n: number, share: number, wide: number, noise = 0, seed = 11): BasisError[] {
  const z = normals(seed)
  const narrow = share === 0 ? 1 : narrowMultiplier({ share, wide })
  const out: BasisError[] = []
  for (let i = 0; i < n; i++) {
    // the share-th draws are wide, spread evenly: the test needs no second stream of uniforms
    const multiplier = share > 0 && i % Math.round(1 / share) === 0 ? wide : narrow
    const error = Math.sqrt(multiplier * VARIANCE) * z() + Math.sqrt(noise) * z()
    out.push({ squared: error * error, noise })
  }
  return out
}

describe('fitLevelTail', () => {
  it('finds the mixture the errors came from: a step in fifty errors, twelve times as wide', () => {
    const fitted = fitLevelTail(draw(6000, 0.02, 12), VARIANCE)
    assert.ok(fitted, 'a tail this heavy earns its two parameters')
    assert.ok(fitted.tail.share >= 0.01 && fitted.tail.share <= 0.05, `share ${fitted.tail.share}`)
    assert.ok(fitted.tail.wide >= 6 && fitted.tail.wide <= 24, `wide ${fitted.tail.wide}`)
    assert.ok(fitted.gain > Math.log(6000))
  })

  it('leaves errors from one normal as one', () => {
    assert.equal(fitLevelTail(draw(6000, 0, 1), VARIANCE), null)
  })

  it('does not take the measurements’ own noise for a tail', () => {
    // noise as large as the error itself, known per error: still one normal underneath
    const noisy = draw(6000, 0, 1, VARIANCE)
    assert.equal(fitLevelTail(noisy, VARIANCE), null)
    // priced without the noise, the same errors would look wider than they are
    const withoutNoise = noisy.map((e) => ({ squared: e.squared, noise: 0 }))
    assert.ok(
      levelLogLikelihood(withoutNoise, 2 * VARIANCE, null) > levelLogLikelihood(withoutNoise, VARIANCE, null),
    )
  })

  it('measures nothing from fewer than two errors or a variance of 0', () => {
    assert.equal(fitLevelTail([], VARIANCE), null)
    assert.equal(fitLevelTail([{ squared: 1e-8, noise: 0 }], VARIANCE), null)
    assert.equal(fitLevelTail(draw(100, 0.02, 12), 0), null)
  })
})
