// Stages of model v2's fit that read the book and the window edges (issue 29), on constructed data:
// the book weight's spread power is fitted from what the outcomes say about wide books, and the
// strike estimate's error is measured at window edges with the common basis cancelling, and the
// basis estimate's error is told apart from the noise of a settlement minute seen through two closes;
// and a minute's range is put on its return's scale; a minute's seconds are cleaned of the sources'
// noise as the seconds themselves measure it, and the realised filter's dynamics follow the variance.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { MinuteClose } from '../src/domain/price-history.ts'
import { estimateBasis } from '../src/model/basis.ts'
import { bookEvidence } from '../src/model/book-pool.ts'
import { V2_PARAMS } from '../src/model/models.ts'
import { unitStudentTCdf } from '../src/model/student-t.ts'
import type { FitReading } from '../tools/fit/fit-source.ts'
import { BASIS_DECAYS, bestBasisDecay, strikeEstimateVariance } from '../tools/fit/polymarket-stage.ts'
import { fitRealizedDynamics, JUMP_SD, measureSeconds } from '../tools/fit/realized-stage.ts'
import {
  basisErrorOf,
  basisErrorVariance,
  boundedPoolFit,
  CERTAINTY_POWERS,
  type FitObservation,
  fitPool,
  fitRangeScale,
  fitTails,
  logisticFit,
  modelProbability,
  type PoolRow,
  TAILS_GRIDS,
} from '../tools/fit/stages.ts'
import { seededUniforms } from './support/seeded-uniforms.ts'

const QUARTER = 15 * 60_000
const quiet = () => {}

/**
 * Readings whose truth has two parts, logit = A + B (each standard normal): the model sees A alone
 * (calibrated: P(up | A) ≈ σ(0.8·A)), a tight book quotes the truth, and a wide book (50 ¢) is
 * centred on noise when `wideIsNoise`, else on the truth like a tight one.
 */
function readings(wideIsNoise: boolean): FitObservation[] {
  const u = seededUniforms(wideIsNoise ? 5 : 6)
  const normal = () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u())
  const out: FitObservation[] = []
  for (let i = 0; i < 6_000; i++) {
    const a = normal()
    const truth = 1 / (1 + Math.exp(-(a + normal())))
    const wide = i % 2 === 0
    const mid = wide && wideIsNoise ? 0.2 + 0.6 * u() : truth
    const half = wide ? 25 : 0.5
    const up = Math.min(100, Math.max(0, mid * 100 + half))
    const down = Math.min(100, Math.max(0, 100 - mid * 100 + half))
    const book = bookEvidence({ upAskCents: up, downAskCents: down, ageMs: 0 }, 5 * 60_000)
    out.push({ centre: 0.8 * a, v: 1, book, y: u() < truth ? 1 : 0, left: 5 })
  }
  return out
}

const modelP = (o: FitObservation) => 1 / (1 + Math.exp(-o.centre))

describe('the pool’s fit', () => {
  it('weighs wide books less when the outcomes say they are noise, and alike when they are not', () => {
    const noisy = fitPool(readings(true), modelP, quiet)
    const honest = fitPool(readings(false), modelP, quiet)
    assert.ok(noisy.book.spreadPower >= 4, `noise: ${JSON.stringify(noisy.book)}`)
    assert.equal(honest.book.spreadPower, 1, `honest: ${JSON.stringify(honest.book)}`)
    assert.deepEqual(
      noisy.pool.map((b) => [b.fromMinutesLeft, b.toMinutesLeft]),
      [[3, 7]],
      'only the bucket that had readings',
    )
  })

  it('learns no drift from a training period whose contests happened to go up more often', () => {
    // the same readings with every outcome drawn from a truth shifted up by 0.2 in log-odds: a
    // drift an intercept would copy, which no weight on the two log-odds can
    const u = seededUniforms(9)
    const lucky = readings(false).map((o) => {
      const truth = 1 / (1 + Math.exp(-(o.centre / 0.8 + 0.2)))
      return { ...o, y: u() < truth ? 1 : 0 }
    })
    const fit = fitPool(lucky, modelP, quiet)
    assert.ok(
      fit.pool.every((b) => b.intercept === 0),
      JSON.stringify(fit.pool),
    )
  })
})

