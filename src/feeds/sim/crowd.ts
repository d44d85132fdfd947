// The venue as a crowd (decisions §3, issue 29): it knows the settlement rule and the index as it saw
// it a few seconds ago, and estimates how volatile bitcoin is from the past like a person would (an
// EWMA of the minute returns it has seen; `volEstimator: 'true'` makes it the old noisy oracle). It
// errs in known ways — a lognormal error on its volatility guess, no jumps or fat tails (a normal
// CDF), a bias of one of several forms (crowd-bias.ts), logit noise — and its book is sometimes the
// previous minute's, wide, or one-sided near the extremes. Its fair value is computed here with the
// sandbox's own formula: nothing of the model is used (a lint rule forbids it).
import { biasedProbability } from './crowd-bias.ts'
import { createPastVolatility } from './crowd-volatility.ts'
import { normalCdf, normalPair } from './draws.ts'
import type { IndexPath } from './index-path.ts'
import type { SeededRandom } from './seeded-random.ts'
import type { CrowdParams } from './sim-params.ts'
import { DOLLAR, KALSHI_GRID, type TickGrid } from './tick-grid.ts'

const MINUTE_MS = 60_000

const S_VOL_ERROR = 301
const S_NOISE = 302
const S_STALE_BOOK = 303
const S_SPREAD = 304
const S_SIZE = 305

export type CrowdContest = { key: number; opensAt: number; expiresAt: number; strikeCents: number }

/** Bids per side, ascending, best last: [price in millionths, contracts in hundredths]. */
export type CrowdBook = { yes: [number, number][]; no: [number, number][] }

/**
 * The probability of YES a crowd computes at whole second `second` from the index print it sees,
 * the strike and the settlement rule, with `volLevel` its guess of the volatility level (the
 * multiplier of σ̄ · seasonal), Gaussian on the log price.
 */
export function crowdFairValue(
  index: IndexPath,
  contest: CrowdContest,
  second: number,
  volLevel: number,
): number {
  const sigmaBar = index.params.index.sigmaPerMinute
  const endS = contest.expiresAt / 1000
  const windowS = endS - 60
  const threshold = (contest.strikeCents - 0.5) / 100 // a mean half a cent below still rounds up to a tie
  const spot = index.printCents(second) / 100
  const kLast = index.minuteOf(contest.expiresAt - MINUTE_MS)
  const lastVar = (sigmaBar * index.seasonal(kLast) * volLevel) ** 2
  if (second < windowS) {
    // variance of the settlement mean: the minutes before the window plus a third of the last one
    let v = lastVar / 3
    for (let s = second; s < windowS; ) {
      const k = index.minuteOf(s * 1000)
      const next = Math.min(windowS, Math.floor(index.minuteStart(k + 1) / 1000))
      v += ((next - s) / 60) * (sigmaBar * index.seasonal(k) * volLevel) ** 2
      s = next
    }
    return normalCdf(Math.log(spot / threshold) / Math.sqrt(v))
  }
  // inside the window: the prints seen so far are part of the mean
  let seen = 0
  for (let s = windowS; s <= second; s++) seen += index.printCents(s) / 100
  const left = endS - 1 - second
  if (left <= 0) return seen / 60 >= threshold ? 1 : 0
  const sdSum = spot * Math.sqrt(((lastVar / 60) * left * (left + 1) * (2 * left + 1)) / 6)
  return normalCdf(((seen + left * spot) / 60 - threshold) / (sdSum / 60))
}

export type Crowd = {
  /** the crowd's mid (probability of YES) at `at`, before the book is laid on the grid */
  mid(contest: CrowdContest, at: number): number
  book(contest: CrowdContest, at: number): CrowdBook
}

/**
 * `grid`: the venue's price grid the book is laid on (Kalshi's tapered grid unless another venue's);
 * `c`: the crowd's settings (SIM_PARAMS.crowd unless another venue's).
 */
