// A minute is counted once, when it is given up, with the reason that kept it from being read.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { SkipReason } from './reading.ts'
import { createSkippedReadings } from './skipped-readings.ts'

function tracker() {
  const counted: SkipReason[] = []
  const warned: unknown[] = []
  const skips = createSkippedReadings({ warn: (obj: unknown) => void warned.push(obj) }, (r) =>
    counted.push(r),
  )
  return { skips, counted, warned }
}

describe('createSkippedReadings', () => {
  it('counts a minute once, when the next minute gives it up, with its last reason', () => {
    const { skips, counted, warned } = tracker()
    skips.record('A', 1, 'no-spot')
    skips.record('A', 1, 'no-spot')
    skips.record('A', 1, 'few-sources')
    assert.deepEqual(counted, [], 'still being retried')
    skips.record('A', 2, 'paused')
    assert.deepEqual(counted, ['few-sources'])
    assert.equal(warned.length, 3, 'each reason warned once per contest')
  })

  it('does not count a minute a retry raised', () => {
    const { skips, counted } = tracker()
    skips.record('A', 3, 'no-quote')
    skips.raised('A', 3)
    skips.flush()
    assert.deepEqual(counted, [])
  })

  it('counts a minute whose book never came as late, and keeps a reason that came before the limit', () => {
    const { skips, counted } = tracker()
    skips.record('A', 1, 'no-book')
    skips.record('A', 1, 'late')
    skips.record('A', 2, 'no-quote')
    skips.record('A', 2, 'no-book')
    skips.record('A', 2, 'late')
    skips.raised('A', 3)
    assert.deepEqual(counted, ['late', 'no-quote'])
  })

  it('logs no `late` for a minute whose retries end late with its reason already said; a late minute without one is said', () => {
    const { skips, counted, warned } = tracker()
    skips.record('A', 1, 'paused')
    skips.record('A', 1, 'late')
    skips.record('A', 2, 'no-book')
    skips.record('A', 2, 'late')
    skips.flush()
    assert.deepEqual(counted, ['paused', 'late'])
    assert.deepEqual(
      warned.map((w) => (w as { minute: number; reason: string }).reason),
      ['paused', 'no-book', 'late'],
    )
  })

  it('counts what is pending when a contest leaves the live state or the engine stops', () => {
    const { skips, counted } = tracker()
    skips.record('A', 14, 'paused')
    skips.record('B', 7, 'no-strike')
    skips.flush('A')
    assert.deepEqual(counted, ['paused'])
    skips.flush()
    assert.deepEqual(counted, ['paused', 'no-strike'])
    skips.flush()
    assert.deepEqual(counted, ['paused', 'no-strike'], 'never twice')
  })

  it('asks for a retry while a minute waits for a book or a spot, not after it is late or paused', () => {
    const { skips } = tracker()
    assert.equal(skips.retryDue(), false)
    for (const reason of ['no-book', 'no-quote', 'no-spot', 'few-sources'] as const) {
      skips.record('A', 1, reason)
      assert.equal(skips.retryDue(), true, reason)
    }
    skips.record('A', 1, 'late')
    assert.equal(skips.retryDue(), false)
    skips.record('A', 2, 'paused')
    assert.equal(skips.retryDue(), false)
    skips.record('A', 2, 'no-book')
    skips.raised('A', 2)
    assert.equal(skips.retryDue(), false)
  })
})
