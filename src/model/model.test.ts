// Unit tests of model v2's parts: the t distribution, the seasonal table, gap-aware returns, the
// basis, the volatility level, and the variance of the settlement mean against a seeded Monte Carlo.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { normalCdf } from '../domain/model.ts'
import { estimateBasis } from './basis.ts'
import { pricingParams, sawMinutesWhole } from './dynamics.ts'
import { checkModelV2Params, type ModelV2Params, modelV2Version } from './params.ts'
import { scaledReturns } from './returns.ts'
import { isWeekend, minuteGroup, seasonalFactor, seasonalVariance } from './seasonal.ts'
import { basisOptionsOf, settlementMeanProbability, strikeToPrice } from './settlement-mean-model.ts'
import { studentTCdf, unitStudentTCdf } from './student-t.ts'
import { settlementVariance, volatilityLevel, volatilityLevelOfCloses } from './variance.ts'

const MIN = 60_000
/** A Monday, 00:00 UTC */
const MONDAY = Date.parse('2026-11-23T00:00:00Z')

function flatParams(overrides: Partial<ModelV2Params> = {}): ModelV2Params {
  return checkModelV2Params({
    model: 'test-model',
    sigmaBar: 0.001,
    seasonal: {
      hour: Array.from({ length: 24 }, () => 1),
      minute: { hour: 1, quarter: 1, five: 1, other: 1 },
      weekend: 1,
    },
    variance: {
      fastHalfLifeMin: 20,
      slowHalfLifeMin: 480,
      fastWeight: 0.5,
      slowWeight: 0.3,
      winsorSd: 5,
      scale: 1,
    },
    nu: 1_000,
    basis: { samples: 4, shrink: 1, variance: 0 },
    pool: [],
    book: { spreadPower: 1, agePower: 1 },
    training: { source: 'sandbox', seeds: [], days: 0, from: '', readings: 0 },
    ...overrides,
  })
}

/** mulberry32 with Box–Muller: a seeded normal stream for the Monte Carlo. */
function normals(seed: number): () => number {
  let a = seed >>> 0
  const uniform = (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform())
}

describe('Student t', () => {
  it('matches closed forms and tables', () => {
    // ν = 1 is Cauchy: F(t) = 1/2 + atan(t)/π; ν = 2: F(t) = 1/2 + t / (2√(2 + t²))
    for (const t of [-3, -0.5, 0, 0.7, 4]) {
      assert.ok(Math.abs(studentTCdf(t, 1) - (0.5 + Math.atan(t) / Math.PI)) < 1e-12)
      assert.ok(Math.abs(studentTCdf(t, 2) - (0.5 + t / (2 * Math.sqrt(2 + t * t)))) < 1e-12)
    }
    // t tables: the 0.975 quantile is 2.570582 at ν = 5 and 2.178813 at ν = 12
    assert.ok(Math.abs(studentTCdf(2.570582, 5) - 0.975) < 1e-6)
    assert.ok(Math.abs(studentTCdf(2.178813, 12) - 0.975) < 1e-6)
    assert.equal(studentTCdf(0, 7), 0.5)
  })

  it('at unit variance, is fatter-tailed than the normal yet close to it in the middle', () => {
    for (const nu of [5, 12, 30]) {
      assert.ok(unitStudentTCdf(-3, nu) > normalCdf(-3), `ν=${nu}`)
      assert.ok(Math.abs(unitStudentTCdf(0.3, nu) - normalCdf(0.3)) < 0.03)
      // symmetric
      assert.ok(Math.abs(unitStudentTCdf(1.3, nu) + unitStudentTCdf(-1.3, nu) - 1) < 1e-12)
    }
    // its variance is 1: ∫ z² dF by the midpoint rule
    const nu = 6
    let v = 0
    for (let z = -60; z < 60; z += 0.01)
      v += (z + 0.005) ** 2 * (unitStudentTCdf(z + 0.01, nu) - unitStudentTCdf(z, nu))
    assert.ok(Math.abs(v - 1) < 0.01, `variance ${v}`)
  })
})

describe('seasonal table', () => {
  const seasonal = {
    hour: Array.from({ length: 24 }, (_, h) => 1 + h / 100),
    minute: { hour: 1.8, quarter: 1.4, five: 1.15, other: 0.9 },
    weekend: 0.8,
  }

  it('groups the minutes of the hour by their bursts', () => {
    assert.deepEqual([0, 15, 30, 45, 5, 50, 1, 59].map(minuteGroup), [
      'hour',
      'quarter',
      'quarter',
      'quarter',
      'five',
      'five',
      'other',
      'other',
    ])
  })

  it('multiplies hour, minute group and weekend factors', () => {
    assert.ok(Math.abs(seasonalFactor(seasonal, MONDAY) - 1.8) < 1e-12)
    assert.ok(
      Math.abs(seasonalFactor(seasonal, MONDAY + 13 * 60 * MIN + 15 * MIN + 59_999) - 1.13 * 1.4) < 1e-12,
    )
    assert.ok(Math.abs(seasonalFactor(seasonal, MONDAY + 7 * MIN) - 0.9) < 1e-12)
    const saturday = Date.parse('2026-11-28T05:05:00Z')
    assert.ok(isWeekend(saturday) && !isWeekend(MONDAY))
    assert.ok(Math.abs(seasonalFactor(seasonal, saturday) - 1.05 * 1.15 * 0.8) < 1e-12)
  })

  it('sums squared factors over a span, partial minutes by their share', () => {
    // 00:00:30 to 00:02:00: half of minute :00 and all of minute :01
    const v = seasonalVariance(seasonal, MONDAY + 30_000, MONDAY + 2 * MIN)
    assert.ok(Math.abs(v - (0.5 * 1.8 ** 2 + 0.9 ** 2)) < 1e-12)
    assert.equal(seasonalVariance(seasonal, MONDAY, MONDAY), 0)
  })
})

