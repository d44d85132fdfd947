// One UTC day of a Kalshi series from its public history (history endpoints §1.9): the settled markets
// whose records fall in the day, routed between the historical and the live tier by
// `/historical/cutoff` (both tiers within a day of it, de-duplicated by ticker), and each market's
// one-minute candles, read for the quote standing at each candle's end. Placement on the tape is
// minute-grain.ts's: the market as it stood open, closed and settled; a book per candle end.
import { formatTicker, QUARTER_MS, REPEATED_HOUR_MARK } from '../domain/ticker.ts'
import { parseRfc3339 } from '../feeds/kalshi/market.ts'
import { isFinalStatus } from '../feeds/kalshi/market-status.ts'
import { kalshiCandleBookRecord, kalshiSettledMarketRecords } from '../tape/minute-grain.ts'
import type { TapeRecord } from '../tape/tape-format.ts'
import { HistoryError, type HistoryHost } from './history-http.ts'
import { candleQuotes } from './kalshi-candles.ts'
import { DAY_MS, type DayRecords, MINUTE_MS, type VenueHistory } from './venue-history.ts'

/** Unsigned limits are undocumented; one tool's experience and the reference say stay near 3/s (§1.8). */
export const KALSHI_REQUESTS_PER_SEC = 3
/** Markets closing this long before a day starts may still settle in it (settlement_ts lags the close). */
const SETTLE_LOOKBACK_MS = 3_600_000
/** Tickers per `/historical/markets?tickers=` call: the maximum is undocumented, keep URLs short (§1.3). */
const TICKERS_PER_CALL = 50
const HOUR_MS = 3_600_000
/** Tickers per batch candle call (documented maximum 100, §1.6.1). */
const BATCH_CANDLE_TICKERS = 100
/** What the venue says about the exchange in history: nothing. Written once per day file, as stated. */
export const ASSUMED_EXCHANGE_STATUS = { trading_active: true, exchange_active: true } as const

type Market = {
  raw: Record<string, unknown>
  ticker: string
  openMs: number
  closeMs: number
  /** `settlement_ts`, where the venue gave one */
  settledMs: number | null
  tier: Tier
}
type Tier = 'historical' | 'live'

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

function marketsOf(
  body: unknown,
  where: string,
  series: string,
  tier: Tier,
): { list: Market[]; cursor: string } {
  if (!isRecord(body) || !Array.isArray(body.markets))
    throw new HistoryError(where, 'unexpected answer: no "markets" list')
  const list: Market[] = []
  for (const [i, m] of body.markets.entries()) {
    if (!isRecord(m) || typeof m.ticker !== 'string')
      throw new HistoryError(where, `unexpected answer: markets[${i}] has no ticker`)
    // a filter the venue ignored shows as other series' markets: they are not ours
    if (!m.ticker.startsWith(`${series}-`)) continue
    const openMs = parseRfc3339(m.open_time)
    const closeMs = parseRfc3339(m.close_time)
    if (openMs === null || closeMs === null || closeMs <= openMs)
      throw new HistoryError(
        where,
        `unexpected answer: markets[${i}] (${m.ticker}) has no open_time/close_time`,
      )
    list.push({ raw: m, ticker: m.ticker, openMs, closeMs, settledMs: parseRfc3339(m.settlement_ts), tier })
  }
  const cursor = typeof body.cursor === 'string' ? body.cursor : ''
  return { list, cursor }
}