export function createCrowd(
  rnd: SeededRandom,
  index: IndexPath,
  grid: TickGrid = KALSHI_GRID,
  c: CrowdParams = index.params.crowd,
): Crowd {
  const pastVolatility = createPastVolatility(index, c.ewmaHalfLifeMinutes)
  const { floorToGrid, stepDown, stepUp, tickAt } = grid

  // what the crowd draws once per contest minute: its errors, whether the minute opens stale, the
  // spread and the sizes at each level (memoised: a tape asks for the book every few seconds)
  type MinuteDraws = { volError: number; noise: number; stale: boolean; ticks: number; sizes: number[] }
  const minutes = new Map<number, MinuteDraws>()
  const drawsFor = (contest: CrowdContest, minute: number): MinuteDraws => {
    const cacheKey = contest.key * 16 + minute
    const hit = minutes.get(cacheKey)
    if (hit) return hit
    const [lo, hi] = c.spreadTicks
    const sizeDraws = rnd.sequence(S_SIZE, cacheKey)
    const sizes: number[] = []
    for (let i = 0; i < 2 * c.bookLevels; i++) {
      const z = normalPair(sizeDraws)[0]
      sizes.push(Math.max(100, Math.round(100 * c.levelSizeMedian * Math.exp(c.levelSizeLogSd * z))))
    }
    const made: MinuteDraws = {
      volError:
        c.volErrorContestSd * rnd.normal(S_VOL_ERROR, contest.key) +
        c.volErrorMinuteSd * rnd.normal(S_VOL_ERROR, contest.key, 1 + minute),
      noise:
        c.noiseContestSd * rnd.normal(S_NOISE, contest.key) +
        c.noiseMinuteSd * rnd.normal(S_NOISE, contest.key, 1 + minute),
      stale: minute >= 1 && rnd.uniform(S_STALE_BOOK, contest.key, minute) < c.staleQuoteRate,
      ticks: lo + Math.floor((hi - lo + 1) * rnd.uniform(S_SPREAD, contest.key, minute)),
      sizes,
    }
    if (minutes.size >= 2_000) minutes.delete(minutes.keys().next().value as number)
    minutes.set(cacheKey, made)
    return made
  }

  // a minute that opens stale shows the book of the previous minute's last second for a while
  const effectiveInstant = (contest: CrowdContest, at: number): { at: number; minute: number } => {
    const minute = Math.floor((at - contest.opensAt) / MINUTE_MS)
    const minuteStart = contest.opensAt + minute * MINUTE_MS
    if (at - minuteStart < c.staleQuoteMs && drawsFor(contest, minute).stale)
      return { at: minuteStart - 1000, minute: minute - 1 }
    return { at, minute }
  }

  const midAt = (contest: CrowdContest, at: number, minute: number): number => {
    // what the crowd has seen: the index `lagSeconds` ago
    const second = Math.floor(at / 1000) - c.lagSeconds
    const draws = drawsFor(contest, minute)
    let level: number
    if (c.volEstimator === 'true') {
      const state = index.state(index.minuteOf(at))
      level = state.slow * Math.sqrt(state.garchH)
    } else level = pastVolatility.levelBefore(index.minuteOf(second * 1000))
    const volLevel = level * Math.exp(draws.volError)
    const fair = Math.min(1 - 1e-9, Math.max(1e-9, crowdFairValue(index, contest, second, volLevel)))
    const progress = Math.min(1, Math.max(0, (at - contest.opensAt) / (contest.expiresAt - contest.opensAt)))
    return biasedProbability(c, fair, progress, draws.noise)
  }

  return {
    mid(contest, at) {
      const e = effectiveInstant(contest, at)
      return midAt(contest, e.at, e.minute)
    },
    book(contest, at) {
      const e = effectiveInstant(contest, at)
      const mid = midAt(contest, e.at, e.minute)
      const q = Math.round(mid * DOLLAR)
      const { ticks, sizes } = drawsFor(contest, e.minute)
      // the spread is `ticks` steps of the grid, centred on the mid as far as the grid allows
      let bid = floorToGrid(q - (ticks * tickAt(q)) / 2)
      bid = Math.min(Math.max(bid, 1_000), DOLLAR - 1_000)
      let ask = bid
      for (let i = 0; i < ticks; i++) ask = stepUp(ask)
      if (ask > DOLLAR - 1_000) {
        ask = DOLLAR - 1_000
        bid = ask
        for (let i = 0; i < ticks; i++) bid = stepDown(bid)
      }
      const side = (best: number, s: number): [number, number][] => {
        const levels: [number, number][] = []
        let price = best
        for (let level = 0; level < c.bookLevels && price >= 1_000; level++) {
          levels.unshift([price, sizes[s * c.bookLevels + level] as number])
          price = stepDown(price)
        }
        return levels
      }
      // a YES ask at A is a NO bid at 1 − A; near the extremes nobody bids for the long shot, so
      // the favourite has no ask
      const longShotYes = mid < c.oneSidedBelow
      const longShotNo = mid > 1 - c.oneSidedBelow
      return {
        yes: longShotYes ? [] : side(bid, 0),
        no: longShotNo ? [] : side(DOLLAR - ask, 1),
      }
    },
  }
}