describe('gap-aware returns', () => {
  it('counts a two-minute gap as two minutes of variance, never as one', () => {
    const p = flatParams()
    const closes = [
      { at: MONDAY + MIN, priceDollars: 100 },
      { at: MONDAY + 2 * MIN, priceDollars: 100.1 },
      // the close of minute 3 is missing
      { at: MONDAY + 4 * MIN, priceDollars: 100.3 },
    ]
    const r = scaledReturns(closes, p)
    assert.deepEqual(
      r.map((x) => x.minutes),
      [1, 2],
    )
    const r2 = Math.log(100.3 / 100.1)
    assert.ok(Math.abs((r[1]?.scaledSquare as number) - (r2 * r2) / (0.001 ** 2 * 2)) < 1e-9)
  })

  it('skips unusable prices and out-of-order closes', () => {
    const r = scaledReturns(
      [
        { at: MONDAY + MIN, priceDollars: 100 },
        { at: MONDAY + 2 * MIN, priceDollars: Number.NaN },
        { at: MONDAY + MIN, priceDollars: 101 },
        { at: MONDAY + 3 * MIN, priceDollars: 100.2 },
      ],
      flatParams(),
    )
    assert.deepEqual(
      r.map((x) => [x.minutes, x.logReturn]),
      [[2, Math.log(100.2 / 100)]],
    )
  })
})