/**
 * Pool rows on a truth logit T (sd 2): the model's and the book's log-odds are `model(T, noise)` and
 * `mid(T, noise)`, each given its own standard normal noise; every book at full weight.
 */
function poolRows(
  seed: number,
  model: (t: number, e: number) => number,
  mid: (t: number, e: number) => number,
): PoolRow[] {
  const u = seededUniforms(seed)
  const normal = () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u())
  const rows: PoolRow[] = []
  for (let i = 0; i < 6_000; i++) {
    const t = 2 * normal()
    rows.push({
      lm: model(t, normal()),
      lmid: mid(t, normal()),
      w: 1,
      y: u() < 1 / (1 + Math.exp(-t)) ? 1 : 0,
    })
  }
  return rows
}
const freeFit = (rows: readonly PoolRow[]) =>
  logisticFit(
    rows.map((r) => [0, r.w * r.lm, r.w * r.lmid]),
    rows.map((r) => r.y),
    rows.map((r) => r.lm),
  )

describe('the pool’s coefficients, kept between the model and the book', () => {
  it('are the free fit’s where that already lies between the two', () => {
    // two noisy views of the truth: the regression shrinks both, their sum under 1
    const rows = poolRows(
      21,
      (t, e) => t + 0.8 * e,
      (t, e) => t + 0.8 * e,
    )
    const free = freeFit(rows)
    assert.ok(free[2] > 0 && free[1] + free[2] < 0, `free ${free}`)
    assert.deepEqual(boundedPoolFit(rows), free)
  })

  it('sum to no more than 1 where both sources agree on odds less extreme than the truth', () => {
    // both quote 1/1.4 of the truth's log-odds: the free fit would push every long shot they agree on
    // further out than either says
    const rows = poolRows(
      22,
      (t, e) => t / 1.4 + 0.1 * e,
      (t, e) => t / 1.4 + 0.1 * e,
    )
    const free = freeFit(rows)
    assert.ok(1 + free[1] + free[2] > 1.2, `the free fit extrapolates: ${free}`)
    const [intercept, b, c] = boundedPoolFit(rows)
    assert.equal(intercept, 0)
    assert.ok(c >= 0 && 1 + b + c <= 1 + 1e-12, `bounded ${[b, c]}`)
  })

  it('never move away from a book that points the wrong way', () => {
    const rows = poolRows(
      23,
      (t, e) => t + 0.3 * e,
      (t, e) => -0.5 * t + e,
    )
    assert.ok(freeFit(rows)[2] < 0, 'the free fit would lean against the book')
    const [, b, c] = boundedPoolFit(rows)
    assert.equal(c, 0)
    assert.ok(b <= 0, `the model's coefficient ${1 + b} is at most 1`)
  })
})

/**
 * Readings over the whole range of odds (truth logit = A + B, A with sd 2.5): the model sees A, a
 * one-tick book quotes the truth — as it is, or shrunk toward even odds in probability, 0.9·p + 0.05,
 * which is nearly right in the middle and 1.8 logits off a 1 % truth.
 */
function wideRangeReadings(shrunk: boolean): FitObservation[] {
  const u = seededUniforms(shrunk ? 11 : 12)
  const normal = () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u())
  const out: FitObservation[] = []
  for (let i = 0; i < 8_000; i++) {
    const a = 2.5 * normal()
    const truth = 1 / (1 + Math.exp(-(a + 0.7 * normal())))
    const mid = 100 * (shrunk ? 0.9 * truth + 0.05 : truth)
    const book = bookEvidence(
      { upAskCents: mid + 0.05, downAskCents: 100 - mid + 0.05, ageMs: 0 },
      5 * 60_000,
    )
    out.push({ centre: a / Math.sqrt(1 + 0.49 * 0.35), v: 1, book, y: u() < truth ? 1 : 0, left: 5 })
  }
  return out
}

