// `contest-signals sim tape` (decisions §12): the simulator's world written as a tape in Kalshi's own
// shapes, second by second — spot per source, every change of each market as the venue would show
// it, a book every few seconds of each live contest, the exchange status — so that a replay of the
// tape gives the same contests and signals as the simulator itself. It reads the simulator only
// through the ports the engine reads it through (Venue, PriceFeed), never its internals, so it keeps
// working whatever the simulator does inside.

import type { Settlement } from '../../domain/contest.ts'
import { CONTEST_MS } from '../../domain/contest.ts'
import type { MarketPhase, PriceFeed, Venue, VenueMarket } from '../../ports/venue.ts'
import type { TapeHeader, TapeRecord } from '../../tape/tape-format.ts'
import { KALSHI_EXCHANGE_OPEN, kalshiMarket, kalshiOrderbook } from './kalshi-bodies.ts'

const SECOND_MS = 1_000
const DAY_MS = 86_400_000
/** Spot history written before the first contest: the model's hour of minute closes, and slack. */
export const SIM_TAPE_WARMUP_MS = 70 * 60_000
/** Written after the last contest closes, for its result. */
export const SIM_TAPE_TAIL_MS = 5 * 60_000
/** A book every this often during each live contest (on the contest's own 2-s grid, so every minute boundary has one). */
export const SIM_TAPE_BOOK_EVERY_MS = 2_000
/** Half the spread a source quotes around the index (USD): bid and ask average back to it exactly. */
const HALF_SPREAD_USD = 0.5

export type SimTapeSink = {
  write(record: TapeRecord): void
  /** awaited now and then, so a fast writer never holds a day of tape in memory */
  buffered(): number
  flush(): Promise<void>
}

export type SimTapeOptions = {
  venue: Venue
  feed: PriceFeed
  series: readonly string[]
  /** the spot sources written, each at one update a second */
  sources: readonly string[]
  /** first contest window opens here (a quarter hour) */
  from: number
  days: number
  origin: string
  /** sources written as trade prices (`px`) rather than a bid and an ask */
  tradeOnlySources?: readonly string[]
  onProgress?: (at: number, from: number, to: number) => void
}

export function simTapeHeader(
  opts: Pick<SimTapeOptions, 'series' | 'sources' | 'from' | 'days' | 'origin'>,
): TapeHeader {
  return {
    tape: 1,
    venue: 'kalshi',
    series: [...opts.series],
    sources: [...opts.sources],
    from: new Date(opts.from).toISOString(),
    to: new Date(opts.from + opts.days * DAY_MS + SIM_TAPE_TAIL_MS).toISOString(),
    origin: opts.origin,
  }
}

type Followed = { market: VenueMarket; lastKey: string }

/** Writes the records of the tape (the header is the writer's) into `sink`. */
export async function writeSimTape(opts: SimTapeOptions, sink: SimTapeSink): Promise<void> {
  const { venue, feed } = opts
  const start = opts.from - SIM_TAPE_WARMUP_MS
  const lastOpen = opts.from + opts.days * DAY_MS
  const end = lastOpen + SIM_TAPE_TAIL_MS
  const tradeOnly = new Set(opts.tradeOnlySources ?? [])
  const followed = new Map<string, Followed>()

  /** Writes the market's body when what the venue shows of it changed (a poll that changed nothing is no record). */
  const writeMarket = (
    f: Followed,
    t: number,
    market: VenueMarket,
    phase: MarketPhase,
    settlement: Settlement | null,
  ): void => {
    const strike = phase === 'upcoming' ? null : market.strikePriceDollars
    const key = `${phase}|${strike}|${market.opensAt}|${market.expiresAt}|${JSON.stringify(settlement)}`
    if (key === f.lastKey) return
    f.lastKey = key
    sink.write({
      t,
      k: 'market',
      m: kalshiMarket({ ...market, strikePriceDollars: strike }, phase, settlement, null),
    })
  }

  sink.write({ t: start, k: 'exchange', status: KALSHI_EXCHANGE_OPEN })
  for (let s = start; s <= end; s += SECOND_MS) {
    // The simulator's index prints once a second and closes each minute at the minute's boundary;
    // a live minute close is the last price received before the boundary, so each print is stamped
    // 1 ms before its second (decisions §12: nothing after t is visible at t).
    const spot = await feed.spotAt(s)
    if (spot !== null)
      for (const src of opts.sources)
        sink.write(
          tradeOnly.has(src)
            ? { t: s - 1, k: 'spot', src, px: spot }
            : { t: s - 1, k: 'spot', src, bid: spot - HALF_SPREAD_USD, ask: spot + HALF_SPREAD_USD },
        )

    if (s >= opts.from - CONTEST_MS && s < lastOpen) {
      for (const series of opts.series) {
        // the next window is listed a quarter ahead, without its strike, as the venue lists it
        const next = await venue.marketAt(series, s + CONTEST_MS)
        if (next && next.opensAt >= opts.from && next.opensAt < lastOpen && !followed.has(next.ticker)) {
          const f: Followed = { market: next, lastKey: '' }
          followed.set(next.ticker, f)
          writeMarket(f, s, next, 'upcoming', null)
        }
      }
    }

    for (const [ticker, f] of followed) {
      const market = await venue.market(ticker, s)
      if (!market) continue
      f.market = market
      const settlement = market.phase === 'closed' ? await venue.result(ticker, s) : null
      const trading = market.phase === 'trading' && s >= market.opensAt && s < market.expiresAt
      const onBookGrid = trading && (s - market.opensAt) % SIM_TAPE_BOOK_EVERY_MS === 0
      const quote = onBookGrid ? await venue.quote(ticker, s) : null
      const phase: MarketPhase = s < market.opensAt ? 'upcoming' : market.phase
      writeMarket(f, s, market, phase, settlement)
      if (onBookGrid) sink.write({ t: s, k: 'book', ticker, ob: kalshiOrderbook(quote) })
      if (settlement) followed.delete(ticker)
    }

    if (sink.buffered() > 4 << 20) await sink.flush()
    if ((s - start) % 3_600_000 === 0) opts.onProgress?.(s, start, end)
  }
}
