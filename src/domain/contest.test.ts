import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  CONTEST_MS,
  type Contest,
  gradeSignal,
  minuteOfContest,
  round2,
  type Signal,
  settleContest,
  sideForPrice,
} from './contest.ts'

const OPENS = Date.UTC(2026, 10, 22, 14, 0, 0)

function signal(minute: number, side: Signal['side']): Signal {
  return {
    ticker: 'T',
    minute,
    raisedAt: OPENS + minute * 60_000,
    side,
    confidence: 55,
    entryPriceCents: 50,
    edgeCents: 5,
    outcome: 'pending',
    modelVersion: 'gbm-ewma-1',
  }
}

function contest(signals: Signal[]): Contest {
  return {
    ticker: 'T',
    series: 'S',
    state: 'expired',
    opensAt: OPENS,
    expiresAt: OPENS + CONTEST_MS,
    strikePriceDollars: 100_000,
    settledSide: null,
    settledPriceDollars: null,
    voided: false,
    venue: null,
    signals,
  }
}

describe('settlement side', () => {
  it('is up at or above the strike (a tie goes up) and down below it', () => {
    assert.equal(sideForPrice(100_000.01, 100_000), 'up')
    assert.equal(sideForPrice(100_000, 100_000), 'up')
    assert.equal(sideForPrice(99_999.99, 100_000), 'down')
  })
})

describe('grading', () => {
  it('is win when the side matches the settled side, loss otherwise', () => {
    const settled = { kind: 'settled' as const, side: 'up' as const, priceDollars: 1 }
    assert.equal(gradeSignal(signal(1, 'up'), settled), 'win')
    assert.equal(gradeSignal(signal(1, 'down'), settled), 'loss')
  })

  it('is void for every signal of a void contest', () => {
    const voided = { kind: 'void' as const, priceDollars: null }
    assert.equal(gradeSignal(signal(1, 'up'), voided), 'void')
    assert.equal(gradeSignal(signal(2, 'down'), voided), 'void')
  })
})

describe('settleContest', () => {
  it('settles and grades every signal at once, consistently with settled_side', () => {
    const c = settleContest(contest([signal(1, 'up'), signal(2, 'down')]), {
      kind: 'settled',
      side: 'down',
      priceDollars: 99_000,
    })
    assert.equal(c.state, 'settled')
    assert.equal(c.settledSide, 'down')
    assert.equal(c.settledPriceDollars, 99_000)
    assert.deepEqual(
      c.signals.map((s) => s.outcome),
      ['loss', 'win'],
    )
  })

  it('records a void contest as settled with no side and void signals', () => {
    const c = settleContest(contest([signal(1, 'up')]), { kind: 'void', priceDollars: null })
    assert.equal(c.state, 'settled')
    assert.equal(c.settledSide, null)
    assert.equal(c.voided, true)
    assert.equal(c.signals[0]!.outcome, 'void')
  })

  it('keeps a missing oracle price as null', () => {
    const c = settleContest(contest([]), { kind: 'settled', side: 'up', priceDollars: null })
    assert.equal(c.settledPriceDollars, null)
    assert.equal(c.settledSide, 'up')
  })

  it('never changes an already settled contest', () => {
    const once = settleContest(contest([signal(1, 'up')]), { kind: 'settled', side: 'up', priceDollars: 1 })
    const twice = settleContest(once, { kind: 'settled', side: 'down', priceDollars: 2 })
    assert.equal(twice, once)
    assert.equal(twice.signals[0]!.outcome, 'win')
  })
})

describe('minuteOfContest', () => {
  it('counts whole minutes from the open and is null outside the window', () => {
    const c = contest([])
    assert.equal(minuteOfContest(c, OPENS - 1), null)
    assert.equal(minuteOfContest(c, OPENS), 0)
    assert.equal(minuteOfContest(c, OPENS + 60_000), 1)
    assert.equal(minuteOfContest(c, OPENS + 14 * 60_000 + 59_999), 14)
    assert.equal(minuteOfContest(c, OPENS + CONTEST_MS), null)
  })
})

describe('round2', () => {
  it('keeps at most two decimals', () => {
    assert.equal(round2(54.123), 54.12)
    assert.equal(round2(54.126), 54.13)
    assert.equal(round2(-3.335), -3.33)
  })
})
