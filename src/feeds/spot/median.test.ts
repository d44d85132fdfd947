// Tests of the median the spot is built on.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { median } from './median.ts'

describe('median', () => {
  it('takes the middle value, the mean of the middle two for even counts, null for none', () => {
    assert.equal(median([3, 1, 2]), 2)
    assert.equal(median([10, 1, 2, 3]), 2.5)
    assert.equal(median([5]), 5)
    assert.equal(median([]), null)
  })
})
