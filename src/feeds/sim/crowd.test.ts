// Tests of the sandbox crowd (issue 29): it estimates volatility from the past, never from the hidden
// state; it quotes late by its lag; each bias form does what its name says; one-sided books come
// only near the extremes; a stale book is the previous minute's.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { QUARTER_MS } from '../../domain/ticker.ts'
import { type CrowdContest, createCrowd } from './crowd.ts'
import { biasedProbability } from './crowd-bias.ts'
import { createPastVolatility } from './crowd-volatility.ts'
import { createIndexPath, type IndexPath } from './index-path.ts'
import { createSeededRandom } from './seeded-random.ts'
import { SIM_PARAMS, type SimParams, withParams } from './sim-params.ts'

const START = Date.parse('2026-10-05T12:00:00Z')
const contestAt = (index: IndexPath, opensAt: number, key: number): CrowdContest => {
  const end = Math.floor(opensAt / 1000)
  let sum = 0
  for (let s = end - 60; s < end; s++) sum += index.printCents(s)
  return { key, opensAt, expiresAt: opensAt + QUARTER_MS, strikeCents: Math.floor((sum + 30) / 60) }
}

/** The index with its hidden state behind a tripwire: reading it fails the test. */
function withoutHiddenState(index: IndexPath): IndexPath {
  return {
    ...index,
    state() {
      throw new Error('the crowd read the hidden volatility state')
    },
  }
}

