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
})
