// Tests of request pacing on a fake clock: even spacing, call order, no wait when idle.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createRequestPacer } from './request-pacer.ts'

function fakeTime() {
  let now = 1_000_000
  const slept: number[] = []
  return {
    clock: { now: () => now },
    advance: (ms: number) => {
      now += ms
    },
    slept,
    sleep: async (ms: number) => {
      slept.push(ms)
    },
  }
}

describe('createRequestPacer', () => {
  it('spaces a burst of requests evenly at the configured rate', async () => {
    const t = fakeTime()
    const pacer = createRequestPacer({ perSecond: 5, clock: t.clock, sleep: t.sleep })
    await Promise.all([pacer.acquire(), pacer.acquire(), pacer.acquire(), pacer.acquire()])
    assert.deepEqual(t.slept, [200, 400, 600])
  })

  it('lets a request through at once after an idle spell, and only waits out the rest of a slot', async () => {
    const t = fakeTime()
    const pacer = createRequestPacer({ perSecond: 4, clock: t.clock, sleep: t.sleep })
    await pacer.acquire()
    t.advance(1_000)
    await pacer.acquire()
    t.advance(100)
    await pacer.acquire()
    assert.deepEqual(t.slept, [150])
  })

  it('refuses a rate that is not positive', () => {
    const t = fakeTime()
    assert.throws(() => createRequestPacer({ perSecond: 0, clock: t.clock, sleep: t.sleep }), RangeError)
  })
})
