// `evaluate --sim-seed`'s referee: each venue's own rule, on the world SIM_PARAMS names.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { GradedReading } from '../domain/graded-reading.ts'
import { formatTicker } from '../domain/ticker.ts'
import { createSimOracle } from '../feeds/sim/oracle.ts'
import { POLYMARKET_SIM_SERIES } from '../feeds/sim/polymarket-world.ts'
import { withParams } from '../feeds/sim/sim-params.ts'
import { sandboxOracle } from './evaluate-command.ts'

const OPENS = Date.parse('2026-10-07T14:00:00Z')
const EXPIRES = OPENS + 900_000

const reading = (ticker: string, minute: number): GradedReading => ({
  ticker,
  minute,
  raisedAt: OPENS + minute * 60_000,
  side: 'up',
  confidence: 50,
  entryPriceCents: 50,
  edgeCents: 0,
  outcome: 'win',
  modelVersion: 'x',
  opensAt: OPENS,
  expiresAt: EXPIRES,
  settledSide: 'up',
  inputs: null,
})

describe('sandboxOracle', () => {
  it("scores a Kalshi reading by Kalshi's rule and a Polymarket one by Polymarket's", () => {
    const truth = createSimOracle({ seed: 31 })
    const referee = sandboxOracle(31)
    const kalshi = reading(formatTicker('KXBTC15M', EXPIRES), 14)
    const polymarket = reading(`${POLYMARKET_SIM_SERIES}-${OPENS / 1000}`, 14)
    assert.equal(referee(kalshi), truth.probabilityYes({ expiresAt: EXPIRES }, kalshi.raisedAt))
    assert.equal(referee(polymarket), truth.polymarketProbabilityUp(OPENS, polymarket.raisedAt))
    // after the close each is its venue's own result
    const pm = truth.polymarket(OPENS)
    assert.equal(referee({ ...polymarket, raisedAt: EXPIRES }), pm.side === 'up' ? 1 : 0)
    const yes = truth.settlementDollars(EXPIRES) >= truth.strikeDollars(EXPIRES)
    assert.equal(referee({ ...kalshi, raisedAt: EXPIRES }), yes ? 1 : 0)
  })

  it('scores the world SIM_PARAMS names, not the default one', () => {
    const r = reading(formatTicker('KXBTC15M', EXPIRES), 5)
    const calmer = withParams({ index: { sigmaPerMinute: 3e-4 } })
    const figure = sandboxOracle(31, calmer)(r)
    assert.equal(
      figure,
      createSimOracle({ seed: 31, params: calmer }).probabilityYes({ expiresAt: EXPIRES }, r.raisedAt),
    )
    assert.notEqual(figure, sandboxOracle(31)(r))
  })
})
