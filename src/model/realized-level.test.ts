// Tests of the realised-GARCH level: a minute's seconds cleaned of a jump and of the sources' noise,
// the level pulled toward what the seconds measured and moved on by the return, and its path over a
// horizon reverting toward the slow level.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { MinuteClose } from '../domain/price-history.ts'
import { checkModelV2Params, type ModelV2Params, type RealizedDynamics } from './params.ts'
import { cleanSeconds, realizedLevelOfCloses } from './realized-level.ts'
import { levelOver, volatilityLevelOfCloses } from './variance.ts'

const MIN = 60_000
/** A Monday, 00:00 UTC */
const MONDAY = Date.parse('2026-11-23T00:00:00Z')
const SIGMA = 0.001

const REALIZED: RealizedDynamics = {
  noiseFloor: 1e-8,
  secondsScale: 1,
  jumpSd: 5,
  alpha: 0.05,
  persistence: 0.98,
}

/**
 * The parameters a whole-minute reading is priced with (pricingParams puts `ranged.variance` in
 * `variance`), with `realized` in them or not.
 */
function params(realized: RealizedDynamics | null = REALIZED, weights = { fast: 1, slow: 0 }): ModelV2Params {
  const p = checkModelV2Params({
    model: 'test-model',
    sigmaBar: SIGMA,
    seasonal: {
      hour: Array.from({ length: 24 }, () => 1),
      minute: { hour: 1, quarter: 1, five: 1, other: 1 },
      weekend: 1,
    },
    variance: {
      fastHalfLifeMin: 1,
      slowHalfLifeMin: 240,
      fastWeight: weights.fast,
      slowWeight: weights.slow,
      winsorSd: 5,
      scale: 1,
    },
    nu: 1_000,
    basis: { samples: 4, shrink: 1, variance: 0 },
    pool: [],
    book: { spreadPower: 1, agePower: 1 },
    training: { source: 'sandbox', seeds: [], days: 0, from: '', readings: 0 },
  })
  return realized ? { ...p, variance: { ...p.variance, realized } } : p
}

/**
 * Closes every minute from MONDAY whose seconds show per-minute variance `variance(i)` (in units of
 * σ̄²) as sixty equal moves, the noise floor on top, and a return of one sd of it, alternating in sign.
 */
function closesWith(count: number, variance: (i: number) => number): MinuteClose[] {
  const out: MinuteClose[] = []
  let price = 100_000
  for (let i = 0; i <= count; i++) {
    const v = variance(i) * SIGMA * SIGMA
    if (i > 0) price *= Math.exp((i % 2 === 0 ? 1 : -1) * Math.sqrt(v))
    const move = Math.sqrt(v / 60)
    out.push({
      at: MONDAY + i * MIN,
      priceDollars: price,
      ...(i > 0 ? { seconds: { squares: v + REALIZED.noiseFloor, crosses: 0, largest: move } } : {}),
    })
  }
  return out
}

describe('cleanSeconds', () => {
  it('takes the noise floor off and scales what is left, never below 0', () => {
    const s = { squares: 3e-7, crosses: -5e-9, largest: 1e-4 }
    assert.deepEqual(cleanSeconds(s, { ...REALIZED, secondsScale: 2 }), {
      jump: 0,
      variance: (3e-7 - 1e-8) / 2,
    })
    assert.equal(cleanSeconds({ squares: 5e-9, crosses: 0, largest: 1e-5 }, REALIZED).variance, 0)
  })

  it('calls a move a jump where it towers over the minute’s other moves, and takes it out', () => {
    // fifty-nine moves of 1e-4 and one of -3e-3: thirty of their sds
    const calm = 59 * 1e-8 + REALIZED.noiseFloor
    const withJump = cleanSeconds({ squares: calm + 9e-6, crosses: 0, largest: -3e-3 }, REALIZED)
    assert.equal(withJump.jump, -3e-3)
    assert.ok(Math.abs(withJump.variance - 59e-8) < 1e-15)
    // one move four sds above the rest is not one
    const move = 4 * 1e-4
    assert.equal(cleanSeconds({ squares: calm + move * move, crosses: 0, largest: move }, REALIZED).jump, 0)
  })
})

