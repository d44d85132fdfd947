import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { continueTimeline, isWallTimeline, parseClockAnchor, virtualTime } from './virtual-clock.ts'

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0)

describe('virtual clock', () => {
  it('runs speed times faster than the wall clock from its anchor', () => {
    const anchor = { wall0: T0, virtual0: T0, speed: 60 }
    assert.equal(virtualTime(anchor, T0), T0)
    assert.equal(virtualTime(anchor, T0 + 1000), T0 + 60_000)
  })

  it('is the wall clock itself at speed 1 with a wall anchor', () => {
    assert.equal(isWallTimeline({ wall0: T0, virtual0: T0, speed: 1 }), true)
    assert.equal(isWallTimeline({ wall0: T0, virtual0: T0 + 1, speed: 1 }), false)
  })

  it('continues a timeline after a pause without going back', () => {
    const first = { wall0: T0, virtual0: T0, speed: 60 }
    // 10 wall seconds later the old timeline stood at T0 + 10 min; a restart at speed 60 keeps it.
    const next = continueTimeline(first, T0 + 10_000, 1)
    assert.deepEqual(next, { wall0: T0 + 10_000, virtual0: T0 + 600_000, speed: 1 })
  })

  it('never continues behind the wall clock', () => {
    const slow = { wall0: T0, virtual0: T0 - 1_000_000, speed: 1 }
    assert.equal(continueTimeline(slow, T0 + 5, 60).virtual0, T0 + 5)
  })

  it('parses only well-formed anchors', () => {
    assert.deepEqual(parseClockAnchor('{"wall0":1,"virtual0":2,"speed":3}'), {
      wall0: 1,
      virtual0: 2,
      speed: 3,
    })
    assert.equal(parseClockAnchor(null), null)
    assert.equal(parseClockAnchor('nope'), null)
    assert.equal(parseClockAnchor('{"wall0":1,"virtual0":2,"speed":0}'), null)
    assert.equal(parseClockAnchor('{"wall0":"1","virtual0":2,"speed":3}'), null)
  })
})
