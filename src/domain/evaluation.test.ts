// evaluate's arithmetic against a small fixture worked out by hand (decisions §13).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Side } from './contest.ts'
import {
  calibrationFit,
  clusteredMean,
  evaluateReadings,
  expectedCalibrationError,
  minutesLeftOf,
} from './evaluation.ts'
import type { GradedReading } from './graded-reading.ts'

const OPEN = Date.parse('2026-11-23T10:00:00Z')
const close = (a: number, b: number, tol = 1e-6) => Math.abs(a - b) < tol

function reading(
  ticker: string,
  minute: number,
  pUp: number,
  settled: Side,
  asks: [number | null, number | null] | null,
): GradedReading {
  const side: Side = pUp >= 0.5 ? 'up' : 'down'
  return {
    ticker,
    minute,
    raisedAt: OPEN + minute * 60_000 + 300,
    side,
    confidence: Math.round((side === 'up' ? pUp : 1 - pUp) * 10_000) / 100,
    entryPriceCents: 50,
    edgeCents: 0,
    outcome: side === settled ? 'win' : 'loss',
    modelVersion: 'm.1',
    opensAt: OPEN,
    expiresAt: OPEN + 15 * 60_000,
    settledSide: settled,
    inputs: asks
      ? {
          spotObservedAt: OPEN + minute * 60_000 + 200,
          bookObservedAt: OPEN + minute * 60_000 + 250,
          spotDollars: 100_000,
          freshSources: 3,
          upAskCents: asks[0],
          downAskCents: asks[1],
          sigmaPerMinute: 0.0006,
          effectiveMinutes: 10,
          probabilityUp: pUp,
          modelAloneUp: null,
        }
      : null,
  }
}

// Three contests: A settles up with readings at P(up) 0.8 and 0.6, B down at 0.3, C up at 0.5.
// Asks give mids (75 + 100 − 27)/200 = 0.74, (58 + 100 − 44)/200 = 0.57, (35 + 100 − 67)/200 = 0.34;
// C's book is one-sided, so it has no mid.
const fixture: GradedReading[] = [
  reading('A', 1, 0.8, 'up', [75, 27]),
  reading('A', 13, 0.6, 'up', [58, 44]),
  reading('B', 13, 0.3, 'down', [35, 67]),
  reading('C', 14, 0.5, 'up', [52, null]),
]