describe('the mid’s pull near certainty', () => {
  it('fades toward the extremes when the book errs in probability, and stays when it does not', () => {
    const shrunk = fitPool(wideRangeReadings(true), modelP, quiet, CERTAINTY_POWERS)
    const honest = fitPool(wideRangeReadings(false), modelP, quiet, CERTAINTY_POWERS)
    assert.ok((shrunk.book.certaintyPower ?? 0) > 0, `shrunk: ${JSON.stringify(shrunk.book)}`)
    assert.equal(honest.book.certaintyPower, undefined, `honest: ${JSON.stringify(honest.book)}`)
  })

  it('is not fitted unless asked: a pool fitted without it keeps its file exactly', () => {
    const fit = fitPool(wideRangeReadings(true), modelP, quiet)
    assert.deepEqual(Object.keys(fit.book).sort(), ['agePower', 'spreadPower'])
  })
})

describe('the strike estimate’s error at window edges, from two closes', () => {
  it('does not count the closes’ own noise, which the model prices apart', () => {
    const edges = [0.0002, -0.0001, 0.0003].map((x, k) => ({
      opensAt: k * QUARTER,
      strikeDollars: 90_000,
      proxyMeanDollars: 90_000 * Math.exp(x),
      noise: 1e-8,
    }))
    const expected = ((-0.0003) ** 2 + 0.0004 ** 2 - 2 * 2e-8) / 2
    assert.ok(Math.abs((strikeEstimateVariance(edges, QUARTER) as number) - expected) < 1e-15)
    // noisier than the changes themselves: no error of the estimate's left, never a negative one
    assert.equal(
      strikeEstimateVariance(
        edges.map((e) => ({ ...e, noise: 1e-6 })),
        QUARTER,
      ),
      0,
    )
  })
})

describe('the strike estimate’s error at window edges', () => {
  const edge = (k: number, proxyMean: number, strike: number) => ({
    opensAt: k * QUARTER,
    strikeDollars: strike,
    proxyMeanDollars: proxyMean,
  })

  it('is zero when the proxy is off the index by a steady basis: that basis cancels', () => {
    const edges = Array.from({ length: 10 }, (_, k) => edge(k, 90_030 + k * 7, 90_000 + k * 7))
    // far below a tenth of a basis point squared
    assert.ok((strikeEstimateVariance(edges, QUARTER) as number) < 1e-12)
  })

  it('is the mean squared change of the relative error between consecutive edges: start to end', () => {
    const e = [0.0002, -0.0001, 0.0003]
    const edges = e.map((x, k) => edge(k, 90_000 * Math.exp(x), 90_000))
    const expected = ((-0.0003) ** 2 + 0.0004 ** 2) / 2
    assert.ok(Math.abs((strikeEstimateVariance(edges, QUARTER) as number) - expected) < 1e-15)
    // a second tape set on the same dates (another seed): its edges are never the first's neighbours
    const other = [0.0009, 0.0009].map((x, k) => ({ ...edge(k, 90_000 * Math.exp(x), 90_000), run: 1 }))
    const both = strikeEstimateVariance(
      [...edges.map((x) => ({ ...x, run: 0 })), ...other],
      QUARTER,
    ) as number
    assert.ok(Math.abs(both - ((-0.0003) ** 2 + 0.0004 ** 2 + 0) / 3) < 1e-15, `${both}`)
    // edges that are not a window apart say nothing of it
    assert.equal(strikeEstimateVariance([edge(0, 90_010, 90_000), edge(3, 90_020, 90_000)], QUARTER), null)
  })
})

