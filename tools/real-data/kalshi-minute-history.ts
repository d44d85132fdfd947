// Kalshi KXBTC15M minute history as published in research CSV files (../shared/real-data/README.md),
// turned into tape records by the shared placement rules (src/tape/minute-grain.ts): settlements
// become market records, 1-minute quote candles books at their end, Coinbase 1-minute closes spot
// records. Pure: the files are read and the tapes written by real-data-tapes.ts.
import { MINUTE_MS } from '../../src/domain/contest.ts'
import { parseTicker } from '../../src/domain/ticker.ts'
import {
  kalshiCandleBookRecord,
  kalshiSettledMarketRecords,
  minuteCloseRecord,
} from '../../src/tape/minute-grain.ts'
import type { BookRecord, MarketRecord, SpotRecord } from '../../src/tape/tape-format.ts'

export const SERIES = 'KXBTC15M'
export const SPOT_SOURCE = 'coinbase'
const WINDOW_MS = 15 * MINUTE_MS

/** A problem in one input line, in one line of text that names the file and the line. */
export class HistoryInputError extends Error {
  /** `line` 0: the problem is the file's (or the folder's) as a whole */
  constructor(file: string, line: number, problem: string) {
    super(line === 0 ? `${file}: ${problem}` : `${file}, line ${line}: ${problem}`)
    this.name = 'HistoryInputError'
  }
}

type Row = { line: number; get(column: string): string }

/** Rows of a plain CSV (no quoted fields: these files have none), each read by column name. */
export function csvRows(file: string, text: string, columns: readonly string[]): Row[] {
  const lines = text.split(/\r?\n/)
  const head = (lines[0] ?? '').split(',').map((c) => c.trim())
  for (const c of columns)
    if (!head.includes(c))
      throw new HistoryInputError(file, 1, `no column "${c}" (it has ${head.join(', ')})`)
  const rows: Row[] = []
  for (let i = 1; i < lines.length; i++) {
    const raw = lines[i] as string
    if (raw.trim() === '') continue
    const cells = raw.split(',')
    if (cells.length !== head.length)
      throw new HistoryInputError(file, i + 1, `${cells.length} fields where the header has ${head.length}`)
    rows.push({ line: i + 1, get: (c) => (cells[head.indexOf(c)] as string).trim() })
  }
  return rows
}

/**
 * `"2026-08-20 11:46:00+00:00"` (or with a T) as Unix ms; with `naiveIsUtc`, a time without an offset
 * (`"2026-02-21 14:26:00"`, as some research files write UTC) is read as UTC too.
 */
export function utcInstant(
  file: string,
  line: number,
  column: string,
  text: string,
  naiveIsUtc = false,
): number {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2})?)(Z|[+-]\d{2}:\d{2})?$/.exec(text)
  const offset = m?.[3] ?? (naiveIsUtc ? 'Z' : null)
  const ms = m && offset !== null ? Date.parse(`${m[1]}T${m[2]}${offset}`) : Number.NaN
  if (!Number.isFinite(ms))
    throw new HistoryInputError(file, line, `"${column}" is not a UTC date-time: ${text}`)
  return ms
}

function instant(file: string, row: Row, column: string): number {
  return utcInstant(file, row.line, column, row.get(column))
}

function number(file: string, row: Row, column: string): number {
  const text = row.get(column)
  const x = text === '' ? Number.NaN : Number(text)
  if (!Number.isFinite(x)) throw new HistoryInputError(file, row.line, `"${column}" is not a number: ${text}`)
  return x
}

/** The close of a ticker (its name is the close in US Eastern time, DST aware). */
function closeOfTicker(file: string, row: Row, ticker: string): number {
  const parsed = parseTicker(ticker)
  if (!parsed || parsed.series !== SERIES)
    throw new HistoryInputError(file, row.line, `"${ticker}" is not a ${SERIES} ticker`)
  return parsed.expiresAt
}

/** One settled contest, as the historical endpoint's Market object carries it. */
export type SettledContest = {
  ticker: string
  opensAt: number
  expiresAt: number
  market: Record<string, unknown>
}

/**
 * The settlements file: `ticker, target_brti` (the strike), `final_brti` (the expiration value),
 * `result`. The market object holds what the historical endpoint returns for these fields; there is
 * no `settlement_ts`, so the settled view stands a minute after the close (minute-grain.ts).
 */
export function settledContests(file: string, text: string): SettledContest[] {
  return csvRows(file, text, ['ticker', 'target_brti', 'final_brti', 'result']).map((row) => {
    const ticker = row.get('ticker')
    const expiresAt = closeOfTicker(file, row, ticker)
    const opensAt = expiresAt - WINDOW_MS
    const result = row.get('result')
    if (result !== 'yes' && result !== 'no')
      throw new HistoryInputError(file, row.line, `"result" must be yes or no, not "${result}"`)
    const strike = number(file, row, 'target_brti')
    const final = number(file, row, 'final_brti')
    return {
      ticker,
      opensAt,
      expiresAt,
      market: {
        ticker,
        event_ticker: ticker.slice(0, ticker.lastIndexOf('-')),
        market_type: 'binary',
        status: 'finalized',
        result,
        open_time: new Date(opensAt).toISOString(),
        close_time: new Date(expiresAt).toISOString(),
        strike_type: 'greater_or_equal',
        floor_strike: strike,
        expiration_value: final.toFixed(2),
        settlement_value_dollars: result === 'yes' ? '1.0000' : '0.0000',
      },
    }
  })
}

