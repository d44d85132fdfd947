// Tests of the sandbox's index: seeded and order-free, bitcoin-like statistics (level, seasonality,
// fat tails, clustering), and seconds that form a Brownian bridge between minute closes.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createIndexPath, type IndexPath } from './index-path.ts'
import { SIM_PARAMS } from './sim-params.ts'

const at = (iso: string): number => Date.parse(iso)

/** minute log returns of the index over `days` days before `end`, with each minute's start instant */
function minuteReturns(path: IndexPath, end: number, days: number) {
  const k1 = path.minuteOf(end)
  const k0 = k1 - days * 1440
  const out: { start: number; r: number; k: number }[] = []
  for (let k = k0; k < k1; k++)
    out.push({ k, start: path.minuteStart(k), r: path.logAtMinute(k + 1) - path.logAtMinute(k) })
  return out
}
const meanSq = (xs: readonly number[]): number => xs.reduce((a, x) => a + x * x, 0) / xs.length

describe('the sandbox index', () => {
  it('gives the same prints for the same seed whatever order they are asked in, and others for another seed', () => {
    const instants = [
      at('2026-11-22T14:15:00Z'),
      at('2026-11-22T14:15:37Z'),
      at('2025-06-01T00:00:00Z'),
      at('2030-02-03T04:05:06Z'),
      at('2026-01-01T00:00:00Z'),
      at('2026-01-07T23:59:59Z'),
      at('2026-01-08T00:00:00Z'),
    ].map((t) => t / 1000)
    const a = createIndexPath(777, SIM_PARAMS)
    const b = createIndexPath(777, SIM_PARAMS)
    const forward = instants.map((s) => a.printCents(s))
    const backward = [...instants].reverse().map((s) => b.printCents(s))
    assert.deepEqual(forward, backward.reverse())
    const c = createIndexPath(778, SIM_PARAMS)
    assert.notDeepEqual(
      instants.map((s) => c.printCents(s)),
      forward,
    )
  })

  it('is continuous across epochs: no step at an epoch boundary beyond an ordinary second', () => {
    const path = createIndexPath(5, SIM_PARAMS)
    // epochs are 7 days from the anchor (2026-01-01): 2026-01-08 starts one
    for (const boundary of [
      at('2026-01-08T00:00:00Z'),
      at('2026-11-26T00:00:00Z') - ((at('2026-11-26T00:00:00Z') - SIM_PARAMS.anchorMs) % (7 * 86_400_000)),
    ]) {
      const s = boundary / 1000
      const step = Math.abs(Math.log(path.printCents(s) / path.printCents(s - 1)))
      const sigma = path.state(path.minuteOf(boundary - 1)).sigma
      assert.ok(
        step < 6 * (sigma / Math.sqrt(60)) + 0.01,
        `step ${step} at ${new Date(boundary).toISOString()}`,
      )
    }
  })

  it('moves like bitcoin: about 50 %/yr, fat-tailed minutes, clustered volatility', () => {
    const path = createIndexPath(6, SIM_PARAMS)
    const rs = minuteReturns(path, at('2026-11-23T00:00:00Z'), 8 * 7).map((m) => m.r)
    const annual = Math.sqrt(meanSq(rs) * 525_600)
    assert.ok(annual > 0.35 && annual < 0.75, `annualised volatility ${annual}`)
    const v = meanSq(rs)
    const kurtosis = rs.reduce((a, x) => a + x ** 4, 0) / rs.length / (v * v)
    assert.ok(kurtosis > 6, `kurtosis ${kurtosis} (a normal has 3)`)
    // squared returns are autocorrelated (volatility clusters), beyond the seasonal pattern's share
    const sq = rs.map((r) => r * r)
    const mean = sq.reduce((a, x) => a + x, 0) / sq.length
    let num = 0
    let den = 0
    for (let i = 0; i < sq.length; i++) {
      den += ((sq[i] as number) - mean) ** 2
      if (i >= 2) num += ((sq[i] as number) - mean) * ((sq[i - 2] as number) - mean)
    }
    assert.ok(num / den > 0.03, `lag-2 autocorrelation of squared returns ${num / den}`)
  })

  it('has hour-of-day, within-hour and weekend seasonality in realised variance', () => {
    const path = createIndexPath(7, SIM_PARAMS)
    const ms = minuteReturns(path, at('2026-11-23T00:00:00Z'), 8 * 7)
    const variance = (pick: (d: Date) => boolean): number =>
      meanSq(ms.filter((m) => pick(new Date(m.start))).map((m) => m.r))
    const weekday = (d: Date): boolean => d.getUTCDay() !== 0 && d.getUTCDay() !== 6
    const plain = variance((d) => weekday(d) && d.getUTCMinutes() % 5 !== 0)
    const top = variance((d) => weekday(d) && d.getUTCMinutes() === 0) / plain
    const quarter =
      variance((d) => weekday(d) && d.getUTCMinutes() % 15 === 0 && d.getUTCMinutes() !== 0) / plain
    // the specified sd multipliers are 1.8 and 1.4: variance ratios 3.24 and 1.96
    assert.ok(top > 2.4 && top < 4.4, `minute :00 / plain minutes = ${top}`)
    assert.ok(quarter > 1.5 && quarter < 2.6, `minutes :15/:30/:45 / plain minutes = ${quarter}`)
    const peak = variance((d) => weekday(d) && d.getUTCHours() >= 13 && d.getUTCHours() <= 17)
    const trough = variance((d) => weekday(d) && d.getUTCHours() >= 1 && d.getUTCHours() <= 5)
    assert.ok(peak / trough > 2, `15:00 UTC hours / 03:00 UTC hours = ${peak / trough}`)
    const weekend = variance((d) => !weekday(d)) / variance(weekday)
    assert.ok(weekend > 0.45 && weekend < 0.85, `weekend / weekday = ${weekend} (0.64 specified)`)
  })

  it('fills each minute with a Brownian bridge: a 60-print mean has variance σ²·19.5/60 ≈ σ²L/3', () => {
    // A seeded Monte Carlo over the sandbox's own minutes: for a Brownian path of per-second
    // variance σ²/60, the mean of the prints at seconds 0..59 less the opening print has variance
    // σ²/60 · Σ(m/60)², m = 1..59 = 0.3250 σ². Independent per-second noise around the straight line
    // would give about 0.25 σ²; a point price at the close would give σ².
    const path = createIndexPath(8, SIM_PARAMS)
    const k0 = path.minuteOf(at('2026-10-01T00:00:00Z'))
    const samples: number[] = []
    for (let k = k0; samples.length < 6_000; k++) {
      const st = path.state(k)
      if (st.jump !== 0) continue
      const s0 = path.minuteStart(k) / 1000
      let sum = 0
      for (let j = 0; j < 60; j++) sum += path.logAtSecond(s0 + j)
      samples.push((sum / 60 - path.logAtMinute(k)) / st.sigma)
    }
    const ratio = meanSq(samples)
    const expected = 70_210 / 3_600 / 60
    assert.ok(Math.abs(ratio - expected) < 0.03, `Var(mean)/σ² = ${ratio}, closed form ${expected}`)
    // and the minute's close is the next minute's open
    const s = path.minuteStart(k0 + 10) / 1000
    assert.equal(path.logAtSecond(s), path.logAtMinute(k0 + 10))
  })

  it('stays a plausible bitcoin price for years on either side of the anchor', () => {
    for (const seed of [1, 2, 3]) {
      const path = createIndexPath(seed, SIM_PARAMS)
      // epoch starts (the coarse chain, cheap) from 2024 to 2031, and one built epoch a year
      const week = 7 * 86_400_000
      for (let t = SIM_PARAMS.anchorMs - 104 * week; t < SIM_PARAMS.anchorMs + 261 * week; t += week) {
        const p = path.printCents(t / 1000) / 100
        assert.ok(p > 10_000 && p < 800_000, `seed ${seed}: ${p} at ${new Date(t).toISOString()}`)
      }
      for (let year = 2024; year <= 2030; year++) {
        const p = path.printCents(at(`${year}-06-15T12:34:56Z`) / 1000) / 100
        assert.ok(p > 10_000 && p < 800_000, `seed ${seed}: ${p} in June ${year}`)
      }
    }
  })
})
