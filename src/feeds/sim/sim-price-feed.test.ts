// Tests of the simulated spot feed: three exchanges around the index with a drifting basis, judged
// like the live feed (median of fresh mids, closes from each source's last mid in a minute), and
// sources that go stale or off.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MINUTE_MS } from '../../domain/contest.ts'
import { createSimOracle } from './oracle.ts'
import { createSimPriceFeed } from './sim-price-feed.ts'
import { sharedSimWorld } from './sim-world.ts'

const at = (iso: string): number => Date.parse(iso)
const DAY = 86_400_000
const hasAtMost2Decimals = (x: number): boolean => Math.abs(Math.round(x * 100) / 100 - x) < 1e-9

describe('createSimPriceFeed', () => {
  it('prices the median of the three exchanges, a few dollars off the index', () => {
    const feed = createSimPriceFeed({ seed: 1 })
    const oracle = createSimOracle({ seed: 1 })
    const gaps: number[] = []
    for (let t = at('2026-11-22T00:00:00Z'); t < at('2026-11-23T00:00:00Z'); t += 61_000) {
      const spot = feed.spotAtSync(t)
      if (spot === null) continue
      assert.ok(hasAtMost2Decimals(spot))
      gaps.push(spot - oracle.indexAt(t))
    }
    assert.ok(gaps.length > 1_300)
    const sd = Math.sqrt(gaps.reduce((a, g) => a + g * g, 0) / gaps.length)
    // 0.5 bp AR(1) + 0.3 bp daily offset + source noise at ~100 000 USD: a few dollars, never zero
    assert.ok(sd > 1 && sd < 30, `proxy − index: rms ${sd} USD`)
    assert.ok(gaps.some((g) => g !== 0))
  })

  it('reports every source, and the median of the fresh ones only', () => {
    const world = sharedSimWorld(2)
    const feed = createSimPriceFeed({ seed: 2 })
    const seen = { ok: 0, stale: 0, off: 0, noSpot: 0 }
    const start = at('2026-11-01T00:00:00Z')
    for (let t = start; t < start + 4 * DAY; t += 5_000) {
      const statuses = feed.sourcesAt(t)
      assert.deepEqual(
        statuses.map((s) => s.name),
        ['coinbase', 'kraken', 'bitstamp'],
      )
      for (const [i, s] of statuses.entries()) {
        const condition = world.sources.condition(i, Math.floor(t / 1000))
        seen[condition]++
        if (condition === 'off') assert.deepEqual([s.state, s.fresh, s.midDollars], ['down', false, null])
        if (condition === 'ok') assert.ok(s.fresh && s.midAt === Math.floor(t / 1000) * 1000)
        // a stale source keeps its last mid and instant, and leaves the median once too old
        if (condition === 'stale') {
          assert.ok(s.midAt !== null && s.midAt < Math.floor(t / 1000) * 1000)
          assert.equal(s.fresh, t - s.midAt <= 10_000)
        }
      }
      const fresh = statuses.filter((s) => s.fresh).map((s) => s.midDollars as number)
      const spot = feed.spotAtSync(t)
      if (fresh.length === 0) {
        assert.equal(spot, null)
        seen.noSpot++
      } else {
        const sorted = fresh.sort((a, b) => a - b)
        assert.ok(
          spot !== null && spot >= (sorted[0] as number) - 0.01 && spot <= (sorted.at(-1) as number) + 0.01,
        )
      }
    }
    assert.ok(seen.stale > 50, `${seen.stale} stale observations`)
    assert.ok(seen.off > 50, `${seen.off} off observations`)
    assert.ok(seen.ok > (100 * (seen.stale + seen.off)) / 10, 'mostly fine')
  })

  it('returns minute closes of whole minutes ending at or before the instant, oldest first', async () => {
    const feed = createSimPriceFeed({ seed: 4 })
    const t = at('2026-11-22T14:15:00Z')
    const closes = await feed.minuteClosesBefore(t, 5)
    assert.equal(closes.length, 5)
    assert.deepEqual(await feed.minuteClosesBefore(t + 59_999, 5), closes)
    assert.deepEqual((await feed.minuteClosesBefore(t + MINUTE_MS, 5)).slice(0, 4), closes.slice(1))
    // the close of 14:14 is the median of the sources' mids at 14:14:59
    assert.equal(closes[4], feed.spotAtSync(t - 1))
  })

  it('gives the same prices for the same seed in any order, and others for another seed', () => {
    const instants = [at('2026-11-22T14:15:00Z'), at('2026-11-22T14:15:37.250Z'), at('2025-06-01T00:00:00Z')]
    const a = createSimPriceFeed({ seed: 777 })
    const forward = instants.map((t) => a.spotAtSync(t))
    const b = createSimPriceFeed({ seed: 777 })
    assert.deepEqual(
      [...instants].reverse().map((t) => b.spotAtSync(t)),
      forward.reverse(),
    )
    assert.notEqual(
      createSimPriceFeed({ seed: 1 }).spotAtSync(instants[0] as number),
      createSimPriceFeed({ seed: 2 }).spotAtSync(instants[0] as number),
    )
  })
})
