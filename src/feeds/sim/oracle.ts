// The sandbox's hidden truth, for tests and the evaluator only (decisions §3, §13): the index, the
// true volatility and basis, and the probability of YES that someone knowing them would state. The
// venue's crowd and the engine never see this module; nothing in src/ outside the tests' and the
// evaluator's reach imports it.
import { parseTicker, QUARTER_MS } from '../../domain/ticker.ts'
import { normalCdf } from './draws.ts'
import { createExactOracle, type SettlementSum } from './exact-oracle.ts'
import { simPolymarketOf } from './polymarket-world.ts'
import { SIM_PARAMS, type SimParams } from './sim-params.ts'
import { type SimWorld, sharedSimWorld } from './sim-world.ts'

const MINUTE_MS = 60_000

export type SimOracle = {
  readonly world: SimWorld
  /** the index print (USD) at the whole second containing `at` */
  indexAt(at: number): number
  /** the true per-minute sd of the log index (diffusion and jumps) of the minute containing `at` */
  sigmaPerMinuteAt(at: number): number
  /** the common proxy–index basis (log) at `at`: exchange mids sit about index·e^basis */
  basisAt(at: number): number
  /** strike and settlement value (USD) of the window closing at `expiresAt` */
  strikeDollars(expiresAt: number): number
  settlementDollars(expiresAt: number): number
  /**
   * P(YES) at `at` for the window closing at `expiresAt` (or named by `ticker`) under the sandbox's
   * own law given the hidden state at `at` (exact-oracle.ts: Monte Carlo, its SE beside it in
   * `probabilityYesWithError`): the referee of `evaluate --sim-seed`.
   */
  probabilityYes(contest: { expiresAt: number } | string, at: number): number
  probabilityYesWithError(contest: { expiresAt: number } | string, at: number): { p: number; se: number }
  /**
   * The same in a world whose index prints, those seen and those to come, were all e^logScale times
   * these, the strike as it is: what the referee would state had it seen the index that far off. The
   * same Monte Carlo paths as `probabilityYes` at the same instant, so scales compare without noise.
   */
  probabilityYesScaled(contest: { expiresAt: number } | string, at: number, logScale: number): number
  /**
   * The same from the true state but Gaussian in the log price (the GARCH forecast of the variance,
   * seasonality, slow factor, jump variance and the averaging rule; no fat tails): understates the
   * tails (at a stated 0.1 % the truth is about 0.4 %). Kept as a cheap approximation.
   */
  gaussianProbabilityYes(contest: { expiresAt: number } | string, at: number): number
  /**
   * P(Up) at `at` of the Polymarket window opening at `opensAt` by its own rule (the oracle's 60 s
   * TWAP ending at the close at least the one ending at the open), under the sandbox's law; before
   * the open the price to beat is not yet known, and the figure is the exact rule's only from it.
   */
  polymarketProbabilityUp(opensAt: number, at: number): number
  /**
   * Polymarket's view of the window opening at `opensAt` (decisions §14): the oracle's TWAP at the
   * open and at the close (the venue's price to beat and final price) and the side that wins by its
   * rule (Up when the final price is at least the price to beat).
   */
  polymarket(opensAt: number): { priceToBeat: number; finalPrice: number; side: 'up' | 'down' }
}

