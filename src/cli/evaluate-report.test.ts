// evaluate's text report: the tail table gains the model against the oracle (expected wins, not a
// count) when the sandbox's referee is given, and shows no such column without it.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { evaluateReadings } from '../domain/evaluation.ts'
import type { GradedReading } from '../domain/graded-reading.ts'
import { formatEvaluation } from './evaluate-report.ts'

const OPEN = Date.parse('2026-11-23T10:00:00Z')

/** A reading claiming P(up) 1 % that did not come in. */
const longShot = (ticker: string): GradedReading => ({
  ticker,
  minute: 12,
  raisedAt: OPEN + 12 * 60_000,
  side: 'down',
  confidence: 99,
  entryPriceCents: 98,
  edgeCents: 1,
  outcome: 'win',
  modelVersion: 'm.1',
  opensAt: OPEN,
  expiresAt: OPEN + 15 * 60_000,
  settledSide: 'down',
  inputs: null,
})

describe('the evaluate report', () => {
  it("prints the oracle's expected long-shot wins beside the outcomes' count", () => {
    const readings = [longShot('A'), longShot('B')]
    const text = formatEvaluation(evaluateReadings({ series: 'S', readings, oracle: () => 0.015 }))
    assert.match(text, /model vs oracle/)
    // two readings claiming 1 % each: 0.02 claimed; the outcomes 0 wins, the oracle 0.03 expected
    const row = text.split('\n').find((l) => l.startsWith('0.5–2 %')) as string
    assert.match(row, /2 · 0\.02 → 0 \(0\.00 ± 0\.00\)/)
    assert.match(row, /2 · 0\.02 → 0\.03 \(1\.50 ± /)
    assert.doesNotMatch(formatEvaluation(evaluateReadings({ series: 'S', readings })), /model vs oracle/)
  })

  it('says a void contest is not in the count, so the count is not read as every reading raised', () => {
    const text = formatEvaluation(evaluateReadings({ series: 'S', readings: [longShot('A'), longShot('B')] }))
    assert.match(
      text,
      /^graded readings 2 in 2 contests over 1 UTC days \(a void contest's readings .*not counted\)$/m,
    )
  })
})

describe('the walk-forward line (--train-until)', () => {
  /** A reading at `minute` of the contest opening at `opensAt`, with a two-sided book. */
  const reading = (
    ticker: string,
    opensAt: number,
    minute: number,
    settledSide: 'up' | 'down',
  ): GradedReading => ({
    ...longShot(ticker),
    minute,
    raisedAt: opensAt + minute * 60_000,
    side: 'up',
    confidence: 60,
    outcome: settledSide === 'up' ? 'win' : 'loss',
    opensAt,
    expiresAt: opensAt + 15 * 60_000,
    settledSide,
    inputs: {
      spotObservedAt: opensAt + minute * 60_000,
      bookObservedAt: opensAt + minute * 60_000,
      spotDollars: 100_000,
      freshSources: 2,
      upAskCents: 61,
      downAskCents: 41,
      sigmaPerMinute: 0.0005,
      effectiveMinutes: 15 - minute,
      probabilityUp: 0.6,
      modelAloneUp: 0.6,
    },
  })

  it('says which readings train and which are judged, a contest open at T in neither before T', () => {
    const t = OPEN + 7 * 60_000 // inside the contest opening at OPEN
    const readings = [
      reading('W', OPEN - 15 * 60_000, 3, 'up'), // expired by T: trains
      reading('W', OPEN - 15 * 60_000, 10, 'up'),
      reading('X', OPEN, 3, 'down'), // raised before T of a contest open at T: neither
      reading('X', OPEN, 10, 'down'), // raised after T: judged
    ]
    const report = evaluateReadings({ series: 'S', readings, trainUntil: t })
    assert.equal(report.recalibration?.readings, 2)
    assert.equal(report.overall.readings, 1)
    const text = formatEvaluation(report)
    assert.match(
      text,
      /^walk-forward: judged readings raised at or after 2026-11-23T10:07:00\.000Z; the recalibrated mid is fitted on the readings of contests expired by then \(a contest open at that instant: its earlier readings neither train nor are judged\)$/m,
    )
  })
})

describe('calibration without a logistic fit', () => {
  it('says why there is no slope, and keeps the ECE, which exists whatever the outcomes', () => {
    // three contests all settled down: the fit of the outcome on logit p has no maximum
    const readings = ['A', 'B', 'C'].map(longShot)
    const text = formatEvaluation(evaluateReadings({ series: 'S', readings }))
    const line = text.split('\n').find((l) => /^model +calibration/.test(l)) as string
    // P(up) 0.01 each, none came in: |0.01 − 0| in the one bin
    assert.match(
      line,
      /calibration: no logistic fit \(too few readings, the outcomes all one side, or p separates them\), ECE 0\.0100$/,
    )
    // nothing scored at all is a plain dash
    const empty = formatEvaluation(evaluateReadings({ series: 'S', readings: [] }))
    assert.match(empty, /^model +calibration: –$/m)
  })
})