describe('the basis estimate’s error against the settlements', () => {
  /**
   * Settlement minutes of a path seen every second (σ per minute 5 bp, a steady basis of `basis`
   * dollars over an index near 90 000): the basis each shows through the minute's two bounding
   * closes, with that measurement's noise from the same two closes — what a tape's fit has.
   */
  function settlements(n: number, estimateSd: number, seed: number) {
    const u = seededUniforms(seed)
    const normal = () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u())
    const basis = 12
    return Array.from({ length: n }, () => {
      let log = 0
      let sum = 0
      const first = 90_000 + basis
      for (let s = 0; s < 60; s++) {
        log += 0.0005 * Math.sqrt(1 / 60) * normal()
        sum += 90_000 * Math.exp(log)
      }
      const settlement = sum / 60 // the index's own mean over the minute: the venue's price
      const last = 90_000 * Math.exp(log) + basis
      const reading = {
        realisedBasis: (first + last) / 2 - settlement,
        realisedBasisNoise: Math.log(last / first) ** 2 / 12,
        inputs: { spotDollars: 90_000 },
      } as FitReading
      return basisErrorOf(reading, basis + estimateSd * 90_000 * normal(), 0)!
    })
  }

  it('blames the estimate for its own error only, not for the two closes’ view of the minute', () => {
    const exact = settlements(4_000, 0, 7)
    const raw = exact.reduce((a, e) => a + e.squared, 0) / exact.length
    // the two closes alone look like an error of about σ²/12 ≈ 2·10⁻⁸ …
    assert.ok(raw > 1.5e-8, `${raw}`)
    // … which is subtracted: an exact estimate is within a tenth of that of no error
    assert.ok((basisErrorVariance(exact) as number) < 2e-9, `${basisErrorVariance(exact)}`)
    // an estimate off by 1 bp (variance 1e-8) is measured as about that
    const off = basisErrorVariance(settlements(4_000, 1e-4, 8)) as number
    assert.ok(Math.abs(off - 1e-8) < 3e-9, `${off}`)
  })

  it('is never below zero, and unknown with no settlement', () => {
    assert.equal(basisErrorVariance([{ squared: 1e-9, noise: 4e-9 }]), 0)
    assert.equal(basisErrorVariance([]), null)
  })
})

describe('the basis estimate’s decay, chosen on the settlements', () => {
  /**
   * `days` days of window edges (96 a day) of a proxy whose basis against the venue's price is
   * `dailySd` per UTC day (a level that steps at midnight) plus independent noise of `noiseSd` per
   * edge, in dollars; each window's last reading estimates the basis from the 17 edges up to its
   * start and is judged against the basis at its end, for every decay the fit weighs.
   */
  function errorsByDecay(days: number, dailySd: number, noiseSd: number, seed: number) {
    const u = seededUniforms(seed)
    const normal = () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u())
    const level = Array.from({ length: days + 1 }, () => dailySd * normal())
    const basisAt = (k: number) => (level[Math.floor(k / 96)] as number) + noiseSd * normal()
    const edges = Array.from({ length: days * 96 + 1 }, (_, k) => basisAt(k))
    return BASIS_DECAYS.map((decay) =>
      edges.slice(17, -1).map((_, i) => {
        const k = i + 17
        const samples = Array.from({ length: 17 }, (_, j) => ({
          opensAt: (k - j) * QUARTER,
          strikeDollars: 90_000,
          proxyMeanDollars: 90_000 + (edges[k - j] as number),
        }))
        const basis = estimateBasis(samples, k * QUARTER, { samples: 17, shrink: 1, decay })
        const reading = { realisedBasis: edges[k + 1], inputs: { spotDollars: 90_000 } } as FitReading
        return basisErrorOf(reading, basis, 0)!
      }),
    )
  }

  it('keeps the plain mean when the basis is a steady level with noise about it', () => {
    assert.equal(bestBasisDecay(errorsByDecay(30, 0, 5, 11))?.decay, 1)
  })

  it('leans on the newest strikes when the level moves each day, and errs less than the mean', () => {
    const errors = errorsByDecay(30, 15, 3, 12)
    const best = bestBasisDecay(errors)
    assert.ok(best && best.decay < 1 && best.decay > 0, JSON.stringify(best))
    const plain = basisErrorVariance(errors[0] ?? []) as number
    assert.ok(best.variance < plain, `${best.variance} against the mean's ${plain}`)
  })

  it('is unknown with no settlement', () => {
    assert.equal(bestBasisDecay(BASIS_DECAYS.map(() => [])), null)
  })
})