describe('volatility level', () => {
  it('is the long-run level with no returns, and follows returns twice as large', () => {
    const p = flatParams()
    assert.equal(volatilityLevel([], MONDAY, p).level, 1)
    // 600 minutes of returns of exactly 2σ̄: squared, 4 times the long-run variance
    const closes = Array.from({ length: 601 }, (_, i) => ({
      at: MONDAY + i * MIN,
      priceDollars: 100 * Math.exp(0.002 * (i % 2)),
    }))
    const v = volatilityLevel(scaledReturns(closes, p), MONDAY + 600 * MIN, p)
    assert.ok(Math.abs(v.fast - 4) < 0.1 && v.slow > 3 && v.slow < 4, JSON.stringify(v))
    assert.ok(Math.abs(v.level - (0.5 * v.fast + 0.3 * v.slow + 0.2)) < 1e-12)
    // the engine's one-pass form gives the same numbers, gaps included
    const gappy = closes.filter((_, i) => i % 7 !== 3)
    assert.deepEqual(
      volatilityLevelOfCloses(gappy, MONDAY + 600 * MIN, p),
      volatilityLevel(scaledReturns(gappy, p), MONDAY + 600 * MIN, p),
    )
  })

  it('reads a minute’s range in place of its return once the range scale is fitted, and not before', () => {
    const at = MONDAY + 600 * MIN
    // flat closes (every return 0) whose minutes each ranged 0.2 % high to low
    const closes = Array.from({ length: 601 }, (_, i) => ({
      at: MONDAY + i * MIN,
      priceDollars: 100,
      highDollars: 100.1,
      lowDollars: 100.1 / Math.exp(0.002),
    }))
    const without = flatParams()
    assert.ok(volatilityLevel(scaledReturns(closes, without), at, without).fast < 0.05)
    // range² = 4e-6 over a scale of 2 is 2e-6 of return variance: twice σ̄² = 1e-6
    // as pricingParams hands the ranged dynamics to the level (dynamics.ts)
    const p: ModelV2Params = { ...without, variance: { ...without.variance, rangeScale: 2 } }
    const r = scaledReturns(closes, p)
    assert.ok(r.every((x) => x.scaledSquare === 0 && Math.abs(x.evidence - 2) < 1e-6))
    const v = volatilityLevel(r, at, p)
    assert.ok(Math.abs(v.fast - 2) < 0.05, JSON.stringify(v))
    assert.deepEqual(volatilityLevelOfCloses(closes, at, p), v)
    // a return across a missing minute is read as a return: the range is its last minute's only
    const gappy = closes.filter((_, i) => i !== 300)
    const g = scaledReturns(gappy, p).find((x) => x.minutes === 2)
    assert.equal(g?.evidence, 0)
    assert.deepEqual(volatilityLevelOfCloses(gappy, at, p), volatilityLevel(scaledReturns(gappy, p), at, p))
  })

  it('prices with the ranged dynamics and ν only where the feed saw most of the last hour whole', () => {
    const base = flatParams()
    const ranged = {
      variance: {
        ...base.variance,
        fastHalfLifeMin: 5,
        fastWeight: 0.9,
        slowWeight: 0.1,
        scale: 0.9,
        rangeScale: 2.3,
      },
      nu: 8,
    }
    const p = checkModelV2Params({ ...base, ranged })
    const at = MONDAY + 120 * MIN
    const closes = (rangedMinutes: number) =>
      Array.from({ length: 120 }, (_, i) => ({
        at: MONDAY + (i + 1) * MIN,
        priceDollars: 100_000,
        ...(i >= 120 - rangedMinutes ? { highDollars: 100_030, lowDollars: 99_970 } : {}),
      }))
    assert.equal(sawMinutesWhole(closes(30), at), true)
    assert.equal(sawMinutesWhole(closes(29), at), false)
    assert.deepEqual(pricingParams(closes(30), at, p), { ...p, variance: ranged.variance, nu: 8 })
    assert.equal(pricingParams(closes(29), at, p), p)
    // ranges long past, none in the last hour: returns only
    const old = closes(120).map((c, i) => (i >= 60 ? { at: c.at, priceDollars: c.priceDollars } : c))
    assert.equal(pricingParams(old, at, p), p)
    // without a ranged fit, ranges change nothing
    assert.equal(pricingParams(closes(120), at, base), base)
    assert.throws(
      () => checkModelV2Params({ ...base, variance: { ...base.variance, rangeScale: 2 } }),
      /rangeScale belongs in ranged/,
    )
    assert.throws(
      () =>
        checkModelV2Params({
          ...base,
          ranged: { ...ranged, variance: { ...ranged.variance, rangeScale: 0 } },
        }),
      /ranged\.variance\.rangeScale must be a positive number/,
    )
  })

  it('prices jumps on top of the t only on readings the ranged level measured, and more in the tails', () => {
    const base = flatParams({ sigmaBar: 0.0003 })
    const ranged = {
      variance: { ...base.variance, rangeScale: 2.3 },
      nu: 8,
    }
    const jumps = { perVariance: 5_000, laplaceScale: 0.0025 }
    const smooth = checkModelV2Params({ ...base, ranged })
    const jumpy = checkModelV2Params({ ...base, ranged: { ...ranged, jumps } })
    const at = MONDAY + 120 * MIN
    const closes = (withRanges: boolean) =>
      Array.from({ length: 120 }, (_, i) => ({
        at: MONDAY + (i + 1) * MIN,
        priceDollars: 100_000,
        ...(withRanges ? { highDollars: 100_010, lowDollars: 99_990 } : {}),
      }))
    const reading = (spotDollars: number, withRanges: boolean) => ({
      spotDollars,
      spotObservedAt: at,
      strikeDollars: 100_000,
      opensAt: at - 5 * MIN,
      expiresAt: at + 10 * MIN,
      closes: closes(withRanges),
      midProbability: null,
      basisSamples: [],
    })
    const alone = (p: ModelV2Params, spot: number, withRanges = true) =>
      settlementMeanProbability(reading(spot, withRanges), p).modelAloneUp ?? Number.NaN
    // a long shot: the strike several sds away is reached far more often by a 25 bp jump
    const farSmooth = alone(smooth, 100_350)
    const farJumpy = alone(jumpy, 100_350)
    assert.ok(farSmooth > 0.99 && farJumpy < farSmooth, `${farSmooth} → ${farJumpy}`)
    assert.ok((1 - farJumpy) / (1 - farSmooth) > 1.2, `${1 - farSmooth} → ${1 - farJumpy}`)
    // near the money the jump hardly moves it, and an even bet stays even
    assert.ok(Math.abs(alone(jumpy, 100_030) - alone(smooth, 100_030)) < 0.01)
    assert.ok(Math.abs(alone(jumpy, 99_999.995) - 0.5) < 1e-9)
    // no intensity: the t alone, to the bit
    const none = checkModelV2Params({ ...base, ranged: { ...ranged, jumps: { ...jumps, perVariance: 0 } } })
    assert.equal(alone(none, 100_350), farSmooth)
    // from the returns alone the squared returns count the jumps already: priced as without the term
    assert.equal(alone(jumpy, 100_350, false), alone(smooth, 100_350, false))
    // a term is part of the version, and a bad one fails at start
    assert.notEqual(modelV2Version(jumpy), modelV2Version(smooth))
    assert.throws(
      () => checkModelV2Params({ ...base, ranged: { ...ranged, jumps: { ...jumps, perVariance: -1 } } }),
      /ranged\.jumps\.perVariance/,
    )
    assert.throws(
      () => checkModelV2Params({ ...base, ranged: { ...ranged, jumps: { ...jumps, laplaceScale: 0 } } }),
      /ranged\.jumps\.laplaceScale/,
    )
  })

  it('clips one jump so it cannot take over an hour', () => {
    const p = flatParams()
    const closes = Array.from({ length: 300 }, (_, i) => ({
      at: MONDAY + i * MIN,
      priceDollars: 100 * Math.exp(0.001 * (i % 2) + (i >= 290 ? 0.05 : 0)),
    }))
    const v = volatilityLevel(scaledReturns(closes, p), MONDAY + 299 * MIN, p)
    // a 50σ̄ jump, clipped at 5 sd of the slow level: 25 of weight ~1/29 in the fast EWMA
    assert.ok(v.fast < 3, JSON.stringify(v))
  })
})

