// The exact referee (issue 29): P(the venue's settlement rule resolves up) under the sandbox's own
// law, conditional on the hidden state at the instant — the minute's GARCH h and slow factor, the
// index so far (and a jump already shown) — by Monte Carlo of the generator's law (index-path.ts):
// unit Student-t minute returns, GARCH(1,1) on them, the slow log-volatility AR(1), the seasonal
// table, Poisson jumps with intensity ∝ the variance and Laplace sizes, and the seconds as a Brownian
// bridge between minute closes. The bridge's part of the settlement sum is Gaussian given each path's
// closes, so each path contributes Φ(·) rather than 0 or 1 (Rao–Blackwell); the paths come in
// antithetic pairs, and a Gaussian control variate on the same normals (closed-form mean) takes out
// most of what is left. The referee's own error is its Monte Carlo SE, returned beside each figure
// (a fixed seed per query, so a figure never changes). What is left out, each far below the Monte Carlo error: the epoch's level
// correction (a few thousandths of σ a minute), the slow factor's pull to the next epoch's start,
// each print's rounding to the cent, and e^x beyond its second order inside the last minute.
import { laplace, normalCdf, normalPair, normalQuantile } from './draws.ts'
import type { IndexPath } from './index-path.ts'
import { createSeededRandom } from './seeded-random.ts'

const S_PATHS = 901
/** the posterior grid of a partly seen minute's innovation: z in ±GRID_Z, GRID_N cells */
const GRID_Z = 25
const GRID_N = 2_000

/**
 * A settlement rule as a sum over the prints of the last minute before the close: seconds j of that
 * minute (0 its open, 60 its close) from `firstJ` to `firstJ + 59`, each print times `weightOf(j)`
 * (USD per unit of anchor·e^level: the index's own price is 1, an oracle with a basis e^b); up when
 * the sum is at least `thresholdSum` (60 × the threshold of the mean).
 */
export type SettlementSum = {
  /** the minute (since the anchor) the averaging window ends in: its prints j = firstJ … firstJ + 59 */
  lastMinute: number
  firstJ: 0 | 1
  weightOf(j: number): number
  /** the print (USD) at a Unix second, as the rule sums it */
  printDollars(second: number): number
  thresholdSum: number
}

export type ExactOracleOptions = { paths?: number }

/**
 * The Monte Carlo paths by default: 512 antithetic pairs with the control variate. Measured SE: ≈ 0.002
 * mid-contest, ≈ 0.001 in the last two minutes; about 4 ms a query on one core.
 */
export const EXACT_ORACLE_PATHS = 1024

