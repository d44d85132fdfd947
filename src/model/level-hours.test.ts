// The level error by hour (level-hours.ts): a window prices the variance of the UTC hour it opens in,
// and a file without one prices the pooled variance.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { HOURS_A_DAY, levelHoursProblem, utcHourOf, varianceAtHour } from './level-hours.ts'

const DAY = Date.parse('2026-10-05T00:00:00Z')
const HOUR = 3_600_000

describe('level error by hour', () => {
  it('places an instant in its UTC hour, the hour’s last millisecond included', () => {
    assert.equal(utcHourOf(DAY), 0)
    assert.equal(utcHourOf(DAY + HOUR - 1), 0)
    assert.equal(utcHourOf(DAY + HOUR), 1)
    assert.equal(utcHourOf(DAY + 23 * HOUR + 45 * 60_000), 23)
    assert.equal(utcHourOf(Date.parse('2026-10-05T13:15:00+02:00')), 11)
  })

  it('prices the hour the window opens in, and the pooled variance without hours', () => {
    const byHour = Array.from({ length: HOURS_A_DAY }, (_, h) => (h === 0 ? 9e-8 : 1e-8))
    assert.equal(varianceAtHour(byHour, 2e-8, DAY + 45 * 60_000), 9e-8)
    assert.equal(varianceAtHour(byHour, 2e-8, DAY + HOUR), 1e-8)
    assert.equal(varianceAtHour(undefined, 2e-8, DAY), 2e-8)
  })

  it('accepts 24 finite variances ≥ 0 and names what else is wrong', () => {
    assert.equal(levelHoursProblem(Array(24).fill(0)), null)
    assert.equal(levelHoursProblem(Array(23).fill(1e-8)), 'must be a list of 24 variances')
    assert.equal(levelHoursProblem({ 0: 1e-8 }), 'must be a list of 24 variances')
    for (const bad of [-1e-9, Number.NaN, Number.POSITIVE_INFINITY, '1e-8'])
      assert.equal(
        levelHoursProblem([...Array(23).fill(1e-8), bad]),
        'each hour’s variance must be a finite number ≥ 0',
      )
  })
})