/** A reading 10 minutes before the close on a flat proxy $5 above the strike, $20 above its last strike. */
function proxyReading() {
  return {
    spotDollars: 100_005,
    spotObservedAt: MONDAY + 120 * MIN,
    strikeDollars: 100_000,
    opensAt: MONDAY + 115 * MIN,
    expiresAt: MONDAY + 130 * MIN,
    closes: Array.from({ length: 120 }, (_, i) => ({ at: MONDAY + i * MIN, priceDollars: 100_000 })),
    midProbability: null,
    basisSamples: [{ opensAt: MONDAY + 115 * MIN, strikeDollars: 100_000, proxyMeanDollars: 100_020 }],
  }
}

describe('basis', () => {
  it('averages the newest samples up to the instant, shrunk toward zero', () => {
    const s = (k: number, diff: number) => ({
      opensAt: MONDAY + k * 15 * MIN,
      strikeDollars: 100_000,
      proxyMeanDollars: 100_000 + diff,
    })
    const samples = [s(0, 100), s(1, 4), s(2, 6), s(3, 5), s(4, 9)]
    // at k = 3: the newest 4 are 5, 6, 4, 100; with samples 3: 5, 6, 4 → 15 / (3 + 1)
    assert.equal(estimateBasis(samples, MONDAY + 45 * MIN, { samples: 3, shrink: 1 }), 3.75)
    assert.equal(estimateBasis(samples, MONDAY - 1, { samples: 3, shrink: 1 }), 0)
    assert.equal(estimateBasis([s(0, 8)], MONDAY, { samples: 3, shrink: 0 }), 8)
  })

  it('weighs the k-th newest sample decay^k, the shrink as much as an average sample', () => {
    const s = (k: number, diff: number) => ({
      opensAt: MONDAY + k * 15 * MIN,
      strikeDollars: 100_000,
      proxyMeanDollars: 100_000 + diff,
    })
    const samples = [s(0, 4), s(1, 6), s(2, 5)]
    const at = MONDAY + 30 * MIN
    // newest first 5, 6, 4 weighed 1, 0.5, 0.25; the shrink weighs 1.75 / 3
    const expected = (5 + 3 + 1) / (1.75 + 1.75 / 3)
    assert.ok(Math.abs(estimateBasis(samples, at, { samples: 3, shrink: 1, decay: 0.5 }) - expected) < 1e-12)
    // decay 1 is the plain mean; decay 0 the newest alone
    assert.equal(estimateBasis(samples, at, { samples: 3, shrink: 1, decay: 1 }), 15 / 4)
    assert.equal(estimateBasis(samples, at, { samples: 3, shrink: 0, decay: 0 }), 5)
  })

  it('moves the centre: a proxy above the index prices a lower chance of up', () => {
    const p = flatParams()
    const closes = Array.from({ length: 120 }, (_, i) => ({ at: MONDAY + i * MIN, priceDollars: 100_000 }))
    const base = {
      spotDollars: 100_000,
      spotObservedAt: MONDAY + 120 * MIN,
      strikeDollars: 100_000,
      opensAt: MONDAY + 115 * MIN,
      expiresAt: MONDAY + 130 * MIN,
      closes,
      midProbability: null,
    }
    const none = settlementMeanProbability({ ...base, basisSamples: [] }, p).probabilityUp
    const above = settlementMeanProbability(
      {
        ...base,
        basisSamples: [{ opensAt: MONDAY + 115 * MIN, strikeDollars: 100_000, proxyMeanDollars: 100_020 }],
      },
      p,
    ).probabilityUp
    assert.ok(Math.abs(none - 0.5) < 0.01 && above < none - 0.02, `${none} ${above}`)
  })

  it('is none at all when the spot is the settlement index itself: no basis, no basis variance', () => {
    const p = flatParams({ basis: { samples: 4, shrink: 1, variance: 4e-8 } })
    const input = proxyReading()
    const onProxy = settlementMeanProbability(input, p)
    const onIndex = settlementMeanProbability({ ...input, spotIsIndex: true }, p)
    // the same reading with neither the samples nor the basis variance: what the index reading must be
    const bare = settlementMeanProbability(
      { ...input, basisSamples: [] },
      flatParams({ basis: { samples: 4, shrink: 1, variance: 0 } }),
    )
    assert.equal(onIndex.probabilityUp, bare.probabilityUp)
    assert.equal(onIndex.effectiveMinutes, bare.effectiveMinutes)
    assert.ok(onProxy.probabilityUp < 0.5 && onIndex.probabilityUp > 0.5, 'the proxy’s basis moved it down')
    assert.ok(onProxy.effectiveMinutes > onIndex.effectiveMinutes, 'the basis variance is gone')
  })

  it('doubts the basis by the venue’s own measured error, and not at all against an estimated strike', () => {
    const pool = { pool: [], book: { spreadPower: 1, agePower: 1 }, training: flatParams().training }
    const measured = 9e-8
    const p = flatParams({
      basis: { samples: 4, shrink: 1, variance: 1e-9 },
      venuePools: { polymarket: { ...pool, basisVariance: measured, strikeEstimateVariance: 2e-8 } },
    })
    const input = proxyReading()
    const perMinute = (o: { sigmaPerMinute: number }) => o.sigmaPerMinute ** 2
    const kalshi = settlementMeanProbability(input, p)
    const polymarket = settlementMeanProbability({ ...input, venue: 'polymarket' }, p)
    // the same reading and σ: the effective minutes differ by the two basis variances exactly
    const extra = (polymarket.effectiveMinutes - kalshi.effectiveMinutes) * perMinute(kalshi)
    assert.ok(Math.abs(extra - (measured - 1e-9)) < 1e-15, `${extra}`)
    // an estimated strike is the proxy's own mean: the basis cancels, only the estimate's error adds
    const estimated = settlementMeanProbability(
      { ...input, venue: 'polymarket', strikeEstimateVariance: 1 },
      p,
    )
    const noBasis = settlementMeanProbability(
      { ...input, venue: 'polymarket', spotIsIndex: true },
      flatParams({ venuePools: p.venuePools }),
    )
    const added = (estimated.effectiveMinutes - noBasis.effectiveMinutes) * perMinute(kalshi)
    assert.ok(Math.abs(added - 2e-8) < 1e-15, `${added}`)
  })

  it('estimates a Polymarket reading’s basis with its pool’s decay, and a Kalshi reading’s with the plain mean', () => {
    const pool = { pool: [], book: { spreadPower: 1, agePower: 1 }, training: flatParams().training }
    const sample = (k: number, diff: number) => ({
      opensAt: MONDAY + (115 - 15 * k) * MIN,
      strikeDollars: 100_000,
      proxyMeanDollars: 100_000 + diff,
    })
    // the basis stepped from 0 to $20 with the newest strike: the mean lags it, the decay follows it
    const input = {
      ...proxyReading(),
      basisSamples: [sample(0, 20), sample(1, 0), sample(2, 0), sample(3, 0)],
    }
    const plain = flatParams({ basis: { samples: 4, shrink: 0, variance: 1e-9 } })
    const decayed = flatParams({
      basis: plain.basis,
      venuePools: { polymarket: { ...pool, basisVariance: 1e-9, basisDecay: 0.2 } },
    })
    const kalshi = settlementMeanProbability(input, decayed).probabilityUp
    assert.equal(kalshi, settlementMeanProbability(input, plain).probabilityUp)
    const polymarket = settlementMeanProbability({ ...input, venue: 'polymarket' }, decayed).probabilityUp
    const polymarketPlain = settlementMeanProbability({ ...input, venue: 'polymarket' }, plain).probabilityUp
    // a larger basis off the spot: a lower chance of up than the mean's $5 gives
    assert.ok(polymarket < polymarketPlain - 0.01, `${polymarket} ${polymarketPlain}`)
    assert.deepEqual(basisOptionsOf({ venue: 'polymarket' }, decayed), { ...plain.basis, decay: 0.2 })
    assert.equal(basisOptionsOf({}, decayed), plain.basis)
    // a parameter file's decay is a weight's ratio: 0 (the newest alone) to 1 (the plain mean)
    for (const basisDecay of [-0.1, 1.5, Number.NaN])
      assert.throws(
        () => checkModelV2Params({ ...plain, venuePools: { polymarket: { ...pool, basisDecay } } }),
        /venuePools\.polymarket\.basisDecay must be between 0 and 1/,
      )
  })

  it('prices Polymarket’s level error with its measured tail: a far long shot dearer, its mean and Kalshi as before', () => {
    const pool = { pool: [], book: { spreadPower: 1, agePower: 1 }, training: flatParams().training }
    const errors = { basisVariance: 2e-6, strikeEstimateVariance: 4e-6 }
    const basis = { samples: 4, shrink: 1, variance: 1e-9 }
    const strikeTail = { share: 0.05, wide: 4 }
    const plain = flatParams({ basis, venuePools: { polymarket: { ...pool, ...errors } } })
    const tailed = flatParams({
      basis,
      venuePools: { polymarket: { ...pool, ...errors, basisTail: { share: 0.02, wide: 12 }, strikeTail } },
    })
    const strikeOnly = flatParams({ basis, venuePools: { polymarket: { ...pool, ...errors, strikeTail } } })
    // 1.2 % under the strike with 10 minutes left: a long shot of up
    const far = { ...proxyReading(), spotDollars: 98_800 }
    const polymarket = (p: ModelV2Params, extra: object = {}) =>
      settlementMeanProbability({ ...far, venue: 'polymarket', ...extra }, p)
    const before = polymarket(plain).modelAloneUp as number
    const after = polymarket(tailed).modelAloneUp as number
    assert.ok(before < 0.01 && after > 1.2 * before && after < 0.05, `${before} → ${after}`)
    // the mixture's mean is the measured variance: what the reading reports it priced is unchanged
    assert.equal(polymarket(tailed).effectiveMinutes, polymarket(plain).effectiveMinutes)
    assert.equal(
      settlementMeanProbability(far, tailed).probabilityUp,
      settlementMeanProbability(far, plain).probabilityUp,
    )
    // against an estimated strike the strike's own tail prices, not the basis's
    const estimated = { strikeEstimateVariance: 1 }
    assert.equal(polymarket(tailed, estimated).modelAloneUp, polymarket(strikeOnly, estimated).modelAloneUp)
    assert.ok(
      (polymarket(tailed, estimated).modelAloneUp as number) >
        (polymarket(plain, estimated).modelAloneUp as number),
    )
    // a tail that would leave the narrow part nothing is refused, naming the field
    assert.throws(
      () =>
        checkModelV2Params({
          ...plain,
          venuePools: { polymarket: { ...pool, basisTail: { share: 0.5, wide: 3 } } },
        }),
      /venuePools\.polymarket\.basisTail: share × wide must leave the narrow part/,
    )
  })

  it('refuses a one-minute pool that is not a pool with its book weighting and provenance', () => {
    const good = { pool: [], book: { spreadPower: 1, agePower: 1 }, training: flatParams().training }
    assert.doesNotThrow(() => checkModelV2Params(flatParams({ returnsOnlyPool: good })))
    const bad: [unknown, RegExp][] = [
      [null, /returnsOnlyPool\.pool must be a list/],
      [{ ...good, pool: {} }, /returnsOnlyPool\.pool must be a list/],
      [
        { ...good, pool: [{ fromMinutesLeft: 3, toMinutesLeft: 1, intercept: 0, model: 1, mid: 0 }] },
        /returnsOnlyPool\.pool\[0\] must have whole minutes from ≤ to/,
      ],
      [{ ...good, book: { spreadPower: 0.5, agePower: 1 } }, /returnsOnlyPool\.book must have spreadPower/],
      [{ ...good, training: { source: 'guess' } }, /training\.source must be/],
    ]
    for (const [returnsOnlyPool, message] of bad)
      assert.throws(() => checkModelV2Params({ ...flatParams(), returnsOnlyPool }), message)
  })

  it('prices a published strike against the proxy’s own where the venue’s pool measured that the more precise', () => {
    const pool = { pool: [], book: { spreadPower: 1, agePower: 1 }, training: flatParams().training }
    const withPool = (strikeEstimateVariance: number) =>
      flatParams({
        basis: { samples: 4, shrink: 1, variance: 1e-9 },
        venuePools: { polymarket: { ...pool, basisVariance: 4e-9, strikeEstimateVariance } },
      })
    // the venue's strike sits 3 bp under the proxy's own mean of the same window: a basis of its own
    const input = { ...proxyReading(), venue: 'polymarket' as const, ownStrikeDollars: 100_030 }
    const basis = input.basisSamples[0]!.proxyMeanDollars - input.basisSamples[0]!.strikeDollars
    const own = strikeToPrice(input, withPool(2e-9), 1)
    assert.deepEqual(own, { strikeDollars: 100_030, own: true, basisVariance: 0, strikeVariance: 2e-9 })
    // priced as that: the proxy's own strike less the basis, against the spot less the basis
    const asOwn = settlementMeanProbability(input, withPool(2e-9))
    const byHand = settlementMeanProbability(
      { ...input, strikeDollars: 100_030, strikeEstimateVariance: 1 },
      withPool(2e-9),
    )
    assert.equal(asOwn.probabilityUp, byHand.probabilityUp)
    assert.ok(basis !== 0)
    // the basis estimate measured the more precise: the venue's strike, doubted by the basis error
    assert.deepEqual(strikeToPrice(input, withPool(6e-9), 1), {
      strikeDollars: 100_000,
      own: false,
      basisVariance: 4e-9,
      strikeVariance: 0,
    })
    // a venue whose pool measured no strike error, or Kalshi's: always the venue's strike
    assert.equal(strikeToPrice({ ...input, venue: undefined }, withPool(2e-9), 1).own, false)
    assert.equal(strikeToPrice(input, flatParams(), 1).own, false)
  })

  it('prices the error measured for the hour the window opens in, and chooses the strike by it', () => {
    const pool = { pool: [], book: { spreadPower: 1, agePower: 1 }, training: flatParams().training }
    const hours = (at0: number, elsewhere: number) =>
      Array.from({ length: 24 }, (_, h) => (h === 0 ? at0 : elsewhere))
    // the basis estimate errs ten times as much in windows opening in the day's first hour
    const p = flatParams({
      basis: { samples: 4, shrink: 1, variance: 1e-9 },
      venuePools: {
        polymarket: {
          ...pool,
          basisVariance: 4e-9,
          strikeEstimateVariance: 6e-9,
          basisVarianceByHour: hours(2e-8, 3e-9),
          strikeEstimateVarianceByHour: hours(7e-9, 5e-9),
        },
      },
    })
    const input = { ...proxyReading(), venue: 'polymarket' as const, ownStrikeDollars: 100_030 }
    // MONDAY + 115 minutes opens in hour 1: the venue's strike, doubted by that hour's basis error
    assert.deepEqual(strikeToPrice(input, p, 1), {
      strikeDollars: 100_000,
      own: false,
      basisVariance: 3e-9,
      strikeVariance: 0,
    })
    // the same window opening in hour 0: the proxy's own strike, the better there, at its hour's error
    const atMidnight = { ...input, opensAt: MONDAY + 10 * MIN }
    assert.deepEqual(strikeToPrice(atMidnight, p, 1), {
      strikeDollars: 100_030,
      own: true,
      basisVariance: 0,
      strikeVariance: 7e-9,
    })
    // unpublished, the proxy's own strike at its hour's error
    assert.equal(strikeToPrice({ ...atMidnight, strikeEstimateVariance: 1 }, p, 1).strikeVariance, 7e-9)
    // a long shot is less sure where its hour's error is the wider
    const far = { ...input, spotDollars: 98_800, ownStrikeDollars: undefined }
    const wide = settlementMeanProbability({ ...far, opensAt: MONDAY + 10 * MIN }, p).modelAloneUp as number
    const narrow = settlementMeanProbability(far, p).modelAloneUp as number
    assert.ok(wide > narrow, `${narrow} → ${wide}`)
  })

  it('refuses hours that are not 24 variances, or hours without their pooled variance', () => {
    const pool = { pool: [], book: { spreadPower: 1, agePower: 1 }, training: flatParams().training }
    const errors = { basisVariance: 4e-9, strikeEstimateVariance: 6e-9 }
    const withPool = (extra: object) => ({
      ...flatParams(),
      venuePools: { polymarket: { ...pool, ...extra } },
    })
    const day = Array(24).fill(1e-9)
    assert.doesNotThrow(() =>
      checkModelV2Params(
        withPool({ ...errors, basisVarianceByHour: day, strikeEstimateVarianceByHour: day }),
      ),
    )
    assert.throws(
      () => checkModelV2Params(withPool({ ...errors, basisVarianceByHour: day.slice(1) })),
      /venuePools\.polymarket\.basisVarianceByHour: must be a list of 24 variances/,
    )
    assert.throws(
      () => checkModelV2Params(withPool({ ...errors, strikeEstimateVarianceByHour: [...day.slice(1), -1] })),
      /venuePools\.polymarket\.strikeEstimateVarianceByHour: each hour’s variance must be a finite number ≥ 0/,
    )
    assert.throws(
      () => checkModelV2Params(withPool({ strikeEstimateVariance: 6e-9, basisVarianceByHour: day })),
      /venuePools\.polymarket\.basisVarianceByHour needs basisVariance/,
    )
  })

  it('doubts a proxy mean guessed from two closes by a twelfth of its minute’s variance, and the feed’s own mean not at all', () => {
    const pool = { pool: [], book: { spreadPower: 1, agePower: 1 }, training: flatParams().training }
    const p = flatParams({
      basis: { samples: 4, shrink: 1, variance: 1e-9 },
      venuePools: { polymarket: { ...pool, strikeEstimateVariance: 2e-8 } },
    })
    const input = proxyReading()
    const sample = input.basisSamples[0]!
    const own = settlementMeanProbability(input, p)
    const twoCloses = settlementMeanProbability(
      { ...input, basisSamples: [{ ...sample, fromCloses: true }] },
      p,
    )
    // one sample and one pseudo-sample of shrink: the sample's noise over (1 + 1)², on a flat table
    const minuteVariance = own.sigmaPerMinute ** 2
    const basisAdded = (twoCloses.effectiveMinutes - own.effectiveMinutes) * minuteVariance
    assert.ok(Math.abs(basisAdded - minuteVariance / 12 / 4) < 1e-15, `${basisAdded}`)
    assert.ok(Math.abs(twoCloses.probabilityUp - 0.5) < Math.abs(own.probabilityUp - 0.5))
    // an estimated strike from two closes: the measured error plus the minute's twelfth
    const estimate = { ...input, venue: 'polymarket' as const, strikeEstimateVariance: 1 }
    const fromMeans = settlementMeanProbability(estimate, p)
    const fromCloses = settlementMeanProbability({ ...estimate, strikeEstimateFromCloses: true }, p)
    const strikeAdded = (fromCloses.effectiveMinutes - fromMeans.effectiveMinutes) * minuteVariance
    assert.ok(Math.abs(strikeAdded - minuteVariance / 12) < 1e-15, `${strikeAdded}`)
    // with no measured error the engine's prior stands alone: it allows for two closes already
    const unmeasured = flatParams({ basis: p.basis })
    assert.equal(
      settlementMeanProbability({ ...estimate, strikeEstimateFromCloses: true }, unmeasured).effectiveMinutes,
      settlementMeanProbability(estimate, unmeasured).effectiveMinutes,
    )
  })
})