describe('evaluate', () => {
  it('scores log loss and Brier with standard errors clustered by contest', () => {
    const r = evaluateReadings({ series: 'S', readings: fixture })
    // log losses −ln .8, −ln .6, −ln .7, −ln .5 = .22314, .51083, .35667, .69315: mean .44595;
    // residual sums per contest A −.15793, B −.08927, C .24720; SE = √(3/2 · Σ² / 4²) = .09388
    assert.ok(close(r.overall.model.logLoss.value, 0.4459478))
    assert.ok(close(r.overall.model.logLoss.se as number, 0.0938839))
    // Brier .04, .16, .09, .25: mean .135; residual sums −.07, −.045, .115; SE = √(1.5 · .02015 / 16)
    assert.ok(close(r.overall.model.brier.value, 0.135))
    assert.ok(close(r.overall.model.brier.se as number, Math.sqrt((1.5 * 0.02015) / 16)))
    assert.equal(r.overall.readings, 4)
    assert.equal(r.overall.contests, 3)
    assert.deepEqual(r.modelVersions, ['m.1'])
  })

  it('pairs the model with the venue mid on the readings that have one', () => {
    const r = evaluateReadings({ series: 'S', readings: fixture })
    const mid = r.overall.mid
    assert.ok(mid)
    assert.equal(mid.readings, 3)
    // differences −ln .8 + ln .74, −ln .6 + ln .57, −ln .7 + ln .66: mean −.062698; two contests,
    // residual sums ∓.003858, SE = √(2 · 2 · .003858² / 3²) = .002572
    assert.ok(close(mid.difference.logLoss.value, -0.0626984))
    assert.ok(close(mid.difference.logLoss.se as number, 0.002572, 1e-6))
    assert.ok(close(mid.logLoss.value, -(Math.log(0.74) + Math.log(0.57) + Math.log(0.66)) / 3))
  })

  it('groups by minutes left and by the card buckets', () => {
    const r = evaluateReadings({ series: 'S', readings: fixture })
    assert.deepEqual(
      r.byMinutesLeft.map((g) => [g.label, g.readings]),
      [
        ['1', 1],
        ['2', 2],
        ['14', 1],
      ],
    )
    assert.deepEqual(
      r.byBucket.map((g) => [g.label, g.readings]),
      [
        ['1–2', 3],
        ['3–7', 0],
        ['8–14', 1],
      ],
    )
    assert.equal(minutesLeftOf(fixture[0] as GradedReading), 14)
    assert.deepEqual(r.lateness, { raisedMs: 300, spotObservedMs: 200 })
  })

  it('reports the oracle and the share of the gap to it the model closes', () => {
    // an oracle that knew: 0.9 on every up, 0.1 on every down
    const r = evaluateReadings({
      series: 'S',
      readings: fixture,
      oracle: (x) => (x.settledSide === 'up' ? 0.9 : 0.1),
    })
    assert.ok(r.overall.oracle)
    // on the three readings with a mid: mid .42626, model .36354, oracle −ln .9 = .10536
    const lmid = -(Math.log(0.74) + Math.log(0.57) + Math.log(0.66)) / 3
    const lm = -(Math.log(0.8) + Math.log(0.6) + Math.log(0.7)) / 3
    const lo = -Math.log(0.9)
    assert.ok(close(r.gapClosed as number, (lmid - lm) / (lmid - lo)))
  })

  it("puts the oracle's probability in the outcome's place for a tail table without the paths' luck", () => {
    // X claims up at 1 % where the oracle says 2 %; Y claims down at 3 % where the oracle says 6 %;
    // neither long shot came in, so the outcomes' table says 0 where the oracle's says 2 × the claim
    const tails = [reading('X', 12, 0.01, 'down', [2, 99]), reading('Y', 12, 0.97, 'up', [98, 4])]
    const r = evaluateReadings({
      series: 'S',
      readings: tails,
      oracle: (x) => (x.ticker === 'X' ? 0.02 : 0.94),
    })
    const row = (rows: typeof r.tails.model | null, label: string) => rows?.find((t) => t.label === label)
    for (const label of ['0.5–2 %', '95–98 %']) {
      assert.equal(row(r.tails.model, label)?.realised, 0)
      const against = row(r.tails.modelAgainstOracle, label)
      assert.equal(against?.readings, 1)
      assert.ok(close(against?.ratio as number, 2), `${label}: ${against?.ratio}`)
    }
    assert.equal(evaluateReadings({ series: 'S', readings: tails }).tails.modelAgainstOracle, null)
  })
})

describe('calibration', () => {
  it('fits slope and intercept that reproduce the frequencies of two probability groups', () => {
    // p = .8 five times with 3 ups, p = .2 five times with 1 up: the fit passes through .6 and .2,
    // b = (logit .6 − logit .2) / (logit .8 − logit .2), a = logit .6 − b · logit .8
    const pts = [
      ...[1, 1, 1, 0, 0].map((y, i) => ({ contest: `h${i}`, y, p: 0.8 })),
      ...[1, 0, 0, 0, 0].map((y, i) => ({ contest: `l${i}`, y, p: 0.2 })),
    ]
    const logit = (p: number) => Math.log(p / (1 - p))
    const b = (logit(0.6) - logit(0.2)) / (logit(0.8) - logit(0.2))
    const fit = calibrationFit(pts)
    assert.ok(fit)
    assert.ok(close(fit.slope.value, b, 1e-8))
    assert.ok(close(fit.intercept.value, logit(0.6) - b * logit(0.8), 1e-8))
    assert.ok((fit.slope.se as number) > 0)
    // ECE: half the readings are off by .2, the other half by 0
    assert.ok(close(expectedCalibrationError(pts), 0.1, 1e-12))
    assert.equal(calibrationFit(pts.map((p) => ({ ...p, y: 1 }))), null)
  })

  it('clusters: a contest read twice with one outcome has a wider SE than two independent ones', () => {
    const values = [1, 1, 0, 0]
    const shared = clusteredMean(values, ['a', 'a', 'b', 'b'])
    const apart = clusteredMean(values, ['a', 'b', 'c', 'd'])
    assert.equal(shared.value, 0.5)
    // shared: sums ±1, SE = √(2 · 2 / 16) = .5; apart: sums ±.5, SE = √(4/3 · 1 / 16)
    assert.ok(close(shared.se as number, 0.5, 1e-12))
    assert.ok(close(apart.se as number, Math.sqrt(4 / 3 / 16), 1e-12))
  })
})
