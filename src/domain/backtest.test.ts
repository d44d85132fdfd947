import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  type BacktestContest,
  type BacktestSignal,
  calibrationTable,
  clusteredWilsonInterval,
  runBacktest,
  signalProfitCents,
  summarize,
  thresholdGrid,
  wilsonInterval,
  Z95,
} from './backtest.ts'

// A small history worked out by hand. Series S, three settled contests plus distractors.
//
//   contest  expires  signal  side  conf  entry  edge  outcome  profit (one contract)
//   C1       T1       a       up    80    60     20    win      100 − 60 = +40
//   C1       T1       b       up    70    65      5    loss           − 65
//   C2       T2       c       down  60    55      5    win      100 − 55 = +45
//   C2       T2       d       down  90    80     10    win      100 − 80 = +20
//   C3       T3       e       up    75    50     25    void               0
//
//   C4: another series (a win that must not count); C5: a live contest of S (a pending signal).
const T1 = Date.UTC(2026, 10, 22, 12, 0)
const T2 = Date.UTC(2026, 10, 22, 12, 15)
const T3 = Date.UTC(2026, 10, 22, 12, 30)

const sig = (
  ticker: string,
  side: 'up' | 'down',
  confidence: number,
  entryPriceCents: number,
  outcome: BacktestSignal['outcome'],
): BacktestSignal => ({
  ticker,
  side,
  confidence,
  entryPriceCents,
  edgeCents: confidence - entryPriceCents,
  outcome,
})

const a = sig('C1', 'up', 80, 60, 'win')
const b = sig('C1', 'up', 70, 65, 'loss')
const c = sig('C2', 'down', 60, 55, 'win')
const d = sig('C2', 'down', 90, 80, 'win')
const e = sig('C3', 'up', 75, 50, 'void')

const history: BacktestContest[] = [
  { series: 'S', state: 'settled', expiresAt: T1, signals: [a, b] },
  { series: 'S', state: 'settled', expiresAt: T2, signals: [c, d] },
  { series: 'S', state: 'settled', expiresAt: T3, signals: [e] },
  { series: 'OTHER', state: 'settled', expiresAt: T2, signals: [sig('C4', 'up', 99, 1, 'win')] },
  { series: 'S', state: 'live', expiresAt: T3 + 900_000, signals: [sig('C5', 'up', 95, 10, 'pending')] },
]

const close = (actual: number | null | undefined, expected: number, digits = 9) => {
  assert.ok(actual !== null && actual !== undefined, `expected ${expected}, got ${actual}`)
  assert.ok(Math.abs(actual - expected) < 10 ** -digits, `expected ${expected}, got ${actual}`)
}

describe('wilsonInterval', () => {
  test('3 wins out of 4 at 95 %', () => {
    // z = 1.959964, z² = 3.841459, n = 4, p = 0.75
    // denominator = 1 + z²/n = 1.960365
    // centre = (p + z²/2n) / denominator = (0.75 + 0.480182) / 1.960365 = 0.627527
    // half = z/denominator · √(p(1−p)/n + z²/4n²) = 0.999796 · √(0.046875 + 0.060023) = 0.326885
    // → [0.300642, 0.954413]
    const i = wilsonInterval(3, 4)!
    close(i.low, 0.300642, 6)
    close(i.high, 0.954413, 6)
  })

  test('all wins: the upper end is 1 and the lower end well below', () => {
    // n = 2, p = 1: centre = (1 + z²/4) / (1 + z²/2) = 1.960365 / 2.920729 = 0.671190
    // half = (z / 2.920729) · (z / 4) = 0.671052 · 0.489991 = 0.328810 → [0.342380, 1]
    const i = wilsonInterval(2, 2)!
    close(i.low, 0.34238, 5)
    close(i.high, 1)
  })

  test('no trial has no interval', () => {
    assert.equal(wilsonInterval(0, 0), null)
    assert.equal(Z95.toFixed(6), '1.959964')
  })
})

describe('signalProfitCents', () => {
  test('a win pays 100 − entry, a loss costs entry, a void is refunded', () => {
    assert.equal(signalProfitCents(a), 40)
    assert.equal(signalProfitCents(b), -65)
    assert.equal(signalProfitCents(e), 0)
  })
})