describe('variance of the settlement mean', () => {
  const p = flatParams()
  const sigma = 0.001

  it('is σ²(τ₁ + L/3) before the window and σ²τ³/(3L²) inside it', () => {
    const expires = MONDAY + 15 * MIN
    const at = (minutesLeft: number) => expires - minutesLeft * MIN
    for (const left of [14, 5, 2, 1]) {
      const v = settlementVariance(at(left), expires, 1, p)
      assert.ok(Math.abs(v.variance - sigma ** 2 * (left - 1 + 1 / 3)) < 1e-15, `${left}`)
      assert.ok(Math.abs(v.effectiveMinutes - (left - 1 + 1 / 3)) < 1e-9)
    }
    const half = settlementVariance(at(0.5), expires, 1, p)
    assert.ok(Math.abs(half.variance - (sigma ** 2 * 0.5 ** 3) / 3) < 1e-15)
    assert.equal(settlementVariance(expires, expires, 1, p).variance, 0)
  })

  it('agrees with a seeded Monte Carlo of Brownian minutes and bridged seconds', () => {
    // closes one minute apart with N(0, σ²) steps; inside each minute a Brownian bridge between its
    // closes at 100 ms steps; the settlement is the mean of the last minute's path
    const z = normals(20261126)
    const steps = 600
    for (const [label, minutesBefore] of [
      ['one minute left', 0],
      ['three minutes left', 2],
    ] as const) {
      const paths = 4_000
      let sum = 0
      let sumSq = 0
      for (let n = 0; n < paths; n++) {
        let x = 0
        for (let m = 0; m < minutesBefore; m++) x += sigma * z()
        const end = x + sigma * z()
        // bridge from x to end: W(s) = x + s·(end − x) + σ·B(s), B a standard bridge on [0, 1]
        let w = 0
        let area = 0
        for (let k = 1; k <= steps; k++) {
          const s = k / steps
          w += z() * Math.sqrt(1 / steps)
          const bridge = w - s * 0 // the bridge's endpoint is pinned below
          area += bridge
        }
        // pin: B(s) = W(s) − s·W(1); its mean over [0, 1] is mean(W) − W(1)/2
        const meanBridge = area / steps - w / 2
        const mean = x + (end - x) / 2 + sigma * meanBridge
        sum += mean
        sumSq += mean * mean
      }
      const mc = sumSq / paths - (sum / paths) ** 2
      const closed = settlementVariance(
        MONDAY + 15 * MIN - (minutesBefore + 1) * MIN,
        MONDAY + 15 * MIN,
        1,
        p,
      )
      // 4 000 paths: the sample variance's relative sd is about √(2/4000) ≈ 2.2 %
      assert.ok(Math.abs(mc / closed.variance - 1) < 0.07, `${label}: ${mc} vs ${closed.variance}`)
    }
  })
})

