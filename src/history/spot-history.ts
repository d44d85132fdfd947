// One-minute BTC-USD closes per exchange from its public candle history (history endpoints §2):
// Coinbase pages of 300 (newest first), Bitstamp pages of 1000 (oldest first, the forming candle
// excluded), Kraken's OHLC, which holds only its last 720 minutes (12 h) whatever is asked. Rows are
// read by the live feed's own parsers (src/feeds/spot); a minute the exchange did not answer stays
// missing — a gap, never filled. Closes already fetched in a run are kept, so the next day's warm-up
// does not fetch them again.
import type { SpotSourceName } from '../config/settings.ts'
import { parseBitstampCandles } from '../feeds/spot/bitstamp.ts'
import { parseCoinbaseCandles } from '../feeds/spot/coinbase.ts'
import { parseKrakenCandles } from '../feeds/spot/kraken.ts'
import type { MinuteClose } from '../feeds/spot/spot-exchange.ts'
import { HistoryError, type HistoryHost } from './history-http.ts'

const MINUTE_MS = 60_000
/** Kraken's OHLC keeps this many one-minute rows: the last 12 hours (§2.3). */
export const KRAKEN_OHLC_REACH_MS = 720 * MINUTE_MS

/** The documented pace per exchange: Coinbase 10/s (burst 15), Bitstamp ~16/s, Kraken ~1/s per pair (§2.4). */
export const SPOT_REQUESTS_PER_SEC: Readonly<Record<SpotSourceName, number>> = {
  coinbase: 5,
  bitstamp: 5,
  kraken: 0.8,
}

/** One page of closes for minutes in [from, to): the exchange's own request and parser. */
type PageFetch = (host: HistoryHost, from: number, to: number) => Promise<MinuteClose[]>

const read = async (where: string, parse: () => MinuteClose[]): Promise<MinuteClose[]> => {
  try {
    return parse()
  } catch (err) {
    throw new HistoryError(where, `unexpected answer: ${(err as Error).message}`)
  }
}

const PAGES: Readonly<Record<SpotSourceName, { minutes: number; fetch: PageFetch }>> = {
  coinbase: {
    minutes: 300,
    fetch: async (host, from, to) => {
      const path = '/products/BTC-USD/candles'
      // both ends inclusive: the last minute asked is to − 1 min, so a page is at most 300 candles
      const body = await host.get(path, {
        granularity: '60',
        start: new Date(from).toISOString(),
        end: new Date(to - MINUTE_MS).toISOString(),
      })
      return read(`coinbase GET ${path}`, () => parseCoinbaseCandles(body))
    },
  },
  bitstamp: {
    minutes: 1000,
    fetch: async (host, from, to) => {
      const path = '/api/v2/ohlc/btcusd/'
      const body = await host.get(path, {
        step: '60',
        limit: String(Math.round((to - from) / MINUTE_MS)),
        start: String(from / 1000),
        end: String((to - MINUTE_MS) / 1000),
        exclude_current_candle: 'true',
      })
      return read(`bitstamp GET ${path}`, () => parseBitstampCandles(body))
    },
  },
  kraken: {
    // one answer holds all Kraken has; asking again with another `since` gains nothing
    minutes: Number.POSITIVE_INFINITY,
    fetch: async (host, from) => {
      const path = '/0/public/OHLC'
      const body = await host.get(path, { pair: 'XBTUSD', interval: '1', since: String(from / 1000 - 60) })
      // the last row is the minute still forming (§2.3): never a close
      return read(`kraken GET ${path}`, () => parseKrakenCandles(body).slice(0, -1))
    },
  },
}

export type SpotHistory = {
  readonly name: SpotSourceName
  /** Closes of the minutes in [from, to) the exchange has, by minute start; minutes not in it are gaps. */
  closes(from: number, to: number): Promise<Map<number, number>>
}

export function createSpotHistory(opts: {
  name: SpotSourceName
  host: HistoryHost
  /** wall time: a candle whose minute has not ended is not final */
  now: () => number
  /** said once, when Kraken is asked for minutes it no longer holds */
  warn: (message: string) => void
}): SpotHistory {
  const page = PAGES[opts.name]
  const known = new Map<number, number>()
  // [coveredFrom, coveredTo): minutes already asked for, answered or not
  let coveredFrom = Number.POSITIVE_INFINITY
  let coveredTo = Number.NEGATIVE_INFINITY
  let warned = false

  const fetchRange = async (from: number, to: number): Promise<void> => {
    if (opts.name === 'kraken' && from < opts.now() - KRAKEN_OHLC_REACH_MS && !warned) {
      warned = true
      opts.warn(
        `kraken keeps only its last 12 h of one-minute candles: minutes before ${new Date(opts.now() - KRAKEN_OHLC_REACH_MS).toISOString()} are gaps`,
      )
    }
    const last = opts.now() - MINUTE_MS
    for (let a = from; a < to; a += page.minutes * MINUTE_MS) {
      const b = Math.min(to, a + page.minutes * MINUTE_MS)
      for (const { minuteStart, close } of await page.fetch(opts.host, a, b))
        if (minuteStart >= from && minuteStart < to && minuteStart <= last) known.set(minuteStart, close)
      if (!Number.isFinite(page.minutes)) break
    }
  }

  return {
    name: opts.name,
    async closes(from, to) {
      if (from >= coveredFrom && from <= coveredTo) {
        if (to > coveredTo) {
          await fetchRange(coveredTo, to)
          coveredTo = to
        }
      } else {
        known.clear()
        await fetchRange(from, to)
        coveredTo = to
      }
      coveredFrom = from
      // what an earlier day needed and a later one never asks for again
      for (const minute of known.keys()) if (minute < from) known.delete(minute)
      const out = new Map<number, number>()
      for (const [minute, close] of known) if (minute < to) out.set(minute, close)
      return out
    },
  }
}