describe('the sandbox crowd', () => {
  it('estimates volatility from past minute returns only, never the hidden state', () => {
    const index = createIndexPath(21, SIM_PARAMS)
    const blind = withoutHiddenState(index)
    const crowd = createCrowd(createSeededRandom(21), blind)
    for (let q = 0; q < 8; q++) {
      const c = contestAt(index, START + q * QUARTER_MS, q + 1)
      for (let t = c.opensAt; t < c.expiresAt; t += 41_000) {
        const mid = crowd.mid(c, t)
        assert.ok(mid > 0 && mid < 1)
      }
    }
    // the old, informed crowd reads it (so the tripwire can fire)
    const informed = createCrowd(createSeededRandom(21), blind, undefined, {
      ...SIM_PARAMS.crowd,
      volEstimator: 'true',
    })
    assert.throws(() => informed.mid(contestAt(index, START, 1), START + 60_000), /hidden volatility/)
  })

  it('tracks the realised volatility of the recent past, not the current state', () => {
    const index = createIndexPath(22, SIM_PARAMS)
    const past = createPastVolatility(index, 60)
    const k = index.minuteOf(START)
    // a direct EWMA of the de-seasonalised squared minute returns before k
    const keep = 2 ** (-1 / 60)
    let v = 1
    for (let j = k - 600; j < k; j++) {
      const r = (index.logAtMinute(j + 1) - index.logAtMinute(j)) / (6.1e-4 * index.seasonal(j))
      v = keep * v + (1 - keep) * r * r
    }
    assert.ok(Math.abs(past.levelBefore(k) - Math.sqrt(v)) < 1e-9)
    // the next minute's estimate follows by the recursion, whatever minute k's hidden state is
    const r = (index.logAtMinute(k + 1) - index.logAtMinute(k)) / (6.1e-4 * index.seasonal(k))
    assert.ok(Math.abs(past.levelBefore(k + 1) ** 2 - (keep * v + (1 - keep) * r * r)) < 1e-9)
  })

  it('estimates the same at every minute whatever was asked before: a seed fixes its quotes', () => {
    // signals.md §3: any instant in any order. A process that walked the minutes up to k (a sim tape,
    // a long-running engine) and one asked about k alone (a restart, a backfill, a second engine)
    // must quote one book: the sim tape of seed 4242 once showed 94.1/5.6 where the simulator showed
    // 94.2/5.5 at the same instant
    const index = createIndexPath(24, SIM_PARAMS)
    const k = index.minuteOf(START)
    const walked = createPastVolatility(index, 60)
    for (let j = k - 2_000; j <= k + 700; j++) walked.levelBefore(j)
    for (const m of [k, k + 1, k + 599, k + 600, k + 601, k + 700]) {
      assert.equal(createPastVolatility(index, 60).levelBefore(m), walked.levelBefore(m), `minute ${m - k}`)
    }
    // and so the crowd's price: walked minute by minute, or asked cold
    const c = contestAt(index, START + 8 * QUARTER_MS, 9)
    const walkedCrowd = createCrowd(createSeededRandom(24), index)
    for (let t = c.opensAt - 12 * 3_600_000; t < c.opensAt; t += 60_000) walkedCrowd.mid(c, t)
    for (let t = c.opensAt; t < c.expiresAt; t += 60_000) {
      assert.equal(createCrowd(createSeededRandom(24), index).mid(c, t), walkedCrowd.mid(c, t))
    }
  })

  it('quotes late by its lag: its price now is the on-time price of lagSeconds ago', () => {
    const index = createIndexPath(23, SIM_PARAMS)
    const base = { ...SIM_PARAMS.crowd, staleQuoteRate: 0 }
    const late = createCrowd(createSeededRandom(23), index, undefined, { ...base, lagSeconds: 7 })
    const onTime = createCrowd(createSeededRandom(23), index, undefined, { ...base, lagSeconds: 0 })
    let differs = 0
    for (let q = 0; q < 4; q++) {
      const c = contestAt(index, START + q * QUARTER_MS, 5 + q)
      for (let minute = 1; minute < 14; minute++) {
        const t = c.opensAt + minute * 60_000 + 20_000
        assert.equal(late.mid(c, t), onTime.mid(c, t - 7_000))
        if (Math.abs(late.mid(c, t) - onTime.mid(c, t)) > 1e-4) differs++
      }
    }
    assert.ok(differs > 20, `${differs} of 52 minutes priced differently`)
  })

  it('has each bias form as named', () => {
    const c = SIM_PARAMS.crowd
    // log-odds linear: long shots dear, favourites cheap, YES a little dear at even odds
    const logit = { ...c, bias: 'logit' as const }
    assert.ok(biasedProbability(logit, 0.02, 0.5, 0) > 0.02)
    assert.ok(biasedProbability(logit, 0.98, 0.5, 0) < 0.98)
    assert.ok(biasedProbability(logit, 0.5, 0.5, 0) > 0.5)
    // shrink in probability toward 0.5: q = 0.9·q* + 0.05
    const shrink = { ...c, bias: 'shrink' as const, shrink: 0.1 }
    assert.ok(Math.abs(biasedProbability(shrink, 0.01, 0, 0) - 0.059) < 1e-12)
    assert.ok(Math.abs(biasedProbability(shrink, 0.7, 1, 0) - 0.68) < 1e-12)
    // a floor under long shots: nothing under 2 % or over 98 %, the middle untouched
    const floor = { ...c, bias: 'floor' as const, floor: 0.02 }
    assert.ok(Math.abs(biasedProbability(floor, 0.001, 0, 0) - 0.02) < 1e-12)
    assert.ok(Math.abs(biasedProbability(floor, 0.999, 0, 0) - 0.98) < 1e-12)
    assert.ok(Math.abs(biasedProbability(floor, 0.3, 0, 0) - 0.3) < 1e-12)
    // time-varying: the log-odds slope moves from γ at the open to γ_late at the close
    const drift = { ...c, bias: 'drift' as const, gamma: 1, gammaLate: 0.5, delta: 0 }
    assert.ok(Math.abs(biasedProbability(drift, 0.1, 0, 0) - 0.1) < 1e-12)
    assert.ok(Math.abs(biasedProbability(drift, 0.1, 1, 0) - 0.25) < 1e-12)
  })

  it('leaves a book one-sided only near the extremes: the long shot has no bids, the favourite no ask', () => {
    const params: SimParams = withParams({ crowd: { oneSidedBelow: 0.03 } })
    const index = createIndexPath(24, params)
    const crowd = createCrowd(createSeededRandom(24), index)
    let oneSided = 0
    let twoSided = 0
    for (let q = 0; q < 40; q++) {
      const c = contestAt(index, START + q * QUARTER_MS, 100 + q)
      for (let t = c.opensAt; t < c.expiresAt; t += 30_000) {
        const mid = crowd.mid(c, t)
        const book = crowd.book(c, t)
        const extreme = mid < 0.03 || mid > 0.97
        assert.equal(book.yes.length === 0, mid < 0.03, `YES bids at mid ${mid}`)
        assert.equal(book.no.length === 0, mid > 0.97, `NO bids at mid ${mid}`)
        if (extreme) oneSided++
        else twoSided++
      }
    }
    assert.ok(oneSided > 20 && twoSided > 200, `${oneSided} one-sided, ${twoSided} two-sided`)
  })

  it('opens a stale minute with the book of the previous minute, and only for staleQuoteMs', () => {
    const params: SimParams = withParams({ crowd: { staleQuoteRate: 1, staleQuoteMs: 20_000 } })
    const index = createIndexPath(25, params)
    const crowd = createCrowd(createSeededRandom(25), index)
    const c = contestAt(index, START, 9)
    for (let minute = 1; minute < 15; minute++) {
      const boundary = c.opensAt + minute * 60_000
      const previous = crowd.book(c, boundary - 1000)
      assert.deepEqual(crowd.book(c, boundary + 5_000), previous)
      assert.deepEqual(crowd.book(c, boundary + 19_000), previous)
      assert.notEqual(crowd.mid(c, boundary + 21_000), crowd.mid(c, boundary - 1000))
    }
  })
})