describe('runBacktest', () => {
  test('the whole series: counts, win rate and its interval, entry, profit and Brier score', () => {
    const r = runBacktest(history, { series: 'S' })
    assert.equal(r.contests, 3) // the live contest and the other series are left out
    assert.deepEqual([r.signals, r.wins, r.losses, r.voids], [5, 3, 1, 1])
    close(r.winRate, 0.75) // 3 / (3 + 1): voids are not graded
    // clustered by contest: C1 has 1 win of 2, C2 2 of 2; residuals 1 − .75·2 = −.5 and 2 − 1.5 = .5,
    // variance 2/1 · (.25 + .25) / 4² = .0625, so .75·.25 / .0625 = 3 effective trials (not 4)
    const wilson3 = wilsonInterval(2.25, 3)!
    close(r.winRateInterval!.low, wilson3.low)
    close(r.winRateInterval!.high, wilson3.high)
    close(r.averageEntryCents, 62) // (60 + 65 + 55 + 80 + 50) / 5 = 310 / 5
    close(r.averageEdgeCents, 13) // (20 + 5 + 5 + 10 + 25) / 5 = 65 / 5
    assert.equal(r.totalProfitCents, 40) // 40 − 65 + 45 + 20 + 0
    close(r.profitPerContractCents, 8) // 40 / 5 contracts (the void one refunded)
    // Brier over graded signals: (0.8−1)² + (0.7−0)² + (0.6−1)² + (0.9−1)² = 0.04 + 0.49 + 0.16 + 0.01
    // = 0.70, / 4 = 0.175
    close(r.brierScore, 0.175)
    // taker fee of one contract, ceil(7·p·(1 − p)) cents: 60 → 1.68, 65 → 1.5925, 55 → 1.7325, 80 → 1.12,
    // each 2 ¢; the void's is refunded
    assert.equal(r.totalFeeCents, 8)
    assert.equal(r.totalProfitAfterFeeCents, 32)
    close(r.profitPerContractAfterFeeCents, 6.4)
    // claimed edge 13 (above) against realised: (40 − 65 + 45 + 20) / 4 graded = 10
    close(r.realisedEdgeCents, 10)
    // profit per contract clustered: values 40, −65 | 45, 20 | 0, mean 8; residual sums −41, 49, −8;
    // SE = √(3/2 · (41² + 49² + 8²) / 5²) = √(3/2 · 4146 / 25) = 15.7718
    const se = Math.sqrt((1.5 * (41 ** 2 + 49 ** 2 + 8 ** 2)) / 25)
    close(r.profitInterval!.low, 8 - Z95 * se)
    close(r.profitInterval!.high, 8 + Z95 * se)
  })

  test('the calibration table buckets graded signals by confidence, voids left out', () => {
    const rows = runBacktest(history, { series: 'S' }).calibration.filter((row) => row.signals > 0)
    assert.deepEqual(
      rows.map((row) => [row.from, row.to, row.signals, row.wins, row.meanConfidence, row.winRate]),
      [
        [60, 70, 1, 1, 60, 1], // c
        [70, 80, 1, 0, 70, 0], // b (e, at 75, is void)
        [80, 90, 1, 1, 80, 1], // a
        [90, 100, 1, 1, 90, 1], // d
      ],
    )
    // one signal each, so one contest each: the plain Wilson interval.
    // one win out of one: centre = (1 + z²/2) / (1 + z²) = 2.920729 / 4.841459 = 0.603275,
    // half = (z / 4.841459) · (z / 2) = 0.404826 · 0.979982 = 0.396725 → [0.206549, 1]
    close(rows[0]!.winRateInterval!.low, 0.206549, 6)
    close(rows[0]!.winRateInterval!.high, 1)
    // no win out of one: the mirror image → [0, 0.793451]
    close(rows[1]!.winRateInterval!.low, 0)
    close(rows[1]!.winRateInterval!.high, 0.793451, 6)
  })

  test('a minimum confidence keeps a, b, d and the void e', () => {
    const r = runBacktest(history, { series: 'S', minConfidence: 70 })
    assert.deepEqual([r.signals, r.wins, r.losses, r.voids], [4, 2, 1, 1])
    close(r.winRate, 2 / 3)
    assert.equal(r.totalProfitCents, -5) // 40 − 65 + 20 + 0
    close(r.profitPerContractCents, -1.25) // −5 / 4
    // (0.04 + 0.49 + 0.01) / 3 = 0.18
    close(r.brierScore, 0.18)
  })

  test('a minimum edge keeps a (20), d (10) and e (25)', () => {
    const r = runBacktest(history, { series: 'S', minEdge: 10 })
    assert.deepEqual([r.signals, r.wins, r.losses, r.voids], [3, 2, 0, 1])
    close(r.winRate, 1)
    // 2 of 2 in two contests: no spread, so each contest is one trial (as Wilson on 2 of 2)
    close(r.winRateInterval!.low, wilsonInterval(2, 2)!.low)
    assert.equal(r.totalProfitCents, 60) // 40 + 20 + 0
    close(r.profitPerContractCents, 20)
  })

  test('a side keeps only that side', () => {
    const r = runBacktest(history, { series: 'S', side: 'down' })
    assert.deepEqual([r.signals, r.wins], [2, 2])
    assert.equal(r.totalProfitCents, 65) // 45 + 20
    close(r.averageEntryCents, 67.5) // (55 + 80) / 2
  })

  test('the time window applies to expiresAt, both bounds inclusive', () => {
    const r = runBacktest(history, { series: 'S', since: T2, before: T3 })
    assert.equal(r.contests, 2)
    assert.deepEqual([r.signals, r.wins, r.voids], [3, 2, 1]) // c, d, e
    assert.equal(runBacktest(history, { series: 'S', before: T1 }).signals, 2) // a, b
  })

  test('nothing passing the filter gives counts of zero and null rates', () => {
    const r = runBacktest(history, { series: 'S', minConfidence: 99 })
    assert.equal(r.signals, 0)
    assert.equal(r.winRate, null)
    assert.equal(r.winRateInterval, null)
    assert.equal(r.brierScore, null)
    assert.equal(r.profitPerContractCents, null)
    assert.equal(r.totalProfitCents, 0)
  })
})

