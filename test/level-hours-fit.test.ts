// The level error's variance by hour measured on errors alone (tools/fit/level-hours-fit.ts): an hour
// whose errors are wider is found, the others keep about the pooled variance, hours that differ only
// by their sampling error give the pooled variance back, and measurement noise is no variance.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { HOURS_A_DAY } from '../src/model/level-hours.ts'
import { fitLevelHours, type TimedError } from '../tools/fit/level-hours-fit.ts'
import { normals } from './support/normals.ts'

const DAY0 = Date.parse('2026-06-01T00:00:00Z')
const WINDOW = 15 * 60_000
const VARIANCE = 4e-9

/** `days` of 15-minute windows' errors, each hour's variance `varianceOf(hour)`, each seen through `noise`. */
function draw(days: number, varianceOf: (hour: number) => number, noise = 0, seed = 7): TimedError[] {
  const z = normals(seed)
  const out: TimedError[] = []
  for (let w = 0; w < days * 96; w++) {
    const opensAt = DAY0 + w * WINDOW
    const hour = Math.floor((w % 96) / 4)
    const error = Math.sqrt(varianceOf(hour)) * z() + Math.sqrt(noise) * z()
    out.push({ squared: error * error, noise, opensAt })
  }
  return out
}

const pooledOf = (errors: readonly TimedError[]) =>
  errors.reduce((a, e) => a + e.squared - e.noise, 0) / errors.length

describe('fitLevelHours', () => {
  it('finds the hour whose errors are eight times as wide, and leaves the others near the pooled variance', () => {
    const errors = draw(64, (hour) => (hour === 0 ? 8 * VARIANCE : VARIANCE))
    const pooled = pooledOf(errors)
    const fitted = fitLevelHours(errors, pooled)
    assert.ok(fitted, 'an hour this far out is more than its sampling error')
    assert.equal(fitted.byHour.length, HOURS_A_DAY)
    assert.deepEqual(fitted.counts, Array(HOURS_A_DAY).fill(256))
    const hour0 = fitted.byHour[0] as number
    // shrunk toward the pooled variance, but most of the way to the hour's own
    assert.ok(hour0 > 5 * VARIANCE && hour0 < 8 * VARIANCE * 1.3, `hour 0: ${hour0 / VARIANCE}`)
    for (const v of fitted.byHour.slice(1))
      assert.ok(v > 0.6 * VARIANCE && v < 1.6 * VARIANCE, `another hour: ${v / VARIANCE}`)
  })

  it('gives every hour about the pooled variance back where the hours differ only by their sampling error', () => {
    for (const seed of [7, 8, 9, 10]) {
      const errors = draw(64, () => VARIANCE, 0, seed)
      const pooled = pooledOf(errors)
      // each hour's own mean is off the pooled by ±9 % (256 errors); shrunk, by far less
      const own = (hour: number) => {
        const mine = errors.filter((e) => new Date(e.opensAt).getUTCHours() === hour)
        return pooledOf(mine)
      }
      const widest = Math.max(...Array.from({ length: HOURS_A_DAY }, (_, h) => Math.abs(own(h) / pooled - 1)))
      const byHour = fitLevelHours(errors, pooled)?.byHour ?? Array(HOURS_A_DAY).fill(pooled)
      const shrunk = Math.max(...byHour.map((v) => Math.abs(v / pooled - 1)))
      assert.ok(shrunk < widest / 2, `seed ${seed}: ${shrunk} against the hours' own ${widest}`)
    }
  })

  it('does not take the measurements’ own noise for an hour’s variance', () => {
    // hour 5's errors are seen through noise three times the variance, known per error
    const z = normals(3)
    const errors = draw(64, () => VARIANCE).map((e) => {
      if (new Date(e.opensAt).getUTCHours() !== 5) return e
      const noise = 3 * VARIANCE
      const error = Math.sqrt(e.squared) * Math.sign(z()) + Math.sqrt(noise) * z()
      return { ...e, squared: error * error, noise }
    })
    const fitted = fitLevelHours(errors, pooledOf(errors))
    const hour5 = fitted?.byHour[5] ?? pooledOf(errors)
    assert.ok(hour5 < 2 * VARIANCE, `hour 5: ${hour5 / VARIANCE}`)
  })

  it('prices the pooled variance at an hour with fewer than two errors, and measures nothing from one hour', () => {
    const errors = draw(64, (hour) => (hour === 0 ? 8 * VARIANCE : VARIANCE)).filter(
      (e) => new Date(e.opensAt).getUTCHours() !== 7,
    )
    const pooled = pooledOf(errors)
    const fitted = fitLevelHours(errors, pooled)
    assert.equal(fitted?.byHour[7], pooled)
    assert.equal(fitted?.counts[7], 0)
    const oneHour = errors.filter((e) => new Date(e.opensAt).getUTCHours() === 0)
    assert.equal(fitLevelHours(oneHour, pooledOf(oneHour)), null)
    assert.equal(fitLevelHours([], VARIANCE), null)
  })
})
