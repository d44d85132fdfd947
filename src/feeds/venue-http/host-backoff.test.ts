// The host-wide backoff on a manual clock: a 429 or a run of 5xx pauses every request to the host,
// growing with the streak, never under Retry-After; a normal answer ends the streak.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createHostBackoff, hostPauseMs } from './host-backoff.ts'

function world() {
  let now = 1_000_000
  const slept: number[] = []
  const backoff = createHostBackoff({
    clock: { now: () => now },
    sleep: async (ms) => {
      slept.push(ms)
      now += ms
    },
    backoff: { baseMs: 100, capMs: 1_000 },
    random: () => 0.5,
    retryAfterCapMs: 60_000,
  })
  return { backoff, slept }
}

describe('host backoff', () => {
  it('pauses every caller after a 429, longer with each one in a row, until a normal answer', async () => {
    const { backoff, slept } = world()
    await backoff.wait()
    assert.deepEqual(slept, [], 'no pause before any overload')
    backoff.answered('429')
    await backoff.wait()
    await backoff.wait() // a second caller, after the pause: nothing more to wait
    backoff.answered('429')
    await backoff.wait()
    backoff.answered('429')
    await backoff.wait()
    assert.deepEqual(slept, [75, 150, 300])
    backoff.answered('200')
    backoff.answered('429')
    await backoff.wait()
    assert.deepEqual(slept.at(-1), 75, 'the streak ended with the normal answer')
  })

  it('takes a run of 5xx as an overload, not one; a timeout neither counts nor ends a streak', async () => {
    const { backoff, slept } = world()
    backoff.answered('503')
    backoff.answered('502')
    await backoff.wait()
    assert.deepEqual(slept, [])
    backoff.answered('500')
    await backoff.wait()
    assert.deepEqual(slept, [75])
    backoff.answered('timeout')
    backoff.answered('500')
    await backoff.wait()
    assert.deepEqual(slept, [75, 150])
  })

  it('never pauses less than Retry-After asks, up to its cap', () => {
    assert.equal(
      hostPauseMs(1, { baseMs: 100, capMs: 1_000 }, () => 0, 5_000),
      5_000,
    )
    assert.equal(
      hostPauseMs(1, { baseMs: 100, capMs: 1_000 }, () => 0, 500_000, 60_000),
      60_000,
    )
    assert.equal(
      hostPauseMs(9, { baseMs: 100, capMs: 1_000 }, () => 0.999),
      999,
    )
  })
})
