// The sandbox's settlement index (decisions §3): a one-second price path with two-speed volatility
// (a slow log-volatility AR(1) times a GARCH(1,1)), intraday and weekly seasonality, unit-variance
// Student-t innovations, jumps whose intensity follows the variance, and seconds as a Brownian bridge
// between minute closes.
//
// Any instant in any order: time is cut into epochs (SIM_PARAMS.index.epochDays). Each epoch's start
// level and slow factor come from a coarse chain (one step per epoch, cheap to extend in both
// directions from the anchor); inside an epoch the minutes are generated sequentially, day after
// day, from that start state, then bridged so the epoch ends exactly where the next one starts. An
// epoch is built once and memoised, and a minute's seconds are built on demand; so the first call
// costs one epoch of minute steps (~10 000), and every later call is a lookup.

import { laplace, normalPair, unitStudentT } from './draws.ts'
import { createSeasonality } from './seasonality.ts'
import { createSeededRandom } from './seeded-random.ts'
import type { SimParams } from './sim-params.ts'

const MINUTE_MS = 60_000
const CACHED_EPOCHS = 16
const CACHED_MINUTE_BRIDGES = 1_024

// random streams of the index (the venue and the sources use others: see sim-world.ts)
const S_EPOCH_LEVEL = 1
const S_EPOCH_SLOW = 2
const S_SLOW = 3
const S_INNOVATION = 4
const S_JUMP = 5
const S_SECONDS = 6
const S_BASIS = 7

/** One epoch's minute states; index i is minute k0 + i (minutes since the anchor). */
type Epoch = {
  k0: number
  /** log level (relative to the anchor price) at the start of each minute, M + 1 entries */
  level: Float64Array
  /** sd of each minute's diffusive return, and its two factors */
  sigma: Float64Array
  garchH: Float64Array
  slow: Float64Array
  /** a jump of this log size shows from second `jumpSecond` (1–59) of the minute on; 0 for none */
  jumpSize: Float64Array
  jumpSecond: Uint8Array
  /** the common proxy–index basis (log) at the start of each minute, M + 1 entries */
  basis: Float64Array
}

export type MinuteState = {
  /** sd of the minute's diffusive log return: σ̄ · seasonal · slow · √h */
  sigma: number
  /** the seasonal sd multiplier, the slow factor's multiplier, and the GARCH variance h (mean 1) */
  seasonal: number
  slow: number
  garchH: number
  /** log size of the minute's jump, 0 when none */
  jump: number
  /** the second (1–59) of the minute from which the jump shows */
  jumpSecond: number
}

export type IndexPath = {
  readonly params: SimParams
  /** minutes since the anchor of the minute containing `ms` */
  minuteOf(ms: number): number
  /** the start (epoch ms) of minute `k` */
  minuteStart(k: number): number
  /** the index's log level (relative to the anchor price) at the start of minute `k` */
  logAtMinute(k: number): number
  /** the hidden state of minute `k` */
  state(k: number): MinuteState
  /** the seasonal sd multiplier of minute `k` (public knowledge: anyone can measure it) */
  seasonal(k: number): number
  /** the common proxy–index basis (log) at an instant, interpolated between minute values */
  basisAt(ms: number): number
  /** the index's log level at whole second `second` (Unix seconds) */
  logAtSecond(second: number): number
  /** the index print at whole second `second`, in integer cents */
  printCents(second: number): number
}