export function createExactOracle(index: IndexPath, seed: number, opts: ExactOracleOptions = {}) {
  const p = index.params.index
  const paths = Math.max(2, Math.floor((opts.paths ?? EXACT_ORACLE_PATHS) / 2) * 2)
  const rnd = createSeededRandom(seed)
  const omega = 1 - p.garchAlpha - p.garchBeta
  const phi = 2 ** (-1 / p.slowHalfLifeMinutes)
  const slowInnovation = p.slowSd * Math.sqrt(1 - phi * phi)
  const lambdaBar = p.jumpsPerDay / 1440
  const jumpChance = (sd: number): number => 1 - Math.exp(-lambdaBar * (sd / p.sigmaPerMinute) ** 2)
  const grid = new Float64Array(GRID_N + 1)
  const jumpShare = (lambdaBar * 2 * p.jumpScale * p.jumpScale) / (p.sigmaPerMinute * p.sigmaPerMinute)

  /** P(up) at `at` under the sandbox's law, and the Monte Carlo SE of that figure. */
  const probabilityUp = (rule: SettlementSum, at: number): { p: number; se: number } => {
    const second = Math.floor(at / 1000)
    const k = index.minuteOf(second * 1000)
    const kLast = rule.lastMinute
    const lastStartS = index.minuteStart(kLast) / 1000
    const firstS = lastStartS + rule.firstJ
    // the prints of the window already printed (the one at `second` included)
    let seen = 0
    for (let s = firstS; s <= Math.min(second, firstS + 59); s++) seen += rule.printDollars(s)
    if (second >= firstS + 59 || k > kLast) return { p: seen >= rule.thresholdSum ? 1 : 0, se: 0 }

    const st = index.state(k)
    const a = index.logAtMinute(k)
    const s0 = Math.round((second * 1000 - index.minuteStart(k)) / 1000)
    const x = index.logAtSecond(second)
    const knownJump = st.jump !== 0 && st.jumpSecond <= s0 ? st.jump : 0
    // the chance the minute still jumps after s0, given it has not by s0 (jump seconds 1–59)
    const pj = jumpChance(st.sigma)
    const shown = Math.min(s0, 59) / 59
    const laterJump = knownJump !== 0 ? 0 : (pj * (1 - shown)) / (1 - pj * shown)

    // the current minute's innovation z given the print at s0 (the bridge makes
    // x − a − jump = (s0/60)·σz + N(0, σ²·s0(60 − s0)/3600)): the Student-t prior times that
    // likelihood on a grid, and for the control variate the same posterior under a normal prior
    const obs = (x - a - knownJump) / st.sigma
    const lead = s0 / 60
    const noiseVar = (s0 * (60 - s0)) / 3600
    const cdf = posteriorCdf(obs, lead, noiseVar)
    const postVar = s0 > 0 ? 1 / (1 + (lead * lead) / noiseVar) : 1
    const postMean = s0 > 0 ? (postVar * lead * obs) / noiseVar : 0
    const postSd = Math.sqrt(postVar)

    // the last minute's prints still to come, j > the last seen second, each w_j times the price:
    // with f_j the share of the way from the last seen point to the close, W0 = Σw, W1 = Σw·f,
    // W2 = Σw·f², and the variance of Σw·bridge in units of the minute's per-second variance
    const from = k === kLast ? s0 : 0
    const n = 60 - from
    const js: number[] = []
    for (let j = Math.max(from + 1, rule.firstJ); j <= rule.firstJ + 59; j++) js.push(j)
    if (k < kLast && rule.firstJ === 0) js.unshift(0)
    const w = js.map((j) => rule.weightOf(j))
    const f = js.map((j) => (j - from) / n)
    let W0 = 0
    let W1 = 0
    let W2 = 0
    let bridgeVar = 0
    for (let i = 0; i < js.length; i++) {
      const wi = w[i] as number
      const fi = f[i] as number
      W0 += wi
      W1 += wi * fi
      W2 += wi * fi * fi
      for (let l = 0; l < js.length; l++) {
        const ti = (js[i] as number) - from
        const tl = (js[l] as number) - from
        bridgeVar += wi * (w[l] as number) * (Math.min(ti, tl) - (ti * tl) / n)
      }
    }
    // suffix sums by jump second (a jump at J shows on the prints j ≥ J)
    const S0 = new Float64Array(62)
    const S1 = new Float64Array(62)
    for (let J = 60; J >= 0; J--) {
      const i = js.indexOf(J)
      S0[J] = (S0[J + 1] as number) + (i >= 0 ? (w[i] as number) : 0)
      S1[J] = (S1[J + 1] as number) + (i >= 0 ? (w[i] as number) * (f[i] as number) : 0)
    }
    const anchor = index.params.anchorPrice
    const L = kLast - k + 1
    // the control variate's sd per minute: the Gaussian forecast (GARCH's expected h, today's slow
    // factor, the jump variance), deterministic
    const seasonals = new Float64Array(L)
    for (let i = 0; i < L; i++) seasonals[i] = index.seasonal(k + i)
    const forecastSd = new Float64Array(L)
    for (let i = 0; i < L; i++) {
      const hF = 1 + (p.garchAlpha + p.garchBeta) ** i * (st.garchH - 1)
      forecastSd[i] = p.sigmaPerMinute * (seasonals[i] as number) * st.slow * Math.sqrt(hF * (1 + jumpShare))
    }
    const lastBridge = (sd: number): number => Math.sqrt(((sd * sd) / 60) * bridgeVar)
    // the control variate's last point and bridge: the start of the last minute (k < kLast) or the
    // print now
    const cvBase = k < kLast ? a + knownJump : x
    const cvRef = anchor * Math.exp(cvBase)
    const cvBridge = cvRef * lastBridge(k < kLast ? (forecastSd[L - 1] as number) : st.sigma)

    const draws = rnd.sequence(S_PATHS, second)
    const nu = p.studentNu
    const tScale = Math.sqrt((nu - 2) / nu)
    const gs = new Float64Array(L)
    const ws = new Float64Array(L)
    const jumpDraws = new Float64Array(3 * L)
    const slowZ = new Float64Array(L)
    // a minute's jump from its three uniforms, at sd `sd`, jump seconds from `firstSecond` on
    const jumpOf = (i: number, sign: number, chance: number, firstSecond: number) => {
      if ((jumpDraws[3 * i] as number) >= chance || firstSecond > 59) return { size: 0, second: 61 }
      const u = jumpDraws[3 * i + 1] as number
      return {
        size: laplace(sign > 0 ? u : 1 - u, p.jumpScale),
        second: firstSecond + Math.floor((60 - firstSecond) * (jumpDraws[3 * i + 2] as number)),
      }
    }
    const firstJumpSecond = Math.max(1, s0 + 1)
    const pairs = paths / 2
    const ys = new Float64Array(pairs)
    const cs = new Float64Array(pairs)
    for (let path = 0; path < pairs; path++) {
      const uFirst = draws()
      for (let i = 0; i < L; i++) {
        const [g, extra] = normalPair(draws)
        let chi2 = nu % 2 === 1 ? extra * extra : 0
        for (let d = 0; d < Math.floor(nu / 2); d++) chi2 -= 2 * Math.log(1 - draws())
        gs[i] = g
        ws[i] = tScale / Math.sqrt(chi2 / nu)
        jumpDraws[3 * i] = draws()
        jumpDraws[3 * i + 1] = draws()
        jumpDraws[3 * i + 2] = draws()
        slowZ[i] = normalPair(draws)[0]
      }
      // each set of draws twice: as drawn and mirrored (antithetic)
      for (const sign of [1, -1]) {
        const u = sign > 0 ? uFirst : 1 - uFirst
        // the sandbox's law
        let h = st.garchH
        let logSlow = Math.log(st.slow)
        let sd = st.sigma
        let level = a + knownJump + sd * gridDraw(cdf, u)
        // the control variate: Gaussian, linear in the log level, with its closed-form mean
        let cvMove = sd * (postMean + postSd * normalQuantile(u))
        let cvMoveMean = sd * postMean
        let cvVar = (sd * postSd) ** 2
        let y = 0
        for (let i = 0; i < L; i++) {
          if (i > 0) {
            logSlow =
              phi * (logSlow + p.slowSd ** 2) + slowInnovation * sign * (slowZ[i] as number) - p.slowSd ** 2
            sd = p.sigmaPerMinute * (seasonals[i] as number) * Math.exp(logSlow) * Math.sqrt(h)
          }
          const z =
            i === 0 ? (level - a - knownJump) / st.sigma : sign * (gs[i] as number) * (ws[i] as number)
          const jump =
            i === 0 ? jumpOf(0, sign, laterJump, firstJumpSecond) : jumpOf(i, sign, jumpChance(sd), 1)
          const sdF = forecastSd[i] as number
          const cvJump = i === 0 ? jump : jumpOf(i, sign, jumpChance(sdF), 1)
          const close = i === 0 ? level : level + sd * z
          const cvStep = i === 0 ? 0 : sdF * (ws[i] as number)
          if (i < L - 1) {
            level = close + jump.size
            h = omega + p.garchAlpha * h * z * z + p.garchBeta * h
            cvMove += cvStep * sign * (gs[i] as number) + cvJump.size
            cvMoveMean += cvJump.size
            cvVar += cvStep * cvStep
            continue
          }
          // the last minute: its prints to come given the last seen point and the close
          const x0 = L === 1 ? x : level
          const delta = close - x0
          const J = jump.second
          const jw = S0[J] as number
          const price = anchor * Math.exp(x0)
          const mean =
            price *
            (W0 +
              delta * W1 +
              jump.size * jw +
              0.5 *
                (delta * delta * W2 + 2 * delta * jump.size * (S1[J] as number) + jump.size * jump.size * jw))
          const spread = price * lastBridge(sd)
          y =
            spread > 0
              ? normalCdf((seen + mean - rule.thresholdSum) / spread)
              : seen + mean >= rule.thresholdSum
                ? 1
                : 0
          // the control variate's last minute: from the start of the minute (or the print now)
          const cvLast = L === 1 ? cvMove + a + knownJump - x : cvStep * sign * (gs[i] as number)
          const cvLastMean = L === 1 ? cvMoveMean + a + knownJump - x : 0
          const cvLastVar = L === 1 ? cvVar : cvStep * cvStep
          const lead0 = L === 1 ? 0 : W0
          const fixed =
            W0 + lead0 * cvMoveMean + W1 * cvLastMean + cvJump.size * (S0[cvJump.second] as number)
          const cvMean = W0 + lead0 * cvMove + W1 * cvLast + cvJump.size * (S0[cvJump.second] as number)
          const cvValue = normalCdf((seen + cvRef * cvMean - rule.thresholdSum) / cvBridge)
          const cvSd = Math.sqrt(
            cvBridge ** 2 + cvRef ** 2 * (lead0 * lead0 * (L === 1 ? 0 : cvVar) + W1 * W1 * cvLastVar),
          )
          const cvExpected = normalCdf((seen + cvRef * fixed - rule.thresholdSum) / cvSd)
          cs[path] = (cs[path] as number) + (cvValue - cvExpected) / 2
        }
        ys[path] = (ys[path] as number) + y / 2
      }
    }
    // Y − β·(Yc − E[Yc]), β the sample regression of Y on the control variate
    let yBar = 0
    let cBar = 0
    for (let i = 0; i < pairs; i++) {
      yBar += (ys[i] as number) / pairs
      cBar += (cs[i] as number) / pairs
    }
    let cov = 0
    let varC = 0
    for (let i = 0; i < pairs; i++) {
      cov += ((ys[i] as number) - yBar) * ((cs[i] as number) - cBar)
      varC += ((cs[i] as number) - cBar) ** 2
    }
    // bounded: where the Gaussian variate hardly moves (a t tail the normal prior does not reach)
    // an unbounded slope would magnify its sampling noise
    const beta = varC > 0 ? Math.min(1.5, Math.max(0, cov / varC)) : 0
    let mean = 0
    let sumSq = 0
    for (let i = 0; i < pairs; i++) {
      const v = (ys[i] as number) - beta * (cs[i] as number)
      mean += v / pairs
      sumSq += v * v
    }
    const se = Math.sqrt(Math.max(0, sumSq / pairs - mean * mean) / pairs)
    return { p: Math.min(1, Math.max(0, mean)), se }
  }

  /** the CDF of the t prior times a normal likelihood of `obs` = lead·z + N(0, noiseVar), on the grid */
  const posteriorCdf = (obs: number, lead: number, noiseVar: number): Float64Array => {
    const nu = p.studentNu
    const scale = Math.sqrt((nu - 2) / nu)
    let total = 0
    for (let i = 0; i <= GRID_N; i++) {
      const z = -GRID_Z + (2 * GRID_Z * i) / GRID_N
      const t = z / scale
      const d = obs - lead * z
      total +=
        (1 + (t * t) / nu) ** (-(nu + 1) / 2) * (noiseVar > 0 ? Math.exp((-d * d) / (2 * noiseVar)) : 1)
      grid[i] = total
    }
    for (let i = 0; i <= GRID_N; i++) grid[i] = (grid[i] as number) / total
    return grid
  }

  return { probabilityUp }
}

/** A draw from a tabulated CDF on the z grid (the middle of the cell the uniform falls in). */
function gridDraw(cdf: Float64Array, u: number): number {
  let lo = 0
  let hi = GRID_N
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if ((cdf[mid] as number) < u) lo = mid + 1
    else hi = mid
  }
  return -GRID_Z + ((2 * GRID_Z) / GRID_N) * (lo - 0.5)
}