describe('thresholdGrid', () => {
  test('one cell per confidence × edge threshold, each the same as a backtest with those thresholds', () => {
    const cells = thresholdGrid(history, { series: 'S' }, { confidences: [null, 70], edges: [null, 10] })
    assert.deepEqual(
      cells.map((x) => [x.minConfidence, x.minEdge, x.signals, x.totalProfitCents]),
      [
        [null, null, 5, 40],
        [null, 10, 3, 60], // a, d, e
        [70, null, 4, -5], // a, b, d, e
        [70, 10, 3, 60], // a, d, e
      ],
    )
    for (const cell of cells) {
      const r = runBacktest(history, {
        series: 'S',
        ...(cell.minConfidence === null ? {} : { minConfidence: cell.minConfidence }),
        ...(cell.minEdge === null ? {} : { minEdge: cell.minEdge }),
      })
      assert.equal(cell.winRate, r.winRate)
      assert.equal(cell.profitPerContractCents, r.profitPerContractCents)
    }
  })
})

describe('summarize and calibrationTable on their own', () => {
  test('take any list of graded signals', () => {
    assert.equal(summarize([a, c]).totalProfitCents, 85)
    assert.equal(calibrationTable([a], 25).length, 4)
    assert.deepEqual(
      calibrationTable([sig('C6', 'up', 100, 90, 'win')]).at(-1)!.signals,
      1, // confidence 100 falls in the last, closed bucket
    )
  })
})

describe('the fee and the edges a backtest prints', () => {
  test('a sub-cent Kalshi entry pays what the venue debits: cost + fee rounded up to the cent, no more', () => {
    const s = summarize([
      sig('KXBTC15M-26OCT011200-00', 'up', 99, 97.5, 'win'), // pays 98 ¢ (97.5 + 0.17 fee), gets 100
      sig('KXBTC15M-26OCT011215-15', 'down', 99.5, 0.4, 'loss'), // pays 1 ¢ (0.4 + 0.03 fee), gets 0
    ])
    close(s.totalFeeCents, 1.1) // 0.5 + 0.6, not 1 + 1
    close(s.totalProfitAfterFeeCents, 1) // (100 − 98) + (0 − 1)
    close(s.profitPerContractAfterFeeCents, 0.5)
  })

  test('the claimed edge is over the same graded signals as the realised one (a void claims nothing tested)', () => {
    const r = runBacktest(history, { series: 'S' })
    close(r.claimedEdgeCents, 10) // a, b, c, d: (20 + 5 + 5 + 10) / 4, not e's 25 as well
    close(r.realisedEdgeCents, 10)
    close(r.averageEdgeCents, 13) // every passing signal, the void included
  })
})

describe('clustered intervals', () => {
  test('signals of one contest count as fewer trials than independent ones', () => {
    // 4 wins and 4 losses: in 8 contests, the plain Wilson interval; in 4 contests of 2 alike, wider
    const apart = clusteredWilsonInterval(
      Array.from({ length: 8 }, (_, i) => ({ cluster: `c${i}`, success: i % 2 === 0 })),
    )!
    const paired = clusteredWilsonInterval(
      Array.from({ length: 8 }, (_, i) => ({ cluster: `c${Math.floor(i / 2)}`, success: i < 4 })),
    )!
    // apart: residuals ±.5 over 8 contests, variance 8/7 · 8·.25 / 64; effective .25 / that = 7 trials
    const seven = wilsonInterval(3.5, 7)!
    close(apart.low, seven.low)
    // paired: residuals ±1 over 4 contests, variance 4/3 · 4 / 64 = 1/12; effective trials 3
    const three = wilsonInterval(1.5, 3)!
    close(paired.low, three.low)
    assert.ok(paired.high - paired.low > apart.high - apart.low)
  })
})
