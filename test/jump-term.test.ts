// The jump term `npm run model:jumps` measures (tools/jump-term.ts): counted on a minute's seconds
// as the realised filter counts jumps, and priced as a t with at most one Laplace jump — checked
// against brute-force simulation of the law it stands for.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { MinuteClose } from '../src/domain/price-history.ts'
import { laplace, normalPair, unitStudentT } from '../src/feeds/sim/draws.ts'
import { createSeededRandom } from '../src/feeds/sim/seeded-random.ts'
import { jumpExposure, probabilityWithJumps } from '../src/model/jumps.ts'
import type { RealizedDynamics } from '../src/model/params.ts'
import { unitStudentTCdf } from '../src/model/student-t.ts'
import { flatSeasonal } from '../tools/fit/stages.ts'
import { measureJumps } from '../tools/jump-term.ts'

const REALIZED: RealizedDynamics = {
  noiseFloor: 0,
  secondsScale: 1,
  jumpSd: 5,
  alpha: 0.05,
  persistence: 0.99,
}
const MONDAY = Date.parse('2026-11-30T00:00:00Z')

/**
 * Minutes of sixty normal one-second moves, a Laplace jump planted in one move of every `every`-th;
 * `planted` collects the jumps' sizes.
 */
function minutes(
  count: number,
  secondSd: number,
  jumpScale: number,
  every: number,
  planted: number[] = [],
): MinuteClose[] {
  const next = createSeededRandom(7).sequence(1, 0)
  const out: MinuteClose[] = []
  for (let k = 0; k < count; k++) {
    const moves: number[] = []
    while (moves.length < 60) moves.push(...normalPair(next).map((z) => z * secondSd))
    moves.length = 60
    if (k % every === 0) {
      const j = Math.floor(next() * 60)
      const jump = laplace(next(), jumpScale)
      planted.push(jump)
      moves[j] = (moves[j] as number) + jump
    }
    let largest = 0
    for (const m of moves) if (Math.abs(m) > Math.abs(largest)) largest = m
    out.push({
      at: MONDAY + (k + 1) * 60_000,
      priceDollars: 100_000,
      seconds: {
        squares: moves.reduce((s, m) => s + m * m, 0),
        crosses: moves.reduce((s, m, i) => (i === 0 ? s : s + m * (moves[i - 1] as number)), 0),
        largest,
      },
    })
  }
  return out
}

describe('measureJumps', () => {
  it('counts the jumps over the floor and measures their scale by the excess over it', () => {
    const secondSd = 1e-4 / Math.sqrt(60)
    const planted: number[] = []
    const closes = minutes(40_000, secondSd, 25e-4, 50, planted)
    const floor = 1e-4
    const term = measureJumps(closes, REALIZED, floor)
    assert.ok(term)
    assert.equal(term.minutes, 40_000)
    // every planted jump over the floor, and nothing else (the move it lands on adds a hundredth of a bp)
    const over = planted.map(Math.abs).filter((j) => j > floor)
    assert.ok(
      Math.abs(term.jumps - over.length) <= 2,
      `${term.jumps} counted, ${over.length} planted over the floor`,
    )
    const excess = over.reduce((s, j) => s + j - floor, 0) / over.length
    assert.ok(
      Math.abs(term.laplaceScale / excess - 1) < 0.01,
      `scale ${term.laplaceScale}, planted ${excess}`,
    )
    // and that is the Laplace's scale, within the sample's own error (about 4 % on some 770 jumps)
    assert.ok(Math.abs(term.laplaceScale / 25e-4 - 1) < 4 * (1 / Math.sqrt(over.length)))
    // the intensity per unit of the minutes' diffusive variance: 1 in 50 minutes of 1e-8 each
    const plantedRate = 1 / 50 / 1e-8
    assert.ok(
      Math.abs(term.perVariance / plantedRate - 1) < 0.15,
      `${term.perVariance} against ${plantedRate}`,
    )
    assert.ok(Math.abs(term.varianceShare - term.perVariance * 2 * term.laplaceScale ** 2) < 1e-12)
  })

  it('finds nothing where no move towers over its minute, or none passes the floor', () => {
    // no move of a normal minute comes near ten of its sds
    assert.equal(measureJumps(minutes(2_000, 1e-5, 1e-6, 1_000_000), REALIZED, 1e-4), null)
    assert.equal(measureJumps(minutes(2_000, 1e-5, 25e-4, 10), REALIZED, 1), null)
  })
})

