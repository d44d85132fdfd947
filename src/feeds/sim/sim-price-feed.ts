// The simulator's spot price feed (decisions §3): the exchanges of the sandbox (coinbase, kraken,
// bitstamp) behind the PriceFeed port, judged the way the live feed judges them — the spot is the
// median of the mids fresh at the instant asked (a source that went stale or off drops out of it),
// and a minute's close is the median of each source's last mid inside that minute (one that went off
// before the minute's end still closed it with its last message, as live and on a tape).
import { MINUTE_MS, round2 } from '../../domain/contest.ts'
import { MIN_PRICES_FOR_RANGE, type MinuteClose, type WholeMinute } from '../../domain/price-history.ts'
import type { Clock } from '../../ports/clock.ts'
import type { PriceFeed, SpotSourceStatus } from '../../ports/venue.ts'
import { median, mergedWholeMinute } from '../spot/median.ts'
import type { SimParams } from './sim-params.ts'
import { type SimWorld, sharedSimWorld } from './sim-world.ts'

// Two days of minute closes: a reading looks one day back (model v2's 1,440 minutes) and the clock
// only moves forward, so more would only hold a long backfill's past in memory for as long as the
// process lives (issue 32).
const CACHED_CLOSES = 2 * 1440

export type SimPriceFeed = PriceFeed & {
  /** spotAt without the promise, for tight loops */
  spotAtSync(at: number): number | null
  minuteClosesBeforeSync(at: number, count: number): number[]
  /**
   * every source as a client would see it at `at` (sources() reports the `clock`'s now, or without
   * one the instant last asked about)
   */
  sourcesAt(at: number): SpotSourceStatus[]
}

/**
 * `params` picks the sandbox of the seed without handing its world out: a caller that must not see
 * the hidden state (the model's fit) builds its feed and venue this way.
 */
