// Tests of the median the spot is built on, and of a minute's range, mean and seconds merged across
// sources.
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
  it('takes the median of the highs, of the lows, of the means and of the seconds’ sums, so one wild source moves none', () => {
    const seconds = { squares: 2e-7, crosses: -1e-8, largest: 1e-4 }
    assert.deepEqual(
      mergedWholeMinute([
        { high: 100_010, low: 99_990, mean: 100_001, ...seconds },
        { high: 100_500, low: 99_000, mean: 100_400, squares: 9e-5, crosses: 4e-5, largest: -0.01 },
        { high: 100_012.345, low: 99_995, mean: 100_003.456, squares: 3e-7, crosses: -2e-8, largest: 2e-4 },
      ]),
      {
        highDollars: 100_012.35,
        lowDollars: 99_990,
        meanDollars: 100_003.46,
        seconds: { squares: 3e-7, crosses: -1e-8, largest: 1e-4 },
      },
    )
  })

  it('gives nothing when no source saw the minute whole', () => {
    assert.deepEqual(mergedWholeMinute([]), {})
  })
})