describe('jumpExposure', () => {
  const pricing = { params: { seasonal: flatSeasonal() }, sigmaPerMinute: 1e-3 } as const
  const expiresAt = MONDAY + 15 * 60_000

  it('splits the variance to come at the averaging window', () => {
    const e = jumpExposure({ spotObservedAt: expiresAt - 5 * 60_000, expiresAt }, pricing)
    assert.ok(Math.abs(e.before - 4e-6) < 1e-12)
    assert.ok(Math.abs(e.inWindow - 1e-6) < 1e-12)
    assert.equal(e.windowLeft, 1)
  })

  it('inside the window, keeps only its part still to come', () => {
    const e = jumpExposure({ spotObservedAt: expiresAt - 15_000, expiresAt }, pricing)
    assert.equal(e.before, 0)
    assert.ok(Math.abs(e.inWindow - 0.25e-6) < 1e-12)
    assert.equal(e.windowLeft, 0.25)
  })
})

describe('probabilityWithJumps', () => {
  const term = { perVariance: 2e4, laplaceScale: 25e-4 }
  const exposure = { before: 2e-6, inWindow: 0.5e-6, windowLeft: 1 }
  const sd = Math.sqrt(2.2e-6)

  it('is the t alone where no jump can come', () => {
    for (const centre of [-3e-3, -1e-4, 0, 2e-3])
      assert.equal(
        probabilityWithJumps(centre, sd, 8, { before: 0, inWindow: 0, windowLeft: 0 }, term),
        unitStudentTCdf(centre / sd, 8),
      )
  })

  /** P(up) of centre + sd·t(8) + Poisson jumps of Laplace sizes, by brute force: each centre's share of paths up */
  function simulated(
    seed: number,
    paths: number,
    centres: readonly number[],
    sdOf: number,
    e: typeof exposure,
    jumps: typeof term,
  ): number[] {
    const next = createSeededRandom(seed).sequence(2, 0)
    const poisson = (mean: number): number => {
      let k = 0
      let p = Math.exp(-mean)
      let sum = p
      const u = next()
      while (u > sum) {
        k++
        p *= mean / k
        sum += p
      }
      return k
    }
    const ups = centres.map(() => 0)
    for (let i = 0; i < paths; i++) {
      let move = sdOf * unitStudentT(next, 8)
      for (let j = poisson(jumps.perVariance * e.before); j > 0; j--)
        move += laplace(next(), jumps.laplaceScale)
      // a jump inside the window moves the mean by its size times the share of the window after it
      for (let j = poisson(jumps.perVariance * e.inWindow); j > 0; j--)
        move += laplace(next(), jumps.laplaceScale) * next() * e.windowLeft
      centres.forEach((c, k) => {
        if (c + move >= 0) ups[k] = (ups[k] as number) + 1
      })
    }
    return ups.map((u) => u / paths)
  }

  const CASES = [
    { name: 'before the window', centres: [-4.5e-3, -3e-3, -1e-3, 0, 2e-3], sd, exposure, term },
    {
      name: 'inside it, 36 s left',
      centres: [-2.5e-3, -1.5e-3, -5e-4, 0, 1e-3],
      sd: Math.sqrt(0.3e-6),
      exposure: { before: 0, inWindow: 1.5e-6, windowLeft: 0.6 },
      term: { perVariance: 4e4, laplaceScale: 25e-4 },
    },
  ]
  for (const c of CASES)
    it(`matches a simulation of the t with Poisson jumps of Laplace sizes, long shots included (${c.name})`, () => {
      const paths = 400_000
      const sims = simulated(11, paths, c.centres, c.sd, c.exposure, c.term)
      c.centres.forEach((centre, k) => {
        const sim = sims[k] as number
        const priced = probabilityWithJumps(centre, c.sd, 8, c.exposure, c.term)
        const se = Math.sqrt((sim * (1 - sim)) / paths)
        // at most one jump is priced: two or more come with chance about Λ²/2 (0.13–0.18 %), of
        // which a fraction moves the long shot
        assert.ok(Math.abs(priced - sim) < 4 * se + 2e-4, `centre ${centre}: ${priced} against ${sim}`)
      })
      // the long shots are where the jumps show: the t alone misses them by far more than the error
      const t = unitStudentTCdf((c.centres[0] as number) / c.sd, 8)
      assert.ok((sims[0] as number) > 1.5 * t, `simulated ${sims[0]}, t alone ${t}`)
    })

  it('rises with the centre and is even about it', () => {
    let last = 0
    for (let c = -8e-3; c <= 8e-3; c += 2e-4) {
      const p = probabilityWithJumps(c, sd, 8, exposure, term)
      assert.ok(p >= last - 1e-15, `not monotone at ${c}`)
      assert.ok(Math.abs(p + probabilityWithJumps(-c, sd, 8, exposure, term) - 1) < 1e-12)
      last = p
    }
  })
})
