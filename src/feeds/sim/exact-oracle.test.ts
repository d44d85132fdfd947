// The exact referee against brute force: the sandbox's own generator (one seed, a year of contests)
// settles every contest by the venue's rule, and at readings whose Gaussian figure is in the tails
// (about 0.1 %, 0.5 % and 99.5 %) the outcomes are counted against the sum of the exact referee's
// figures — and against the Gaussian one's, which the same outcomes must reject (the test has power).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createSimOracle } from './oracle.ts'
import { simPolymarketOf } from './polymarket-world.ts'

const QUARTER_MS = 900_000

type Tally = { readings: number; events: number; exact: number; gaussian: number }

describe('the exact referee', () => {
  it('states the tails the sandbox realises, where the Gaussian one understates them', () => {
    const oracle = createSimOracle({ seed: 11, paths: 256 })
    const from = Date.UTC(2026, 2, 1)
    // Gaussian-selected buckets (the selection is independent of the exact figure's Monte Carlo
    // noise); for the high bucket the event counted is a NO
    const buckets = [
      { lo: 0.0002, hi: 0.002, up: true },
      { lo: 0.002, hi: 0.01, up: true },
      { lo: 0.99, hi: 0.998, up: false },
    ]
    const tallies: Tally[] = buckets.map(() => ({ readings: 0, events: 0, exact: 0, gaussian: 0 }))
    for (let c = 1; c <= 96 * 365; c++) {
      const expiresAt = from + c * QUARTER_MS
      const yes = oracle.settlementDollars(expiresAt) >= oracle.strikeDollars(expiresAt)
      // whole minutes, seconds into a minute (the partly seen minute) and inside the averaging window
      for (const left of [300_000, 175_000, 120_000, 60_000, 25_000]) {
        const at = expiresAt - left
        const g = oracle.gaussianProbabilityYes({ expiresAt }, at)
        buckets.forEach((b, i) => {
          if (g < b.lo || g >= b.hi) return
          const e = oracle.probabilityYes({ expiresAt }, at)
          const t = tallies[i] as Tally
          t.readings++
          t.events += yes === b.up ? 1 : 0
          t.exact += b.up ? e : 1 - e
          t.gaussian += b.up ? g : 1 - g
        })
      }
    }
    for (const [i, t] of tallies.entries()) {
      assert.ok(t.readings > 2000, `bucket ${i}: ${t.readings} readings`)
      assert.ok(
        Math.abs(t.events - t.exact) <= 3 * Math.sqrt(t.exact) + 1,
        `bucket ${i}: ${t.events} events where the exact referee expects ${t.exact.toFixed(1)}`,
      )
    }
    const events = tallies.reduce((s, t) => s + t.events, 0)
    const gaussian = tallies.reduce((s, t) => s + t.gaussian, 0)
    assert.ok(
      events - gaussian > 3 * Math.sqrt(gaussian),
      `${events} tail events, Gaussian expects ${gaussian.toFixed(1)}`,
    )
  })

  it('agrees with the Gaussian one near even odds and states its Monte Carlo error', () => {
    const oracle = createSimOracle({ seed: 3 })
    const expiresAt = Date.UTC(2026, 5, 2, 14, 30)
    const at = expiresAt - 14 * 60_000
    const { p, se } = oracle.probabilityYesWithError({ expiresAt }, at)
    const g = oracle.gaussianProbabilityYes({ expiresAt }, at)
    assert.ok(se > 0 && se < 0.01, `se ${se}`)
    assert.ok(Math.abs(p - g) < 0.03, `exact ${p}, Gaussian ${g}`)
    // a fixed seed per query: the same figure every time
    assert.equal(oracle.probabilityYes({ expiresAt }, at), p)
    // at the close the rule is decided
    const decided = oracle.probabilityYes({ expiresAt }, expiresAt)
    const yes = oracle.settlementDollars(expiresAt) >= oracle.strikeDollars(expiresAt)
    assert.equal(decided, yes ? 1 : 0)
  })

  it('states what it would had the index sat higher or lower, on the same paths', () => {
    const oracle = createSimOracle({ seed: 3, paths: 256 })
    const expiresAt = Date.UTC(2026, 5, 2, 14, 30)
    for (const left of [600_000, 120_000, 50_000]) {
      const at = expiresAt - left
      assert.equal(
        oracle.probabilityYesScaled({ expiresAt }, at, 0),
        oracle.probabilityYes({ expiresAt }, at),
      )
      // the index moved onto the strike: even odds but for what the rest of the path and the
      // half-cent do; around it the figure rises with the index
      const onStrike = Math.log(oracle.strikeDollars(expiresAt) / oracle.indexAt(at))
      const bp = [-4, -1, 0, 1, 4].map((b) =>
        oracle.probabilityYesScaled({ expiresAt }, at, onStrike + b * 1e-4),
      )
      assert.ok(Math.abs((bp[2] as number) - 0.5) < 0.1, `${left} ms left, on the strike: ${bp[2]}`)
      for (let i = 1; i < bp.length; i++)
        assert.ok((bp[i] as number) > (bp[i - 1] as number), `${left}: ${bp}`)
      assert.ok((bp[4] as number) - (bp[0] as number) > 0.05, `${left} ms left: 8 bp moves ${bp}`)
    }
  })

  it("scores Polymarket's rule (its oracle's 60 s TWAP, a tie Up) by the same law", () => {
    const oracle = createSimOracle({ seed: 5, paths: 256 })
    const pm = simPolymarketOf(oracle.world)
    const from = Date.UTC(2026, 3, 1)
    let sumP = 0
    let ups = 0
    let n = 0
    for (let c = 0; c < 96 * 20; c++) {
      const opensAt = from + c * QUARTER_MS
      const w = pm.window(opensAt)
      const at = opensAt + 13 * 60_000 + 10_000
      const p = oracle.polymarketProbabilityUp(opensAt, at)
      sumP += p
      ups += w.up ? 1 : 0
      n++
      // the last print of its window (the close itself) is still to come: never decided early
      assert.ok(oracle.polymarketProbabilityUp(opensAt, opensAt + QUARTER_MS - 1000) < 1 || w.up)
    }
    assert.ok(Math.abs(ups - sumP) < 3 * Math.sqrt(n * 0.25), `${ups} ups, ${sumP.toFixed(1)} expected`)
    // from the close on, the venue's own result
    for (let c = 0; c < 20; c++) {
      const opensAt = from + c * QUARTER_MS
      assert.equal(
        oracle.polymarketProbabilityUp(opensAt, opensAt + QUARTER_MS),
        pm.window(opensAt).up ? 1 : 0,
      )
    }
  })
})
