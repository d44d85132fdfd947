// Tests of the simulated spot price: determinism from the seed, realism, and lazy speed.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MINUTE_MS } from '../../domain/contest.ts'
import { createSimPriceFeed, SIM_ANCHOR_MS, SIM_ANCHOR_PRICE } from './sim-price-feed.ts'

const DAY = 86_400_000
const at = (iso: string): number => Date.parse(iso)
const hasAtMost2Decimals = (x: number): boolean => Math.abs(Math.round(x * 100) / 100 - x) < 1e-9

function logReturns(closes: readonly number[]): number[] {
  const out: number[] = []
  for (let i = 1; i < closes.length; i++)
    out.push(Math.log((closes[i] as number) / (closes[i - 1] as number)))
  return out
}
const rms = (xs: readonly number[]): number => Math.sqrt(xs.reduce((a, x) => a + x * x, 0) / xs.length)

describe('createSimPriceFeed', () => {
  it('starts at the anchor price at the anchor instant', async () => {
    assert.equal(await createSimPriceFeed({ seed: 1 }).spotAt(SIM_ANCHOR_MS), SIM_ANCHOR_PRICE)
  })

  it('gives the same prices for the same seed, whatever order they are asked in', async () => {
    const instants = [
      at('2026-11-22T14:15:00Z'),
      at('2026-11-22T14:15:37.250Z'),
      at('2025-06-01T00:00:00Z'),
      at('2030-02-03T04:05:06Z'),
      at('2026-01-01T00:00:00Z'),
    ]
    const a = createSimPriceFeed({ seed: 777 })
    const b = createSimPriceFeed({ seed: 777 })
    const forward = instants.map((t) => a.spotAtSync(t))
    const backward = [...instants].reverse().map((t) => b.spotAtSync(t))
    assert.deepEqual(forward, backward.reverse())
    assert.deepEqual(
      await a.minuteClosesBefore(instants[0] as number, 61),
      await b.minuteClosesBefore(instants[0] as number, 61),
    )
  })

  it('gives different prices for a different seed', () => {
    const t = at('2026-11-22T14:15:00Z')
    assert.notEqual(
      createSimPriceFeed({ seed: 1 }).spotAtSync(t),
      createSimPriceFeed({ seed: 2 }).spotAtSync(t),
    )
  })

  it('rounds prices to 2 decimals and keeps them positive', () => {
    const feed = createSimPriceFeed({ seed: 3 })
    for (let t = at('2026-11-22T00:00:00Z'); t < at('2026-11-22T01:00:00Z'); t += 7_777) {
      const p = feed.spotAtSync(t)
      assert.ok(p > 0 && hasAtMost2Decimals(p))
    }
  })

  it('returns minute closes ending at or before the instant, oldest first', async () => {
    const feed = createSimPriceFeed({ seed: 4 })
    const t = at('2026-11-22T14:15:00Z')
    const closes = await feed.minuteClosesBefore(t, 5)
    assert.equal(closes.length, 5)
    assert.equal(closes[4], await feed.spotAt(t))
    assert.equal(closes[0], await feed.spotAt(t - 4 * MINUTE_MS))
    assert.deepEqual(await feed.minuteClosesBefore(t + 59_999, 5), closes)
    assert.deepEqual((await feed.minuteClosesBefore(t + MINUTE_MS, 5)).slice(0, 4), closes.slice(1))
  })

  it('interpolates between minutes deterministically, printing once a second', () => {
    const feed = createSimPriceFeed({ seed: 5 })
    const t = at('2026-11-22T14:15:00Z')
    assert.equal(feed.spotAtSync(t + 20_100), feed.spotAtSync(t + 20_900))
    const a = feed.spotAtSync(t)
    const b = feed.spotAtSync(t + MINUTE_MS)
    for (let s = 1; s < 60; s++) {
      const p = feed.spotAtSync(t + s * 1000)
      // within a few minute-σ of the straight line between the closes
      assert.ok(Math.abs(Math.log(p / (a + ((b - a) * s) / 60))) < 0.005)
    }
  })

  it('moves like bitcoin: ~0.0007 per minute, ~50–60 %/yr', () => {
    const feed = createSimPriceFeed({ seed: 6 })
    const day = logReturns(feed.minuteClosesBeforeSync(at('2026-11-22T00:00:00Z'), 1441))
    const daySigma = rms(day)
    assert.ok(daySigma > 0.0003 && daySigma < 0.0016, `one day: σ = ${daySigma} per minute`)
    const twoMonths = logReturns(feed.minuteClosesBeforeSync(at('2026-11-22T00:00:00Z'), 60 * 1440 + 1))
    const annual = rms(twoMonths) * Math.sqrt(525_600)
    assert.ok(annual > 0.4 && annual < 0.7, `annualised volatility ${annual}`)
    const sigma = feed.sigmaPerMinuteAt(at('2026-11-22T00:00:00Z'))
    assert.ok(sigma >= 0.00035 && sigma <= 0.00175)
  })

  it('has occasional jumps of a few tenths of a percent', () => {
    const feed = createSimPriceFeed({ seed: 8 })
    const end = at('2026-11-22T00:00:00Z')
    const closes = feed.minuteClosesBeforeSync(end, 60 * 1440 + 1)
    let outsized = 0
    for (let i = 1; i < closes.length; i++) {
      const r = Math.log((closes[i] as number) / (closes[i - 1] as number))
      const sigma = feed.sigmaPerMinuteAt(end - (closes.length - 1 - i) * MINUTE_MS)
      if (Math.abs(r) > 5 * sigma) outsized++
    }
    // ~58 jumps expected in 60 days; pure diffusion would give about one 5σ minute
    assert.ok(outsized > 15 && outsized < 120, `${outsized} minutes beyond 5σ`)
  })

  it('stays plausible for years', () => {
    for (const seed of [1, 2, 3]) {
      const feed = createSimPriceFeed({ seed })
      for (let t = at('2024-01-01T00:00:00Z'); t < at('2031-01-01T00:00:00Z'); t += DAY) {
        const p = feed.spotAtSync(t)
        assert.ok(p > 10_000 && p < 800_000, `seed ${seed}: ${p} at ${new Date(t).toISOString()}`)
      }
    }
  })

  it('answers for any minute up to 2030 in well under 50 ms the first time', () => {
    createSimPriceFeed({ seed: 10 }).spotAtSync(at('2030-06-01T00:00:00Z')) // warm the JIT
    const feed = createSimPriceFeed({ seed: 11 })
    const started = performance.now()
    feed.spotAtSync(at('2030-12-31T23:59:30Z'))
    feed.minuteClosesBeforeSync(at('2030-12-31T23:59:30Z'), 61)
    const elapsed = performance.now() - started
    assert.ok(elapsed < 50, `${elapsed} ms`)
  })
})
