// The simulator's bitcoin spot price (decisions §3): a one-minute log-price path with realistic
// volatility, occasional jumps and a very weak pull toward the anchor, drawn from the seed and
// anchored to absolute time, so every process with the same SIM_SEED sees the same prices.
import { MINUTE_MS, round2 } from '../../domain/contest.ts'
import type { PriceFeed } from '../../ports/venue.ts'
import { createSeededRandom } from './seeded-random.ts'

/** Where the path starts: 2026-01-01T00:00Z at 90 000 USD. Earlier instants run the path backwards. */
export const SIM_ANCHOR_MS = Date.UTC(2026, 0, 1)
export const SIM_ANCHOR_PRICE = 90_000
/** ≈ 51 %/yr diffusive volatility (0.0007·√525 600); jumps add about 2 points. */
export const SIM_SIGMA_PER_MINUTE = 0.0007
/** Log-sd of a day's volatility multiplier (mean-square 1), so calm and busy days both occur. */
export const SIM_DAY_VOL_SPREAD = 0.25
export const SIM_JUMPS_PER_MINUTE = 1 / 1500
export const SIM_JUMP_MIN = 0.003
export const SIM_JUMP_MAX = 0.008
/**
 * Daily pull of the log price toward the anchor: a half-life of about a year, so the stationary
 * spread of the log price is about ±0.43 (roughly 40 000–210 000 USD at two sd) and the price stays
 * plausible for decades, while over 15 minutes the drift is ~1000× smaller than one minute's σ.
 */
export const SIM_REVERSION_PER_DAY = 0.002

const MINUTES_PER_DAY = 1440
const DAY_MS = MINUTES_PER_DAY * MINUTE_MS
const MAX_JUMPS_PER_DAY = 12
const CACHED_DAYS = 400

// independent random streams
const S_DAY_DIFFUSION = 1
const S_DAY_VOL = 2
const S_JUMP_COUNT = 3
const S_JUMP = 4
const S_BRIDGE = 5
const S_INTRA_MINUTE = 6

export type SimPriceFeed = PriceFeed & {
  /** spotAt without the promise, for the simulated venue and tight loops */
  spotAtSync(at: number): number
  minuteClosesBeforeSync(at: number, count: number): number[]
  /** The per-minute σ the path is drawn with at `at`: the "true" volatility the venue prices with. */
  sigmaPerMinuteAt(at: number): number
}

type Jump = { minute: number; logSize: number }