describe('the range scale (stage B)', () => {
  /** per-second Brownian minutes at one σ: each close with the range its 60 seconds showed */
  const brownianMinutes = (count: number, seed: number) => {
    const u = seededUniforms(seed)
    const normal = () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u())
    const sdSecond = 5e-4 / Math.sqrt(60)
    let log = 0
    const t0 = Date.UTC(2026, 5, 1)
    const closes: MinuteClose[] = [{ at: t0, priceDollars: 100_000 }]
    for (let m = 1; m <= count; m++) {
      let high = log
      let low = log
      for (let s = 0; s < 60; s++) {
        log += sdSecond * normal()
        high = Math.max(high, log)
        low = Math.min(low, log)
      }
      const at = 100_000
      closes.push({
        at: t0 + m * 60_000,
        priceDollars: at * Math.exp(log),
        highDollars: at * Math.exp(high),
        lowDollars: at * Math.exp(low),
      })
    }
    return closes
  }

  it('is how much larger a squared range is than a squared return: 4 ln 2 for a Brownian path, less for 60 seconds', () => {
    const closes = brownianMinutes(20_000, 7)
    const { rangeScale, minutes } = fitRangeScale([closes], 0, Number.POSITIVE_INFINITY)
    assert.equal(minutes, 20_000)
    // E[range²] = 4 ln 2 σ² ≈ 2.77 σ² for a continuous path; 60 discrete seconds see a little less
    assert.ok(rangeScale !== undefined && rangeScale > 2.3 && rangeScale < 2.75, String(rangeScale))
  })

  it('is left unfitted with under a day of ranges, and never reads a minute with none', () => {
    const closes = brownianMinutes(1_500, 8)
    const fewer = closes.map((c, i) => (i % 2 === 0 ? { at: c.at, priceDollars: c.priceDollars } : c))
    assert.deepEqual(fitRangeScale([fewer], 0, Number.POSITIVE_INFINITY), {
      rangeScale: undefined,
      minutes: 750,
    })
    assert.equal(fitRangeScale([closes], 0, Number.POSITIVE_INFINITY).minutes, 1_500)
  })
})

describe('the seconds of a minute (stage B)', () => {
  const SD_MINUTE = 5e-4
  const T0 = Date.UTC(2026, 5, 1)
  /**
   * Per-second Brownian minutes seen through a source's own noise (sd `noise` on each second's price),
   * each close with its seconds' sums as the minute book keeps them; the minute's sd is
   * SD_MINUTE × `sdOf(minute)`.
   */
  const noisyMinutes = (count: number, seed: number, noise: number, sdOf: (m: number) => number) => {
    const u = seededUniforms(seed)
    const normal = () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u())
    let log = 0
    let seen = 0
    const closes: MinuteClose[] = [{ at: T0, priceDollars: 100_000 }]
    for (let m = 1; m <= count; m++) {
      const sdSecond = (SD_MINUTE * sdOf(m)) / Math.sqrt(60)
      let squares = 0
      let crosses = 0
      let largest = 0
      let lastMove = 0
      for (let s = 0; s < 60; s++) {
        log += sdSecond * normal()
        const next = log + noise * normal()
        const move = next - seen
        squares += move * move
        crosses += move * lastMove
        if (Math.abs(move) > Math.abs(largest)) largest = move
        lastMove = move
        seen = next
      }
      closes.push({
        at: T0 + m * 60_000,
        priceDollars: 100_000 * Math.exp(seen),
        seconds: { squares, crosses, largest },
      })
    }
    return closes
  }

  it('measures the sources’ noise from the neighbouring moves’ products, and puts what is left on the return’s scale', () => {
    const noise = 2e-5
    const measured = measureSeconds([noisyMinutes(6_000, 9, noise, () => 1)], 0, Number.POSITIVE_INFINITY)
    assert.ok(measured)
    // each of 60 moves carries 2η² of noise
    const floor = 120 * noise * noise
    assert.ok(Math.abs(measured.noiseFloor / floor - 1) < 0.1, `${measured.noiseFloor} against ${floor}`)
    assert.ok(Math.abs(measured.secondsScale - 1) < 0.08, String(measured.secondsScale))
    assert.equal(measured.minutes, 6_000)
  })

  it('is not measured with under a day of minutes that have them', () => {
    const closes = noisyMinutes(2_000, 10, 0, () => 1)
    const fewer = closes.map((c, i) => (i % 2 === 0 ? { at: c.at, priceDollars: c.priceDollars } : c))
    assert.equal(measureSeconds([fewer], 0, Number.POSITIVE_INFINITY), undefined)
  })

  it('fits a filter that follows a variance moving from hour to hour, not one that sits on the long run', () => {
    // the sd doubles and halves from hour to hour, at random: a level that ignores it loses
    const u = seededUniforms(12)
    const hours = Array.from({ length: 80 }, () => (u() < 0.5 ? 0.6 : 1.6))
    const closes = noisyMinutes(80 * 60, 11, 1e-5, (m) => hours[Math.floor((m - 1) / 60)] as number)
    const measured = measureSeconds([closes], 0, Number.POSITIVE_INFINITY)
    assert.ok(measured)
    const flat = {
      ...V2_PARAMS,
      sigmaBar: SD_MINUTE,
      seasonal: {
        hour: Array.from({ length: 24 }, () => 1),
        minute: { hour: 1, quarter: 1, five: 1, other: 1 },
        weekend: 1,
      },
    }
    const fit = fitRealizedDynamics([closes], T0, T0 + 80 * 3_600_000, flat, measured)
    assert.ok(fit.variance.realized)
    assert.equal(fit.variance.realized.noiseFloor, measured.noiseFloor)
    assert.equal(fit.variance.realized.jumpSd, JUMP_SD)
    // most of the level is the filter's, and it forgets within minutes
    assert.ok(fit.variance.fastWeight >= 0.7, JSON.stringify(fit.variance))
    assert.ok(fit.variance.fastHalfLifeMin <= 8)
    assert.equal(fit.points, 80 * 4)
  })
})

