// How minute-grained history is placed on a tape (decisions §12, §15): a source's one-minute closes,
// a venue's one-minute quote candles and its settled market objects become the records a live
// recording would have held, each placed at the instant it stood so that a replay never shows a
// reading anything later than its boundary. Pure: the importer and the real-data card both write
// tapes through these, so the placement rules have one home.
import type { BookRecord, MarketRecord, SpotRecord } from './tape-format.ts'

const MINUTE_MS = 60_000
/** How long after the close a settled market shows when the venue gives no `settlement_ts`. */
const SETTLEMENT_FALLBACK_MS = 60_000
/** A candle has no depth; one contract says only that the side was quoted. */
const CANDLE_QUOTE_SIZE = '1.00'

/**
 * A source's one-minute close as a spot record, placed 1 ms before its minute ends: it is then the
 * close of its own minute in the spot feed's minute book, and the latest price a reading at the
 * next boundary sees (never a later one). `xt` = the same instant.
 */
export function minuteCloseRecord(src: string, minuteStart: number, close: number): SpotRecord {
  if (!Number.isSafeInteger(minuteStart) || minuteStart % MINUTE_MS !== 0)
    throw new RangeError(`minute start ${minuteStart} is not a whole minute (Unix ms)`)
  if (!Number.isFinite(close) || close <= 0) throw new RangeError(`close ${close} is not a positive price`)
  const t = minuteStart + MINUTE_MS - 1
  return { t, k: 'spot', src, px: close, xt: t }
}

/** Dollars as the venue's fixed-point string: 4 decimals, more only where the price has them. */
function dollarsText(dollars: number): string {
  const millionths = Math.round(dollars * 1_000_000)
  const whole = Math.floor(millionths / 1_000_000)
  const fraction = String(millionths % 1_000_000)
    .padStart(6, '0')
    .replace(/0{1,2}$/, '')
  return `${whole}.${fraction}`
}

function checkQuote(name: string, dollars: number | null): void {
  if (dollars !== null && !(Number.isFinite(dollars) && dollars >= 0 && dollars <= 1))
    throw new RangeError(`${name} ${dollars} is not a price in dollars between 0 and 1`)
}

/**
 * The Kalshi book standing at a candle's end `at` (Unix ms), from the candle's closing YES bid and
 * YES ask in dollars (null = that side had no quote): `{ orderbook_fp: { yes_dollars: [[bid, size]],
 * no_dollars: [[1 − ask, size]] } }` as strings like the venue sends (Kalshi's book lists bids only:
 * a YES ask at A is a NO bid at 1 − A); a null side is an empty list.
 */
export function kalshiCandleBookRecord(
  ticker: string,
  at: number,
  yesBid: number | null,
  yesAsk: number | null,
): BookRecord {
  if (!Number.isSafeInteger(at)) throw new RangeError(`candle end ${at} is not an instant (Unix ms)`)
  checkQuote('YES bid', yesBid)
  checkQuote('YES ask', yesAsk)
  const yes = yesBid === null ? [] : [[dollarsText(yesBid), CANDLE_QUOTE_SIZE]]
  const no = yesAsk === null ? [] : [[dollarsText(1 - yesAsk), CANDLE_QUOTE_SIZE]]
  return { t: at, k: 'book', ticker, ob: { orderbook_fp: { yes_dollars: yes, no_dollars: no } } }
}

/** Fields only a settled market has: a market shown while open or closed carries none of them. */
const SETTLEMENT_FIELDS = ['settlement_ts', 'settlement_value_dollars', 'settlement_value'] as const

function instantOf(market: Record<string, unknown>, field: string): number {
  const value = market[field]
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN
  if (!Number.isFinite(ms))
    throw new RangeError(`market ${String(market.ticker)}: "${field}" is not a date-time`)
  return ms
}

/**
 * The market records of one settled Kalshi market (the venue's Market object as the historical
 * endpoints return it): at `open_time` the market as it stood while open (status 'active', result
 * '', expiration_value '', settlement fields removed, floor_strike kept — Kalshi sets it at the open),
 * at `close_time` status 'closed' without result, and at settlement (`settlement_ts` when present,
 * else close_time + 60 s) the object as returned (its result and expiration_value).
 */
export function kalshiSettledMarketRecords(market: Record<string, unknown>): MarketRecord[] {
  const openAt = instantOf(market, 'open_time')
  const closeAt = instantOf(market, 'close_time')
  if (closeAt <= openAt)
    throw new RangeError(`market ${String(market.ticker)}: "close_time" is not after "open_time"`)
  const settledAt =
    market.settlement_ts === undefined || market.settlement_ts === null || market.settlement_ts === ''
      ? closeAt + SETTLEMENT_FALLBACK_MS
      : Math.max(instantOf(market, 'settlement_ts'), closeAt)
  const unsettled: Record<string, unknown> = { ...market, result: '', expiration_value: '' }
  for (const field of SETTLEMENT_FIELDS) delete unsettled[field]
  return [
    { t: openAt, k: 'market', m: { ...unsettled, status: 'active' } },
    { t: closeAt, k: 'market', m: { ...unsettled, status: 'closed' } },
    { t: settledAt, k: 'market', m: market },
  ]
}