export function createKalshiHistory(opts: {
  host: HistoryHost
  series: string
  now: () => number
}): VenueHistory {
  const { host, series } = opts
  let cutoff: number | null = null

  // the boundary moves in steps (§1.1): read once per run, and only when a day is fetched at all
  const cutoffMs = async (): Promise<number> => {
    if (cutoff !== null) return cutoff
    const path = '/historical/cutoff'
    const body = await host.get(path)
    const at = isRecord(body) ? parseRfc3339(body.market_settled_ts) : null
    if (at === null) throw new HistoryError(`kalshi GET ${path}`, 'unexpected answer: no "market_settled_ts"')
    cutoff = at
    return at
  }

  const pages = async (path: string, query: Record<string, string>, tier: Tier): Promise<Market[]> => {
    const out: Market[] = []
    // a venue whose cursors go round (a fault) would be paged for ever: a cursor met before ends it
    const seen = new Set<string>([''])
    // the cursor does not remember filters: they go with every page (§1.7)
    for (let cursor = ''; ; ) {
      const body = await host.get(path, { ...query, ...(cursor ? { cursor } : {}) })
      const page = marketsOf(body, `kalshi GET ${path}`, series, tier)
      out.push(...page.list)
      if (seen.has(page.cursor) || (isRecord(body) && (body.markets as []).length === 0)) return out
      seen.add(page.cursor)
      cursor = page.cursor
    }
  }

  const historicalMarkets = async (from: number, to: number): Promise<Market[]> => {
    // no time filters on this endpoint (§1.3): the day's tickers are computed from their close times
    const closes: number[] = []
    for (let close = Math.ceil(from / QUARTER_MS) * QUARTER_MS; close <= to; close += QUARTER_MS)
      closes.push(close)
    const tickers = closes.map((close) => formatTicker(series, close))
    const out: Market[] = []
    for (let i = 0; i < tickers.length; i += TICKERS_PER_CALL)
      out.push(
        ...(await pages(
          '/historical/markets',
          { tickers: tickers.slice(i, i + TICKERS_PER_CALL).join(','), limit: '1000' },
          'historical',
        )),
      )
    // How the venue names the two passes of the ET hour repeated when DST ends is unknown (venue facts
    // §2.2 [U]), so their computed tickers may miss them: when one is missing, the series is listed
    // whole (its order is undocumented, history endpoints §1.3) and its windows taken by close time.
    const found = new Set(out.map((m) => m.closeMs))
    if (closes.some((close) => inRepeatedHour(series, close) && !found.has(close)))
      for (const m of await pages(
        '/historical/markets',
        { series_ticker: series, limit: '1000' },
        'historical',
      ))
        if (m.closeMs >= from && m.closeMs <= to && !found.has(m.closeMs)) {
          out.push(m)
          found.add(m.closeMs)
        }
    return out
  }

  const liveMarkets = (from: number, to: number): Promise<Market[]> =>
    pages(
      '/markets',
      {
        series_ticker: series,
        status: 'settled',
        min_settled_ts: String(Math.floor(from / 1000)),
        max_settled_ts: String(Math.ceil((to + SETTLE_LOOKBACK_MS) / 1000)),
        limit: '1000',
      },
      'live',
    )

  // Every market of the series closing in the range, whatever its status (close-time filters are
  // allowed with no status, history endpoints §1.5): the settled listing above finds a market by its
  // settlement time, so one settled later than an hour after the day, or not settled yet, is only
  // seen here.
  const closingMarkets = (from: number, to: number): Promise<Market[]> =>
    pages(
      '/markets',
      {
        series_ticker: series,
        min_close_ts: String(Math.floor(from / 1000)),
        max_close_ts: String(Math.ceil(to / 1000)),
        limit: '1000',
      },
      'live',
    )

  const candlesOf = async (markets: Market[]): Promise<Map<string, unknown>> => {
    const byTicker = new Map<string, unknown>()
    for (const m of markets.filter((x) => x.tier === 'historical')) {
      const path = `/historical/markets/${encodeURIComponent(m.ticker)}/candlesticks`
      const body = await host.get(path, range(m.openMs + MINUTE_MS, m.closeMs), { absentOk: true })
      if (body === null) continue
      if (!isRecord(body)) throw new HistoryError(`kalshi GET ${path}`, 'unexpected answer: not an object')
      byTicker.set(m.ticker, body.candlesticks)
    }
    const live = markets.filter((x) => x.tier === 'live')
    for (let i = 0; i < live.length; i += BATCH_CANDLE_TICKERS) {
      const batch = live.slice(i, i + BATCH_CANDLE_TICKERS)
      const path = '/markets/candlesticks'
      const body = await host.get(path, {
        market_tickers: batch.map((m) => m.ticker).join(','),
        ...range(
          Math.min(...batch.map((m) => m.openMs)) + MINUTE_MS,
          Math.max(...batch.map((m) => m.closeMs)),
        ),
      })
      if (!isRecord(body) || !Array.isArray(body.markets))
        throw new HistoryError(`kalshi GET ${path}`, 'unexpected answer: no "markets" list')
      for (const entry of body.markets)
        if (isRecord(entry) && typeof entry.market_ticker === 'string')
          byTicker.set(entry.market_ticker, entry.candlesticks)
    }
    return byTicker
  }

  return {
    origin: 'Kalshi /historical/markets, /markets, candlesticks',
    async day(dayStart): Promise<DayRecords> {
      const dayEnd = dayStart + DAY_MS
      const from = dayStart - SETTLE_LOOKBACK_MS
      const boundary = await cutoffMs()
      const found = new Map<string, Market>()
      // settled before the cutoff → historical tier; after → live; within a day of it, both (§1.1)
      if (from < boundary + DAY_MS)
        for (const m of await historicalMarkets(from, dayEnd)) found.set(m.ticker, m)
      const pending: string[] = []
      if (dayEnd + SETTLE_LOOKBACK_MS >= boundary - DAY_MS) {
        for (const m of await liveMarkets(from, dayEnd)) if (!found.has(m.ticker)) found.set(m.ticker, m)
        // a market the venue has not settled yet (closed, determined, disputed) that closed in the day
        // or the day before holds the day back, as an unresolved Polymarket window does: its settlement
        // may fall in this day, and a written day is never fetched again
        for (const m of await closingMarkets(dayStart - DAY_MS, dayEnd)) {
          if (found.has(m.ticker)) continue
          if (isFinalStatus(String(m.raw.status))) found.set(m.ticker, m)
          else pending.push(m.ticker)
        }
      }
      // a market is the day's when it closes in it (or settles in it, however long after its close)
      const markets = [...found.values()].filter(
        (m) =>
          (m.closeMs > from && m.closeMs <= dayEnd) ||
          (m.settledMs !== null && m.settledMs >= dayStart && m.settledMs < dayEnd),
      )
      // a market that closed before the day has no candle end in it: only its settlement may be
      const candles = await candlesOf(markets.filter((m) => m.closeMs >= dayStart))

      const inDay = (t: number) => t >= dayStart && t < dayEnd
      const records: TapeRecord[] = [{ t: dayStart, k: 'exchange', status: { ...ASSUMED_EXCHANGE_STATUS } }]
      let books = 0
      let gaps = 0
      for (const m of markets) {
        const where = `kalshi candlesticks of ${m.ticker}`
        let quotes: ReturnType<typeof candleQuotes>
        let settled: TapeRecord[]
        try {
          quotes = candles.has(m.ticker)
            ? candleQuotes(candles.get(m.ticker), m.openMs + MINUTE_MS, m.closeMs, opts.now())
            : []
          settled = kalshiSettledMarketRecords(m.raw)
        } catch (err) {
          throw new HistoryError(where, `unexpected answer: ${(err as Error).message}`)
        }
        records.push(...settled.filter((r) => inDay(r.t)))
        const quoted = new Set<number>()
        for (const q of quotes) {
          if (!inDay(q.endMs)) continue
          quoted.add(q.endMs)
          records.push(kalshiCandleBookRecord(m.ticker, q.endMs, q.yesBid, q.yesAsk))
          books++
        }
        // every minute end of the window should have a candle; one without is a gap, never filled
        for (let end = m.openMs + MINUTE_MS; end <= m.closeMs; end += MINUTE_MS)
          if (inDay(end) && !quoted.has(end)) gaps++
      }
      return { records, contests: markets.filter((m) => inDay(m.openMs)).length, books, gaps, pending }
    },
  }
}

function range(fromMs: number, toMs: number): Record<string, string> {
  return {
    start_ts: String(Math.floor(fromMs / 1000)),
    end_ts: String(Math.ceil(toMs / 1000)),
    period_interval: '1',
  }
}

/** Whether the window closing at `close` is in either pass of the ET hour repeated when DST ends. */
function inRepeatedHour(series: string, close: number): boolean {
  return [close, close + HOUR_MS].some((t) => formatTicker(series, t).endsWith(REPEATED_HOUR_MARK))
}
