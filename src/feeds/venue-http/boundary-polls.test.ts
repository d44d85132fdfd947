import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type BoundaryWatch, NO_BOUNDARY, nextPoll } from './boundary-polls.ts'

const watch = (boundaries: number[], lagging = false): BoundaryWatch => ({
  nextBoundary: (after) => boundaries.filter((b) => b > after).sort((a, b) => a - b)[0] ?? null,
  lagging: () => lagging,
})
const POLL = 5_000

describe('nextPoll', () => {
  it('polls every pollMs when no boundary comes sooner', () => {
    assert.deepEqual(
      nextPoll({ began: 0, now: 100, pollMs: POLL, watch: watch([60_000]), state: NO_BOUNDARY }),
      {
        at: 5_000,
        state: NO_BOUNDARY,
      },
    )
  })

  it('polls 250 ms after a boundary that comes before the regular poll, then may re-poll', () => {
    assert.deepEqual(
      nextPoll({ began: 0, now: 100, pollMs: POLL, watch: watch([2_000]), state: NO_BOUNDARY }),
      {
        at: 2_250,
        state: { retriesUsed: 0 },
      },
    )
  })

  it('polls the boundary again when the last poll began before its margin was over', () => {
    // a regular poll 100 ms after the boundary may predate the venue's own change
    const next = nextPoll({
      began: 2_100,
      now: 2_150,
      pollMs: POLL,
      watch: watch([2_000]),
      state: NO_BOUNDARY,
    })
    assert.equal(next.at, 2_250)
    // the boundary poll itself covers it
    assert.equal(
      nextPoll({ began: 2_250, now: 2_300, pollMs: POLL, watch: watch([2_000]), state: NO_BOUNDARY }).at,
      7_250,
    )
  })

  it('re-polls a lagging venue after 0.5, 1 and 2 s, then only every pollMs', () => {
    const lag = watch([], true)
    let state = { retriesUsed: 0 as number | null }
    const waits: number[] = []
    for (let began = 0, i = 0; i < 5; i++) {
      const next = nextPoll({ began, now: began, pollMs: POLL, watch: lag, state })
      waits.push(next.at - began)
      began = next.at
      state = next.state
    }
    assert.deepEqual(waits, [500, 1_000, 2_000, 5_000, 5_000])
  })

  it('stops re-polling once the venue shows the market open', () => {
    const next = nextPoll({
      began: 0,
      now: 0,
      pollMs: POLL,
      watch: watch([], false),
      state: { retriesUsed: 1 },
    })
    assert.deepEqual(next, { at: 5_000, state: NO_BOUNDARY })
  })
})
