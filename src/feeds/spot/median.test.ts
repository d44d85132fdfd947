// Tests of the median the spot is built on, and of a minute's range and mean merged across sources.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { median, mergedWholeMinute } from './median.ts'

describe('median', () => {
  it('takes the middle value, the mean of the middle two for even counts, null for none', () => {
    assert.equal(median([3, 1, 2]), 2)
    assert.equal(median([10, 1, 2, 3]), 2.5)
    assert.equal(median([5]), 5)
    assert.equal(median([]), null)
  })
})

describe('mergedWholeMinute', () => {
  it('takes the median of the highs, of the lows and of the means, so one wild source moves none', () => {
    assert.deepEqual(
      mergedWholeMinute([
        { high: 100_010, low: 99_990, mean: 100_001 },
        { high: 100_500, low: 99_000, mean: 100_400 },
        { high: 100_012.345, low: 99_995, mean: 100_003.456 },
      ]),
      { highDollars: 100_012.35, lowDollars: 99_990, meanDollars: 100_003.46 },
    )
  })

  it('gives nothing when no source saw the minute whole', () => {
    assert.deepEqual(mergedWholeMinute([]), {})
  })
})