describe('the model’s own price in the fit', () => {
  it('takes the scale and ν of the dynamics the reading is priced with', () => {
    const base = V2_PARAMS
    const p = {
      ...base,
      variance: { ...base.variance, scale: 1.2 },
      nu: 5,
      ranged: { variance: { ...base.variance, scale: 0.8, rangeScale: 2.3 }, nu: 50 },
    }
    const o = { centre: 0.001, v: 1e-6 }
    assert.equal(modelProbability(o, 2e-7, p, false), unitStudentTCdf(0.001 / Math.sqrt(1.2e-6 + 2e-7), 5))
    assert.equal(modelProbability(o, 2e-7, p, true), unitStudentTCdf(0.001 / Math.sqrt(0.8e-6 + 2e-7), 50))
    const { ranged: _, ...returnsOnly } = p
    assert.equal(modelProbability(o, 2e-7, returnsOnly, true), modelProbability(o, 2e-7, p, false))
  })
})

describe('the tails’ fit (stage C)', () => {
  // Each observation's outcome is the true probability itself (log loss is proper, so its expectation
  // is least at the truth): the fit's optimum is then the law the outcomes were drawn from, exactly.
  const truth = { nu: 7, scale: 1.03 }
  const v = 1e-6
  const basisVariance = 2e-9
  const obs: FitObservation[] = Array.from({ length: 400 }, (_, i) => {
    const centre = ((i - 200) / 200) * 4e-3
    const y = unitStudentTCdf(centre / Math.sqrt(truth.scale * v + basisVariance), truth.nu)
    return { centre, v, book: null, y, left: 5 }
  })

  it('finds ν and the scale at a hundredth on the fine grid', () => {
    const fitted = fitTails(obs, basisVariance, 'fine')
    assert.deepEqual({ nu: fitted.nu, scale: fitted.scale }, truth)
  })

  it('keeps to its own points on the coarse grid, the one the shipped file was made with', () => {
    const fitted = fitTails(obs, basisVariance)
    assert.ok((TAILS_GRIDS.coarse.nus as readonly number[]).includes(fitted.nu), `ν ${fitted.nu}`)
    assert.notEqual(fitted.nu, truth.nu)
    assert.equal(Math.round(fitted.scale * 20), fitted.scale * 20, `scale ${fitted.scale}`)
  })
})