export function createIndexPath(seed: number, params: SimParams): IndexPath {
  const rnd = createSeededRandom(seed)
  const p = params.index
  const seasonality = createSeasonality(params.seasonality)
  const M = Math.round(p.epochDays * 1440)
  const phi = 2 ** (-1 / p.slowHalfLifeMinutes)
  const phiM = phi ** M
  const omega = 1 - p.garchAlpha - p.garchBeta
  const jumpVarPerMinute = (p.jumpsPerDay / 1440) * 2 * p.jumpScale * p.jumpScale
  const epochStepSd = Math.sqrt((p.sigmaPerMinute * p.sigmaPerMinute + jumpVarPerMinute) * M)
  const epochKeep = (1 - p.reversionPerDay) ** p.epochDays
  const lambdaBar = p.jumpsPerDay / 1440
  const minuteStart = (k: number): number => params.anchorMs + k * MINUTE_MS

  // The coarse chains at epoch starts, extended lazily from epoch 0 in both directions. Backwards
  // each chain mirrors its forward rule, so it reverts toward the anchor instead of exploding (the
  // AR(1) of the slow factor is time-reversible, so that direction has the same law).
  const levelFwd: number[] = [0]
  const levelBwd: number[] = [0]
  const slowFwd: number[] = [p.slowSd * rnd.normal(S_EPOCH_SLOW, 0, 1)]
  const slowBwd: number[] = [slowFwd[0] as number]
  const slowStep = p.slowSd * Math.sqrt(1 - phiM * phiM)
  const chainAt = (e: number, fwd: number[], bwd: number[], next: (prev: number, e: number) => number) => {
    const arr = e >= 0 ? fwd : bwd
    const n = Math.abs(e)
    while (arr.length <= n) {
      const i = arr.length
      arr.push(next(arr[i - 1] as number, e >= 0 ? i - 1 : -i))
    }
    return arr[n] as number
  }
  const levelAt = (e: number): number =>
    chainAt(e, levelFwd, levelBwd, (prev, step) =>
      step >= 0
        ? prev * epochKeep + epochStepSd * rnd.normal(S_EPOCH_LEVEL, step)
        : prev * epochKeep - epochStepSd * rnd.normal(S_EPOCH_LEVEL, step),
    )
  const slowAt = (e: number): number =>
    chainAt(e, slowFwd, slowBwd, (prev, step) => prev * phiM + slowStep * rnd.normal(S_EPOCH_SLOW, step, 2))

  const buildEpoch = (e: number): Epoch => {
    const k0 = e * M
    const level = new Float64Array(M + 1)
    const sigma = new Float64Array(M)
    const garchH = new Float64Array(M)
    const slow = new Float64Array(M)
    const jumpSize = new Float64Array(M)
    const jumpSecond = new Uint8Array(M)
    const basis = new Float64Array(M + 1)

    // the slow factor: an AR(1) from the epoch's start value, bridged exactly (a Gaussian AR(1)
    // bridge) to the next epoch's start value
    const x = new Float64Array(M + 1)
    x[0] = slowAt(e)
    const innovation = p.slowSd * Math.sqrt(1 - phi * phi)
    const slowDraws = rnd.sequence(S_SLOW, e)
    for (let i = 0; i < M; i += 2) {
      const [z1, z2] = normalPair(slowDraws)
      x[i + 1] = phi * (x[i] as number) + innovation * z1
      if (i + 1 < M) x[i + 2] = phi * (x[i + 1] as number) + innovation * z2
    }
    const miss = slowAt(e + 1) - (x[M] as number)
    const denominator = 1 - phiM * phiM
    const halfVar = p.slowSd * p.slowSd
    for (let i = 0; i < M; i++) {
      const w = (phi ** (M - i) * (1 - phi ** (2 * i))) / denominator
      slow[i] = Math.exp((x[i] as number) + miss * w - halfVar)
    }

    // the minutes, in order: GARCH from h = 1 at the epoch's start
    const returns = new Float64Array(M)
    const innovations = rnd.sequence(S_INNOVATION, e)
    const jumps = rnd.sequence(S_JUMP, e)
    let h = 1
    let sumVar = 0
    let sumMoves = 0
    for (let i = 0; i < M; i++) {
      const k = k0 + i
      const sd = p.sigmaPerMinute * seasonality.at(minuteStart(k)) * (slow[i] as number) * Math.sqrt(h)
      sigma[i] = sd
      garchH[i] = h
      const z = unitStudentT(innovations, p.studentNu)
      returns[i] = sd * z
      h = omega + p.garchAlpha * h * z * z + p.garchBeta * h
      const ratio = sd / p.sigmaPerMinute
      const lambda = lambdaBar * ratio * ratio
      // three draws every minute, used or not, so each minute's draws stay in step
      const occurs = jumps()
      const size = jumps()
      const second = jumps()
      if (occurs < 1 - Math.exp(-lambda)) {
        jumpSize[i] = laplace(size, p.jumpScale)
        jumpSecond[i] = 1 + Math.floor(59 * second)
      }
      sumVar += sd * sd
      sumMoves += (returns[i] as number) + (jumpSize[i] as number)
    }
    // the level: the epoch's moves plus a correction spread in proportion to each minute's
    // variance, so it ends on the next epoch's start level (a few thousandths of σ per minute)
    const start = levelAt(e)
    const gap = levelAt(e + 1) - start - sumMoves
    level[0] = start
    for (let i = 0; i < M; i++) {
      const s = sigma[i] as number
      level[i + 1] =
        (level[i] as number) + (returns[i] as number) + (gap * s * s) / sumVar + (jumpSize[i] as number)
    }
    level[M] = levelAt(e + 1)

    // the common basis: AR(1) per minute from its stationary law
    const b = params.basis
    const basisStep = b.sd * Math.sqrt(1 - b.phi * b.phi)
    basis[0] = b.sd * rnd.normal(S_BASIS, k0, 1)
    for (let i = 0; i < M; i++)
      basis[i + 1] = b.phi * (basis[i] as number) + basisStep * rnd.normal(S_BASIS, k0 + i + 1)

    return { k0, level, sigma, garchH, slow, jumpSize, jumpSecond, basis }
  }

  const epochs = new Map<number, Epoch>()
  const epochOf = (k: number): Epoch => {
    const e = Math.floor(k / M)
    let ep = epochs.get(e)
    if (ep) return ep
    ep = buildEpoch(e)
    if (epochs.size >= CACHED_EPOCHS) epochs.delete(epochs.keys().next().value as number)
    epochs.set(e, ep)
    return ep
  }

  const logAtMinute = (k: number): number => {
    // an epoch's first minute is the coarse chain's value itself: no need to build the epoch
    if (k % M === 0) return levelAt(k / M)
    const ep = epochOf(k)
    return ep.level[k - ep.k0] as number
  }

  // A minute's 61 second levels (0..60): a cumulative Brownian bridge from its open to its close
  // (never independent per-second noise: the mean of 60 prints must have variance σ²L/3), with the
  // minute's jump as a step at its second.
  const bridges = new Map<number, Float64Array>()
  const scratch = new Float64Array(61)
  const minuteSeconds = (k: number): Float64Array => {
    const hit = bridges.get(k)
    if (hit) return hit
    const ep = epochOf(k)
    const i = k - ep.k0
    const a = ep.level[i] as number
    const jump = ep.jumpSize[i] as number
    const jumpSecond = ep.jumpSecond[i] as number
    const drift = (ep.level[i + 1] as number) - a - jump
    const sdSecond = (ep.sigma[i] as number) / Math.sqrt(60)
    const w = scratch
    const draws = rnd.sequence(S_SECONDS, k)
    for (let j = 0; j < 30; j++) {
      const [z1, z2] = normalPair(draws)
      w[2 * j + 1] = (w[2 * j] as number) + sdSecond * z1
      w[2 * j + 2] = (w[2 * j + 1] as number) + sdSecond * z2
    }
    const end = w[60] as number
    const out = new Float64Array(61)
    for (let j = 0; j <= 60; j++) {
      const f = j / 60
      out[j] = a + f * drift + (w[j] as number) - f * end + (jump !== 0 && j >= jumpSecond ? jump : 0)
    }
    out[60] = ep.level[i + 1] as number
    if (bridges.size >= CACHED_MINUTE_BRIDGES) bridges.delete(bridges.keys().next().value as number)
    bridges.set(k, out)
    return out
  }

  const logAtSecond = (second: number): number => {
    const ms = second * 1000
    const k = Math.floor((ms - params.anchorMs) / MINUTE_MS)
    const j = Math.round((ms - minuteStart(k)) / 1000)
    return j === 0 ? logAtMinute(k) : (minuteSeconds(k)[j] as number)
  }

  return {
    params,
    minuteOf: (ms) => Math.floor((ms - params.anchorMs) / MINUTE_MS),
    minuteStart,
    logAtMinute,
    state(k) {
      const ep = epochOf(k)
      const i = k - ep.k0
      return {
        sigma: ep.sigma[i] as number,
        seasonal: seasonality.at(minuteStart(k)),
        slow: ep.slow[i] as number,
        garchH: ep.garchH[i] as number,
        jump: ep.jumpSize[i] as number,
        jumpSecond: ep.jumpSecond[i] as number,
      }
    },
    seasonal: (k) => seasonality.at(minuteStart(k)),
    basisAt(ms) {
      const k = Math.floor((ms - params.anchorMs) / MINUTE_MS)
      const f = (ms - minuteStart(k)) / MINUTE_MS
      const ep = epochOf(k)
      const i = k - ep.k0
      return (ep.basis[i] as number) * (1 - f) + (ep.basis[i + 1] as number) * f
    },
    logAtSecond,
    printCents: (second) => Math.round(params.anchorPrice * Math.exp(logAtSecond(second)) * 100),
  }
}