export function createSimOracle(opts: {
  seed: number
  params?: SimParams
  world?: SimWorld
  /** Monte Carlo paths of the exact referee (exact-oracle.ts) */
  paths?: number
}): SimOracle {
  const world = opts.world ?? sharedSimWorld(opts.seed, opts.params ?? SIM_PARAMS)
  const { index, params } = world
  const p = params.index
  const persistence = p.garchAlpha + p.garchBeta
  const jumpShare =
    ((p.jumpsPerDay / 1440) * 2 * p.jumpScale * p.jumpScale) / (p.sigmaPerMinute * p.sigmaPerMinute)

  // the expected variance of minute j seen from the start of minute k (j ≥ k): GARCH's forecast
  // (h → 1 at rate α + β), the seasonal table and today's slow factor; jumps add in proportion
  const forecastVar = (k: number, j: number): number => {
    const s = index.state(k)
    const h = 1 + persistence ** (j - k) * (s.garchH - 1)
    return (p.sigmaPerMinute * index.seasonal(j) * s.slow) ** 2 * h * (1 + jumpShare)
  }

  const expiresOf = (contest: { expiresAt: number } | string): number => {
    if (typeof contest !== 'string') return contest.expiresAt
    const parsed = parseTicker(contest)
    if (!parsed || parsed.expiresAt % QUARTER_MS !== 0)
      throw new RangeError(`not a sandbox ticker: ${contest}`)
    return parsed.expiresAt
  }

  const exact = createExactOracle(index, world.seed, opts.paths ? { paths: opts.paths } : {})
  const kalshiRule = (expiresAt: number, logScale = 0): SettlementSum => ({
    lastMinute: index.minuteOf(expiresAt - MINUTE_MS),
    firstJ: 0,
    weightOf: () => 1,
    printDollars: (s) => index.printCents(s) / 100,
    // the rounded mean is at least the strike when the mean is at least half a cent below it; prints
    // e^logScale times these clear it exactly when these clear it e^−logScale times over
    thresholdSum: ((60 * world.meanBeforeCents(expiresAt - QUARTER_MS) - 30) / 100) * Math.exp(-logScale),
  })
  const exactYes = (contest: { expiresAt: number } | string, at: number, logScale = 0) =>
    exact.probabilityUp(kalshiRule(expiresOf(contest), logScale), at)

  return {
    world,
    probabilityYes: (contest, at) => exactYes(contest, at).p,
    probabilityYesWithError: (contest, at) => exactYes(contest, at),
    probabilityYesScaled: (contest, at, logScale) => exactYes(contest, at, logScale).p,
    polymarketProbabilityUp(opensAt, at) {
      const pm = simPolymarketOf(world)
      const expiresAt = opensAt + QUARTER_MS
      const lastStart = expiresAt - MINUTE_MS
      return exact.probabilityUp(
        {
          lastMinute: index.minuteOf(lastStart),
          firstJ: 1,
          weightOf: (j) => pm.oracleFactor(lastStart / 1000 + j),
          printDollars: (s) => pm.oraclePrice(s),
          thresholdSum: 60 * pm.twap(opensAt),
        },
        at,
      ).p
    },
    indexAt: (at) => index.printCents(Math.floor(at / 1000)) / 100,
    sigmaPerMinuteAt(at) {
      const s = index.state(index.minuteOf(at))
      // jumps arrive in proportion to the variance, so they scale it by a constant
      return s.sigma * Math.sqrt(1 + jumpShare)
    },
    basisAt: (at) => index.basisAt(at),
    polymarket(opensAt) {
      const w = simPolymarketOf(world).window(opensAt)
      return { priceToBeat: w.priceToBeat, finalPrice: w.finalPrice, side: w.up ? 'up' : 'down' }
    },
    strikeDollars: (expiresAt) => world.meanBeforeCents(expiresAt - QUARTER_MS) / 100,
    settlementDollars: (expiresAt) => world.meanBeforeCents(expiresAt) / 100,
    gaussianProbabilityYes(contest, at) {
      const expiresAt = expiresOf(contest)
      const strike = world.meanBeforeCents(expiresAt - QUARTER_MS)
      const threshold = (strike - 0.5) / 100
      const second = Math.floor(at / 1000)
      const endS = expiresAt / 1000
      const windowS = endS - 60
      const spot = index.printCents(second) / 100
      const k = index.minuteOf(second * 1000)
      const kLast = index.minuteOf(expiresAt - MINUTE_MS)
      if (second < windowS) {
        let v = forecastVar(k, kLast) / 3
        for (let s = second; s < windowS; ) {
          const j = index.minuteOf(s * 1000)
          const next = Math.min(windowS, Math.floor(index.minuteStart(j + 1) / 1000))
          v += ((next - s) / 60) * forecastVar(k, j)
          s = next
        }
        return normalCdf(Math.log(spot / threshold) / Math.sqrt(v))
      }
      let seen = 0
      for (let s = windowS; s <= Math.min(second, endS - 1); s++) seen += index.printCents(s) / 100
      const left = endS - 1 - second
      if (left <= 0) return world.meanBeforeCents(expiresAt) >= strike ? 1 : 0
      const perSecond = forecastVar(k, kLast) / 60
      const sdSum = spot * Math.sqrt((perSecond * left * (left + 1) * (2 * left + 1)) / 6)
      return normalCdf(((seen + left * spot) / 60 - threshold) / (sdSum / 60))
    },
  }
}
