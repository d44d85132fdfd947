// Tests of the median the spot is built on, and of a minute's range merged across sources.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { median, mergedRange } from './median.ts'

describe('median', () => {
  it('takes the middle value, the mean of the middle two for even counts, null for none', () => {
    assert.equal(median([3, 1, 2]), 2)
    assert.equal(median([10, 1, 2, 3]), 2.5)
    assert.equal(median([5]), 5)
    assert.equal(median([]), null)
  })
})

describe('mergedRange', () => {
  it('takes the median of the highs and of the lows, so one wild source moves neither', () => {
    assert.deepEqual(
      mergedRange([
        { high: 100_010, low: 99_990 },
        { high: 100_500, low: 99_000 },
        { high: 100_012.345, low: 99_995 },
      ]),
      { highDollars: 100_012.35, lowDollars: 99_990 },
    )
  })

  it('gives nothing when no source saw the minute whole', () => {
    assert.deepEqual(mergedRange([]), {})
  })
})