describe('parameters', () => {
  it('name the model and change the version when any number or the data it was fitted on changes', () => {
    const a = flatParams()
    const b = flatParams({ nu: 12 })
    assert.match(modelV2Version(a), /^test-model\.[0-9a-f]{8}$/)
    assert.notEqual(modelV2Version(a), modelV2Version(b))
    const onTapes = (tapes: string[]) =>
      flatParams({
        training: { source: 'tapes', tapes, origin: 'o', from: 'x', until: 'y', contests: 1, readings: 1 },
      })
    assert.notEqual(modelV2Version(a), modelV2Version(onTapes(['tape-2026-08-20.ndjson.gz'])))
    assert.notEqual(
      modelV2Version(onTapes(['tape-2026-08-20.ndjson.gz'])),
      modelV2Version(onTapes(['tape-2026-08-21.ndjson.gz'])),
    )
    assert.equal(modelV2Version(a), modelV2Version(flatParams()))
    assert.throws(() => checkModelV2Params({ ...a, training: { seeds: [9] } }), /training.source/)
    assert.throws(() => checkModelV2Params({ ...a, nu: 2 }), /nu/)
    assert.throws(() => checkModelV2Params({ ...a, seasonal: { ...a.seasonal, hour: [1] } }), /24/)
    // the mid's fading near certainty is a power of at least 0, and a part of the version
    assert.throws(
      () => checkModelV2Params({ ...a, book: { ...a.book, certaintyPower: -1 } }),
      /certaintyPower/,
    )
    const fading = checkModelV2Params({ ...a, book: { ...a.book, certaintyPower: 0.5 } })
    assert.notEqual(modelV2Version(fading), modelV2Version(a))
    // numbers inside lists (the pool's buckets) are part of it too: a refit that moves only the
    // pool must not publish under the old version
    const pooled = (intercept: number) =>
      flatParams({ pool: [{ fromMinutesLeft: 1, toMinutesLeft: 14, intercept, model: 0.6, mid: 0.4 }] })
    assert.notEqual(modelV2Version(pooled(0.5)), modelV2Version(pooled(0)))
  })

  it('record the crowd each training seed had, one per seed, as part of the version', () => {
    const sandbox = (crowds?: string[]) =>
      flatParams({
        training: {
          source: 'sandbox',
          seeds: [1, 2],
          days: 1,
          from: 'x',
          readings: 1,
          ...(crowds ? { crowds } : {}),
        },
      })
    const mixed = sandbox(['ewma', 'shrink'])
    assert.notEqual(modelV2Version(mixed), modelV2Version(sandbox()))
    assert.notEqual(modelV2Version(mixed), modelV2Version(sandbox(['ewma', 'drift'])))
    assert.throws(
      () => checkModelV2Params({ ...mixed, training: { ...mixed.training, crowds: ['ewma'] } }),
      /crowd per seed/,
    )
  })
})