/** A YES bid of 0 or a YES ask of 1 is no quote on that side (the venue writes the empty side so). */
const bidOrNull = (x: number): number | null => (x > 0 ? x : null)
const askOrNull = (x: number): number | null => (x < 1 ? x : null)

/** The quotes file: `contract, candle_end_utc, yes_ask, yes_bid`, one book per candle at its end. */
export function candleBooks(file: string, text: string): BookRecord[] {
  return csvRows(file, text, ['contract', 'candle_end_utc', 'yes_ask', 'yes_bid']).map((row) => {
    const ticker = row.get('contract')
    closeOfTicker(file, row, ticker)
    const bid = number(file, row, 'yes_bid')
    const ask = number(file, row, 'yes_ask')
    if (bid < 0 || ask > 1 || (bid > 0 && ask < 1 && ask < bid))
      throw new HistoryInputError(file, row.line, `the YES bid ${bid} and ask ${ask} are not a quote`)
    return kalshiCandleBookRecord(
      ticker,
      instant(file, row, 'candle_end_utc'),
      bidOrNull(bid),
      askOrNull(ask),
    )
  })
}

/** The Coinbase file: `minute_start_utc, coinbase_btcusd_close`, each close 1 ms before its minute ends. */
export function coinbaseCloses(file: string, text: string): SpotRecord[] {
  return csvRows(file, text, ['minute_start_utc', 'coinbase_btcusd_close']).map((row) => {
    const start = instant(file, row, 'minute_start_utc')
    const close = number(file, row, 'coinbase_btcusd_close')
    if (start % MINUTE_MS !== 0 || !(close > 0))
      throw new HistoryInputError(file, row.line, 'not a whole minute with a positive close')
    return minuteCloseRecord(SPOT_SOURCE, start, close)
  })
}

export type MinuteHistory = {
  records: (MarketRecord | BookRecord | SpotRecord)[]
  /** the first quoted contest's open: the engine starts there, everything earlier is warm-up */
  startsAt: number
  /** a minute after the last record */
  endsAt: number
  contests: number
  /** the closes of the contests the engine reads (from startsAt on), in order */
  contestCloses: number[]
  warmUpContests: number
  books: number
  closes: number
  /** quoted tickers with no settlement row: their books are left out (no strike, no result) */
  unsettledQuoted: string[]
}

/**
 * The tape records of one period, in time order: every settled contest of the quoted span, the
 * earlier ones the spot history reaches (their strikes sample the proxy–index basis before the first
 * reading), the quote candles of settled contests, and every spot close.
 */
export function minuteHistory(
  settled: readonly SettledContest[],
  books: readonly BookRecord[],
  closes: readonly SpotRecord[],
): MinuteHistory {
  const byTicker = new Map(settled.map((c) => [c.ticker, c]))
  const quoted = new Set(books.map((b) => b.ticker))
  const unsettledQuoted = [...quoted].filter((t) => !byTicker.has(t)).sort()
  const kept = books.filter((b) => byTicker.has(b.ticker))
  if (kept.length === 0) throw new HistoryInputError('the quotes', 0, 'no quote candle of a settled contest')
  if (closes.length === 0) throw new HistoryInputError('the spot closes', 0, 'no close')
  const quotedOpens = [...quoted].flatMap((t) => byTicker.get(t)?.opensAt ?? [])
  const startsAt = quotedOpens.reduce((a, b) => Math.min(a, b))
  const lastQuotedOpen = quotedOpens.reduce((a, b) => Math.max(a, b))
  const firstSpot = closes.reduce((a, c) => Math.min(a, c.t), Number.POSITIVE_INFINITY) - MINUTE_MS + 1
  const contests = settled.filter((c) => c.opensAt >= firstSpot && c.opensAt <= lastQuotedOpen)
  const records = [...contests.flatMap((c) => kalshiSettledMarketRecords(c.market)), ...kept, ...closes]
  // stable: at one instant the market comes before its book, as the venue lists before it quotes
  records.sort((a, b) => a.t - b.t)
  return {
    records,
    startsAt,
    endsAt: (records.at(-1)?.t ?? startsAt) + MINUTE_MS,
    contests: contests.filter((c) => c.opensAt >= startsAt).length,
    contestCloses: contests
      .filter((c) => c.opensAt >= startsAt)
      .map((c) => c.expiresAt)
      .sort((a, b) => a - b),
    warmUpContests: contests.filter((c) => c.opensAt < startsAt).length,
    books: kept.length,
    closes: closes.length,
    unsettledQuoted,
  }
}