describe('realizedLevelOfCloses', () => {
  it('settles on the variance the seconds measure, on the long-run level’s scale', () => {
    const level = realizedLevelOfCloses(
      closesWith(600, () => 2),
      MONDAY + 600 * MIN,
      params(),
      REALIZED,
    )
    assert.ok(Math.abs(level.near - 2) < 0.1, `${level.near}`)
    assert.ok(Math.abs(level.slow - 2) < 0.1, `${level.slow}`)
  })

  it('follows a burst within minutes where the seconds show it, and the slow level barely', () => {
    const burst = closesWith(600, (i) => (i > 595 ? 9 : 1))
    const level = realizedLevelOfCloses(burst, MONDAY + 600 * MIN, params(), REALIZED)
    assert.ok(level.near > 6, `${level.near}`)
    assert.ok(level.slow < 1.3, `${level.slow}`)
  })

  it('is not moved by a jump the seconds show as one towering move', () => {
    const closes = closesWith(600, () => 1)
    const last = closes[600] as MinuteClose
    const jump = 0.01
    const before = realizedLevelOfCloses(closes, MONDAY + 600 * MIN, params(), REALIZED).near
    const jumped = closes.map((c) =>
      c === last ? { ...c, priceDollars: c.priceDollars * Math.exp(jump) } : c,
    )
    const seconds = last.seconds as NonNullable<MinuteClose['seconds']>
    jumped[600] = {
      ...(jumped[600] as MinuteClose),
      seconds: { ...seconds, squares: seconds.squares + jump * jump, largest: jump },
    }
    const after = realizedLevelOfCloses(jumped, MONDAY + 600 * MIN, params(), REALIZED).near
    assert.ok(Math.abs(after - before) < 0.02, `${before} → ${after}`)
    // the same return with no seconds to show it a jump counts, clipped at winsorSd² × the slow level
    const unseen = jumped.map((c, i) => (i === 600 ? { at: c.at, priceDollars: c.priceDollars } : c))
    assert.ok(realizedLevelOfCloses(unseen, MONDAY + 600 * MIN, params(), REALIZED).near > before + 0.5)
  })

  it('reverts toward the slow level over the horizon, and with the minutes since its last close', () => {
    const burst = closesWith(600, (i) => (i > 590 ? 9 : 1))
    const level = realizedLevelOfCloses(burst, MONDAY + 600 * MIN, params(), REALIZED)
    const over = [1, 5, 14].map((m) => level.over(m))
    assert.ok(Math.abs((over[0] as number) - level.near) < 0.02 * level.near)
    assert.ok((over[0] as number) > (over[1] as number) && (over[1] as number) > (over[2] as number))
    assert.ok((over[2] as number) > level.slow)
    const later = realizedLevelOfCloses(burst, MONDAY + 610 * MIN, params(), REALIZED)
    assert.ok(later.near < level.near && later.near > level.slow)
  })

  it('blends in the slow level and the long-run 1 by the fitted weights', () => {
    const closes = closesWith(600, (i) => (i > 590 ? 9 : 4))
    const path = realizedLevelOfCloses(closes, MONDAY + 600 * MIN, params(), REALIZED)
    const blended = realizedLevelOfCloses(
      closes,
      MONDAY + 600 * MIN,
      params(REALIZED, { fast: 0.5, slow: 0.3 }),
      REALIZED,
    )
    assert.ok(Math.abs(blended.over(5) - (0.5 * path.over(5) + 0.3 * path.slow + 0.2)) < 1e-12)
  })

  it('spreads a gap’s return over its minutes rather than reading it as one minute’s', () => {
    const closes = closesWith(600, () => 1)
    const gappy = closes.filter((_, i) => i < 590 || i > 599)
    const level = realizedLevelOfCloses(gappy, MONDAY + 600 * MIN, params(), REALIZED)
    assert.ok(level.near < 1.5 && level.near > 0.5, `${level.near}`)
  })
})

describe('levelOver', () => {
  it('is the EWMA level, flat over any horizon, without realised dynamics', () => {
    const closes = closesWith(600, (i) => (i > 590 ? 9 : 1))
    const p = params(null, { fast: 0.5, slow: 0.3 })
    const flat = volatilityLevelOfCloses(closes, MONDAY + 600 * MIN, p).level
    assert.equal(levelOver(closes, MONDAY + 600 * MIN, 1, p), flat)
    assert.equal(levelOver(closes, MONDAY + 600 * MIN, 14, p), flat)
  })

  it('is the filter’s path with them: nearer the burst for a near close', () => {
    const closes = closesWith(600, (i) => (i > 590 ? 9 : 1))
    assert.ok(
      levelOver(closes, MONDAY + 600 * MIN, 1, params()) >
        levelOver(closes, MONDAY + 600 * MIN, 14, params()),
    )
  })
})

describe('the realised dynamics’ parameters', () => {
  it('belong to the whole-minute dynamics only, with α within [0, φ] and a floor ≥ 0', () => {
    const base = params(null)
    const ranged = (realized: unknown) => ({
      ...base,
      ranged: { variance: { ...base.variance, rangeScale: 2, realized }, nu: 8 },
    })
    assert.doesNotThrow(() => checkModelV2Params(ranged(REALIZED)))
    assert.throws(() => checkModelV2Params(params()), /variance.realized belongs in ranged.variance/)
    assert.throws(() => checkModelV2Params(ranged({ ...REALIZED, alpha: 0.99 })), /alpha must be within/)
    assert.throws(() => checkModelV2Params(ranged({ ...REALIZED, noiseFloor: -1 })), /noiseFloor must be ≥ 0/)
    assert.throws(() => checkModelV2Params(ranged({ ...REALIZED, jumpSd: 0 })), /jumpSd must be a positive/)
  })
})