export function createSimPriceFeed(opts: { seed: number }): SimPriceFeed {
  const rnd = createSeededRandom(opts.seed)

  const dayVolMultiplier = (day: number): number => {
    const s = SIM_DAY_VOL_SPREAD
    return Math.min(2.5, Math.max(0.5, Math.exp(s * rnd.normal(S_DAY_VOL, day) - s * s)))
  }
  const daySigma = (day: number): number => SIM_SIGMA_PER_MINUTE * dayVolMultiplier(day)
  const dayDiffusion = (day: number): number =>
    daySigma(day) * Math.sqrt(MINUTES_PER_DAY) * rnd.normal(S_DAY_DIFFUSION, day)

  const dayJumps = (day: number): Jump[] => {
    // Poisson count by inversion of one uniform
    const mean = SIM_JUMPS_PER_MINUTE * MINUTES_PER_DAY
    const u = rnd.uniform(S_JUMP_COUNT, day)
    let count = 0
    let p = Math.exp(-mean)
    let cdf = p
    while (u > cdf && count < MAX_JUMPS_PER_DAY) {
      count++
      p *= mean / count
      cdf += p
    }
    const jumps: Jump[] = []
    for (let i = 0; i < count; i++) {
      const minute = Math.floor(rnd.uniform(S_JUMP, day, 3 * i) * MINUTES_PER_DAY)
      const size = SIM_JUMP_MIN + (SIM_JUMP_MAX - SIM_JUMP_MIN) * rnd.uniform(S_JUMP, day, 3 * i + 1)
      const sign = rnd.uniform(S_JUMP, day, 3 * i + 2) < 0.5 ? -1 : 1
      jumps.push({ minute, logSize: sign * size })
    }
    return jumps
  }
  const jumpTotal = (jumps: readonly Jump[]): number => jumps.reduce((a, j) => a + j.logSize, 0)

  // Log level at the start of each day relative to the anchor: a coarse sequential walk (one step
  // per day, so reaching 2030 costs ~1 600 steps), extended lazily in both directions. Backwards the
  // walk mirrors the forward rule so it also reverts toward the anchor instead of exploding.
  const forward: number[] = [0]
  const backward: number[] = [0]
  const dayStart = (day: number): number => {
    if (day >= 0) {
      while (forward.length <= day) {
        const d = forward.length - 1
        const e = forward[d] as number
        forward.push(e * (1 - SIM_REVERSION_PER_DAY) + dayDiffusion(d) + jumpTotal(dayJumps(d)))
      }
      return forward[day] as number
    }
    while (backward.length <= -day) {
      const d = -backward.length
      const e = backward[-d - 1] as number
      backward.push(e * (1 - SIM_REVERSION_PER_DAY) - dayDiffusion(d) - jumpTotal(dayJumps(d)))
    }
    return backward[-day] as number
  }

  // One day's minute log levels: a discrete Brownian bridge from 0 to the day's diffusive move, the
  // day's jumps, and the reversion drift spread evenly, so the day ends exactly where the coarse
  // walk says. Memoised per day, with the oldest days evicted first.
  const days = new Map<number, Float64Array>()
  const dayPath = (day: number): Float64Array => {
    const cached = days.get(day)
    if (cached) return cached
    const start = dayStart(day)
    const end = dayStart(day + 1)
    const sigma = daySigma(day)
    const diffusion = dayDiffusion(day)
    const jumps = dayJumps(day)
    const drift = end - start - diffusion - jumpTotal(jumps)
    const jumpAt = new Float64Array(MINUTES_PER_DAY + 1)
    // a jump during minute p shows in the closes from minute p + 1 on
    for (const j of jumps) jumpAt[j.minute + 1] = (jumpAt[j.minute + 1] as number) + j.logSize
    const path = new Float64Array(MINUTES_PER_DAY)
    let bridge = 0
    let jumped = 0
    for (let j = 0; j < MINUTES_PER_DAY; j++) {
      jumped += jumpAt[j] as number
      path[j] = start + (drift * j) / MINUTES_PER_DAY + bridge + jumped
      const left = MINUTES_PER_DAY - j
      const z = rnd.normal(S_BRIDGE, day * MINUTES_PER_DAY + j)
      bridge += (diffusion - bridge) / left + sigma * Math.sqrt((left - 1) / left) * z
    }
    if (days.size >= CACHED_DAYS) days.delete(days.keys().next().value as number)
    days.set(day, path)
    return path
  }

  /** log level at whole minute `k` after the anchor */
  const logAtMinute = (k: number): number => {
    const day = Math.floor(k / MINUTES_PER_DAY)
    const j = k - day * MINUTES_PER_DAY
    // a day's first minute is the coarse walk's value itself: no need to build the day
    return j === 0 ? dayStart(day) : (dayPath(day)[j] as number)
  }
  const price = (logLevel: number): number => round2(SIM_ANCHOR_PRICE * Math.exp(logLevel))
  const minuteIndex = (at: number): number => Math.floor((at - SIM_ANCHOR_MS) / MINUTE_MS)

  const sigmaPerMinuteAt = (at: number): number => daySigma(Math.floor((at - SIM_ANCHOR_MS) / DAY_MS))

  const spotAtSync = (at: number): number => {
    if (!Number.isFinite(at)) throw new RangeError('at must be a finite instant')
    // the simulated index prints once a second, like a real one
    const second = Math.floor(at / 1000) * 1000
    const k = minuteIndex(second)
    const within = second - SIM_ANCHOR_MS - k * MINUTE_MS
    if (within === 0) return price(logAtMinute(k))
    // between closes: a Brownian-bridge point, deterministic per second
    const f = within / MINUTE_MS
    const a = logAtMinute(k)
    const b = logAtMinute(k + 1)
    const wiggle =
      sigmaPerMinuteAt(second) * Math.sqrt(f * (1 - f)) * rnd.normal(S_INTRA_MINUTE, second / 1000)
    return price(a + f * (b - a) + wiggle)
  }

  const minuteClosesBeforeSync = (at: number, count: number): number[] => {
    const last = minuteIndex(at)
    const out: number[] = []
    for (let k = last - count + 1; k <= last; k++) out.push(price(logAtMinute(k)))
    return out
  }

  return {
    name: 'sim',
    spotAtSync,
    minuteClosesBeforeSync,
    sigmaPerMinuteAt,
    spotAt: async (at) => spotAtSync(at),
    minuteClosesBefore: async (at, count) => minuteClosesBeforeSync(at, count),
    sources: () => [{ name: 'sim', state: 'ok', lastOkAt: null, midDollars: null, midAt: null, fresh: true }],
    start: async () => {},
    close: async () => {},
  }
}
