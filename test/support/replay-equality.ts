// "Replay equals live" (decisions §12, issue 30): a contest the replay of a recording published must
// be the contest the live run published, field by field: the same state, window, strike and result,
// and the same signals, with the confidence equal to the hundredth and raised within a second (the
// replay raises at the tape's instants, the live engine when its tick ran). The observation instants
// in a signal's inputs carry the same second's slack; every other field is equal. Returns the figures the note reports.
import assert from 'node:assert/strict'
import type { Contest, Signal } from '../../src/domain/contest.ts'

export type EqualityFigures = {
  contests: number
  signals: number
  /** largest |live − replay| confidence, in percentage points */
  maxConfidenceDiff: number
  /** largest |live − replay| raised_at, ms */
  maxRaisedAtDiffMs: number
}

const SECOND = 1_000
const HUNDREDTH = 0.005

export function assertReplayEqualsLive(
  live: readonly Contest[],
  replayed: readonly Contest[],
): EqualityFigures {
  const figures: EqualityFigures = { contests: 0, signals: 0, maxConfidenceDiff: 0, maxRaisedAtDiffMs: 0 }
  assert.deepEqual(
    replayed.map((c) => c.ticker),
    live.map((c) => c.ticker),
    'the same contests',
  )
  for (const [i, a] of live.entries()) {
    const b = replayed[i]!
    const { signals: sa, ...restA } = a
    const { signals: sb, ...restB } = b
    assert.deepEqual(restB, restA, a.ticker)
    figures.contests++
    assert.deepEqual(
      sb.map((s) => s.minute),
      sa.map((s) => s.minute),
      `${a.ticker}: the same minutes read`,
    )
    for (const [j, x] of sa.entries()) {
      const y = sb[j]!
      const where = `${a.ticker} minute ${x.minute}`
      const confidence = Math.abs(y.confidence - x.confidence)
      const raised = Math.abs(y.raisedAt - x.raisedAt)
      assert.ok(confidence < HUNDREDTH, `${where}: confidence live ${x.confidence}, replay ${y.confidence}`)
      assert.ok(raised < SECOND, `${where}: raised ${raised} ms apart`)
      for (const field of ['spotObservedAt', 'bookObservedAt'] as const) {
        const apart = Math.abs((y.inputs?.[field] ?? 0) - (x.inputs?.[field] ?? 0))
        assert.ok(apart < SECOND, `${where}: ${field} ${apart} ms apart`)
      }
      assert.deepEqual(comparable(y), comparable(x), where)
      figures.signals++
      figures.maxConfidenceDiff = Math.max(figures.maxConfidenceDiff, confidence)
      figures.maxRaisedAtDiffMs = Math.max(figures.maxRaisedAtDiffMs, raised)
    }
  }
  return figures
}

/** A signal without the fields compared with a tolerance above. */
function comparable(s: Signal): unknown {
  const { raisedAt: _r, confidence: _c, inputs, ...rest } = s
  if (!inputs) return rest
  const { spotObservedAt: _s, bookObservedAt: _b, ...sameInputs } = inputs
  return { ...rest, inputs: sameInputs }
}
