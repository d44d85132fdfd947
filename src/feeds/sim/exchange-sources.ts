// The exchanges the engine prices bitcoin from (decisions §3): each source's mid is the index plus
// the common basis, the source's own daily offset and per-second noise. Each source updates once a
// second, and at times goes stale (stops sending: its last mid and instant freeze) or off (no mid).
import type { IndexPath } from './index-path.ts'
import { createSeededRandom } from './seeded-random.ts'
import type { SimParams } from './sim-params.ts'

const DAY_S = 86_400
const HOUR_S = 3_600

const S_DAILY_OFFSET = 201
const S_SOURCE_OFFSET = 202
const S_SOURCE_NOISE = 203
const S_STALE = 204
const S_OFF = 205

export type SourceCondition = 'ok' | 'stale' | 'off'

/** A source's latest mid as a client would hold it at some instant. */
export type SourceObservation = { mid: number; bid: number; ask: number; observedAt: number }

export type ExchangeSources = {
  readonly names: readonly string[]
  condition(source: number, second: number): SourceCondition
  /** the latest message of `source` at or before `at` (ms), or null while it is off */
  observe(source: number, at: number): SourceObservation | null
}

export function createExchangeSources(seed: number, params: SimParams, index: IndexPath): ExchangeSources {
  const rnd = createSeededRandom(seed)
  const b = params.basis
  const src = params.sources

  // an episode of `stream` for `source` starting in hour `hour`, if the hour has one
  // (memoised: every spot and every minute close asks about the same few hours)
  const episodes = new Map<number, { from: number; to: number } | null>()
  const episode = (
    stream: number,
    rate: number,
    range: readonly [number, number],
    source: number,
    hour: number,
  ) => {
    const key = (hour * 8 + source) * 2 + (stream === S_OFF ? 1 : 0)
    const hit = episodes.get(key)
    if (hit !== undefined) return hit
    let made: { from: number; to: number } | null = null
    if (rnd.uniform(stream, hour, 3 * source) < rate) {
      const from = hour * HOUR_S + Math.floor(HOUR_S * rnd.uniform(stream, hour, 3 * source + 1))
      const length =
        range[0] + Math.floor((range[1] - range[0] + 1) * rnd.uniform(stream, hour, 3 * source + 2))
      made = { from, to: from + length }
    }
    // a day's lookback asks about 24 hours × 16 keys; more would keep a long backfill's past
    if (episodes.size >= 4_096) episodes.clear()
    episodes.set(key, made)
    return made
  }
  // episodes last under an hour, so only this hour's and the previous one's can cover `second`
  const covering = (
    stream: number,
    rate: number,
    range: readonly [number, number],
    source: number,
    second: number,
  ) => {
    const hour = Math.floor(second / HOUR_S)
    const now = episode(stream, rate, range, source, hour)
    if (now && second >= now.from && second < now.to) return now
    const before = episode(stream, rate, range, source, hour - 1)
    return before && second >= before.from && second < before.to ? before : null
  }

  const condition = (source: number, second: number): SourceCondition => {
    if (covering(S_OFF, src.offPerHour, src.offSeconds, source, second)) return 'off'
    return covering(S_STALE, src.stalePerHour, src.staleSeconds, source, second) ? 'stale' : 'ok'
  }

  // the common daily offset plus the source's own, per UTC day
  const offsets = new Map<number, number>()
  const dailyOffset = (source: number, day: number): number => {
    const key = day * 16 + source
    let v = offsets.get(key)
    if (v === undefined) {
      v =
        b.dailyOffsetSd * rnd.normal(S_DAILY_OFFSET, day) +
        b.sourceOffsetSd * rnd.normal(S_SOURCE_OFFSET, day, source)
      if (offsets.size >= 10_000) offsets.clear()
      offsets.set(key, v)
    }
    return v
  }

  const midAt = (source: number, second: number): number => {
    const logBasis =
      index.basisAt(second * 1000) +
      dailyOffset(source, Math.floor(second / DAY_S)) +
      b.sourceNoiseSd * rnd.normal(S_SOURCE_NOISE, second, source)
    return params.anchorPrice * Math.exp(index.logAtSecond(second) + logBasis)
  }

  return {
    names: src.names,
    condition,
    observe(source, at) {
      const second = Math.floor(at / 1000)
      if (covering(S_OFF, src.offPerHour, src.offSeconds, source, second)) return null
      const stale = covering(S_STALE, src.stalePerHour, src.staleSeconds, source, second)
      // a stale source's last message is the one just before the episode began
      const last = stale ? stale.from - 1 : second
      if (stale && condition(source, last) === 'off') return null
      const mid = midAt(source, last)
      return { mid, bid: mid - b.halfSpreadDollars, ask: mid + b.halfSpreadDollars, observedAt: last * 1000 }
    },
  }
}
