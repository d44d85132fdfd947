import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createRecentHistory } from './recent-history.ts'

describe('createRecentHistory', () => {
  it('answers with the value that stood at an instant, and keeps the one standing at its span’s start', () => {
    const h = createRecentHistory<string>(1_000)
    assert.equal(h.latest(), null)
    assert.equal(h.asOf(5), null)
    h.add('a', 100)
    h.add('b', 600)
    assert.equal(h.asOf(99), null, 'nothing yet')
    assert.equal(h.asOf(100), 'a', 'at its own instant')
    assert.equal(h.asOf(599), 'a')
    h.add('c', 1_700)
    assert.equal(h.latest(), 'c')
    assert.equal(h.asOf(1_699), 'b')
    assert.equal(h.asOf(9_999), 'c')
    // 'a' fell out of the last 1 000 ms; 'b' stood at their start (700) and stays
    assert.equal(h.asOf(700), 'b')
    assert.equal(h.asOf(599), null, 'older than anything kept')
  })
})
