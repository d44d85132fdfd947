import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { livenessOf, pollEvery } from './poll-loop.ts'

describe('livenessOf', () => {
  it('is ok until the venue has been silent for over the limit, counted from the start when it never answered', () => {
    assert.equal(livenessOf(1_000, 500, 0, 60_000), 'ok')
    assert.equal(livenessOf(60_501, 500, 0, 60_000), 'down')
    assert.equal(livenessOf(60_000, null, 0, 60_000), 'ok')
    assert.equal(livenessOf(60_001, null, 0, 60_000), 'down')
    assert.equal(livenessOf(5, null, null, 60_000), 'ok', 'not started: nothing to judge')
  })
})

describe('pollEvery', () => {
  it('polls one after another until aborted, never two at once', async () => {
    const stop = new AbortController()
    let running = 0
    let polls = 0
    await pollEvery({
      clock: { now: () => Date.now() },
      pollMs: 1,
      firstPollAt: Date.now(),
      signal: stop.signal,
      async poll() {
        running++
        assert.equal(running, 1)
        polls++
        if (polls === 3) stop.abort()
        running--
      },
    })
    assert.equal(polls, 3)
  })

  it('returns at once when already aborted', async () => {
    let polls = 0
    await pollEvery({
      clock: { now: () => 0 },
      pollMs: 60_000,
      firstPollAt: 0,
      signal: AbortSignal.abort(),
      poll: async () => {
        polls++
      },
    })
    assert.equal(polls, 0)
  })
})