export function createSimPriceFeed(opts: {
  seed: number
  params?: SimParams
  world?: SimWorld
  /** the service's (virtual) clock: sources() then reports every source at its now */
  clock?: Clock
}): SimPriceFeed {
  const world = opts.world ?? sharedSimWorld(opts.seed, opts.params)
  const { sources } = world
  const maxAgeMs = world.params.sources.maxAgeMs
  const all = sources.names.map((_, i) => i)
  let lastAskedAt: number | null = null

  const spotAtSync = (at: number): number | null => {
    if (!Number.isFinite(at)) throw new RangeError('at must be a finite instant')
    lastAskedAt = at
    const mids: number[] = []
    for (const i of all) {
      const seen = sources.observe(i, at)
      if (seen && at - seen.observedAt <= maxAgeMs) mids.push(seen.mid)
    }
    const m = median(mids)
    return m === null ? null : round2(m)
  }

  // a source's last message inside the minute starting at m: one that went off before the minute's
  // end still closed it with the last message it sent, as live and on a tape (decisions §12)
  const lastMessageInside = (i: number, m: number) => {
    for (let at = m + MINUTE_MS - 1; at >= m; at -= 1_000) {
      const seen = sources.observe(i, at)
      if (seen) return seen.observedAt >= m ? seen : null
    }
    return null
  }

  // a source's range and mean of the minute starting at m as the live minute book keeps them: its
  // messages inside the minute and the one it opened at (sent in the minute before), when enough came
  const wholeMinuteInside = (i: number, m: number): WholeMinute | null => {
    const opening = sources.observe(i, m - 1)
    if (!opening || opening.observedAt < m - MINUTE_MS) return null
    let high = opening.mid
    let low = opening.mid
    let current = opening.mid
    let sum = 0
    let prices = 0
    let lastAt = Number.NaN
    let previous = opening.mid
    let lastMove = 0
    let squares = 0
    let crosses = 0
    let largest = 0
    // a source sends at most once a second: the latest message by each second's end is each one,
    // and the price in force at the next whole second
    for (let at = m + 999; at < m + MINUTE_MS; at += 1_000) {
      const seen = sources.observe(i, at)
      if (seen && seen.observedAt >= m && seen.observedAt !== lastAt) {
        lastAt = seen.observedAt
        prices++
        current = seen.mid
        if (seen.mid > high) high = seen.mid
        if (seen.mid < low) low = seen.mid
      }
      sum += current
      // a second whose price did not change adds nothing, as in the minute book
      if (current !== previous) {
        const move = Math.log(current / previous)
        squares += move * move
        crosses += move * lastMove
        if (Math.abs(move) > Math.abs(largest)) largest = move
        lastMove = move
        previous = current
      } else lastMove = 0
    }
    return prices >= MIN_PRICES_FOR_RANGE
      ? { high, low, mean: sum / (MINUTE_MS / 1_000), squares, crosses, largest }
      : null
  }

  // as live: a minute's close is the median of each source's last mid inside it, its range the
  // medians of the sources' highs and lows (memoised: a reading asks for the same hour of closes as
  // the one before it)
  const closes = new Map<number, MinuteClose | null>()
  const closeOf = (m: number): MinuteClose | null => {
    const hit = closes.get(m)
    if (hit !== undefined) return hit
    const mids: number[] = []
    const wholes: WholeMinute[] = []
    for (const i of all) {
      const seen = lastMessageInside(i, m)
      if (!seen) continue
      mids.push(seen.mid)
      const whole = wholeMinuteInside(i, m)
      if (whole) wholes.push(whole)
    }
    const close = median(mids)
    const made =
      close === null ? null : { at: m + MINUTE_MS, priceDollars: round2(close), ...mergedWholeMinute(wholes) }
    if (closes.size >= CACHED_CLOSES) closes.delete(closes.keys().next().value as number)
    closes.set(m, made)
    return made
  }

  const minuteClosesBeforeSync = (at: number, count: number): number[] => {
    // the last whole minute ending at or before `at`
    const last = Math.floor(at / MINUTE_MS) * MINUTE_MS - MINUTE_MS
    const out: number[] = []
    for (let m = last - (count - 1) * MINUTE_MS; m <= last; m += MINUTE_MS) {
      const close = closeOf(m)
      if (close !== null) out.push(close.priceDollars)
    }
    return out
  }

  // the same closes stamped with their minute's end, a missing minute left out (PriceFeed port)
  const stampedClosesBefore = (at: number, count: number): MinuteClose[] => {
    const last = Math.floor(at / MINUTE_MS) * MINUTE_MS - MINUTE_MS
    const out: MinuteClose[] = []
    for (let m = last - (count - 1) * MINUTE_MS; m <= last; m += MINUTE_MS) {
      const close = closeOf(m)
      if (close !== null) out.push(close)
    }
    return out
  }

  const sourcesAt = (at: number): SpotSourceStatus[] =>
    sources.names.map((name, i) => {
      const seen = sources.observe(i, at)
      return {
        name,
        state: seen === null ? 'down' : 'ok',
        lastOkAt: seen?.observedAt ?? null,
        midDollars: seen ? round2(seen.mid) : null,
        midAt: seen?.observedAt ?? null,
        fresh: seen !== null && at - seen.observedAt <= maxAgeMs,
      }
    })

  return {
    name: 'sim',
    spotAtSync,
    minuteClosesBeforeSync,
    sourcesAt,
    spotAt: async (at) => spotAtSync(at),
    minuteClosesBefore: async (at, count) => minuteClosesBeforeSync(at, count),
    stampedClosesBefore: async (at, count) => stampedClosesBefore(at, count),
    // the simulator reads every source at `at` itself, so it observes at `at`
    observeSpot: async (at) => {
      const price = spotAtSync(at)
      if (price === null) return null
      return {
        priceDollars: price,
        observedAt: at,
        freshSources: sourcesAt(at).filter((s) => s.fresh).length,
      }
    },
    sources: () =>
      opts.clock
        ? sourcesAt(opts.clock.now())
        : lastAskedAt === null
          ? sources.names.map((name) => ({
              name,
              state: 'ok',
              lastOkAt: null,
              midDollars: null,
              midAt: null,
              fresh: true,
            }))
          : sourcesAt(lastAskedAt),
    start: async () => {},
    close: async () => {},
  }
}
