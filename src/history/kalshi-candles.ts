// Kalshi's one-minute candlesticks (history endpoints §1.6) read for the quote standing at each
// candle's end: the closing YES bid and YES ask. The live tier names them `close_dollars`, the
// historical tier `close` (a dollar string there), and older live answers carried integer cents under
// `close`; every documented form is accepted (§1.6.2). Pure: the importer fetches, this reads.

/** The quote at one candle's end; a null side had no order (the venue shows that as a 0 bid or a 1 ask). */
export type CandleQuote = { endMs: number; yesBid: number | null; yesAsk: number | null }

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

const DOLLARS = /^\d+(\.\d+)?$/

/**
 * A side's closing price in dollars: `close_dollars` (string), else `close` as a dollar string, else
 * `close` as integer cents. Undefined when the side is absent or null (no quote in the candle),
 * a string when the value is malformed (the field's name).
 */
function closeOf(side: unknown, name: string): number | undefined | string {
  if (side === undefined || side === null) return undefined
  if (!isRecord(side)) return name
  const raw = side.close_dollars ?? side.close
  if (raw === undefined || raw === null) return undefined
  if (typeof raw === 'string') return DOLLARS.test(raw) && Number(raw) <= 1 ? Number(raw) : `${name}.close`
  if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 && raw <= 100) return raw / 100
  return `${name}.close`
}

/**
 * The quotes of one candle list, in time order: candles ending outside `[fromMs, toMs]` or after
 * `nowMs` (still forming) are left out, and so is a candle with neither side (no quote: a gap).
 * A 0 bid and a 1 ask mean "no order on that side" (§1.6.3). Throws a message naming the field on a
 * malformed candle.
 */
export function candleQuotes(candles: unknown, fromMs: number, toMs: number, nowMs: number): CandleQuote[] {
  if (!Array.isArray(candles)) throw new Error('"candlesticks" is not a list')
  const quotes: CandleQuote[] = []
  for (const [i, c] of candles.entries()) {
    if (!isRecord(c)) throw new Error(`candlesticks[${i}] is not an object`)
    const end = c.end_period_ts
    if (typeof end !== 'number' || !Number.isSafeInteger(end))
      throw new Error(`candlesticks[${i}].end_period_ts is not an integer (Unix s)`)
    const endMs = end * 1000
    if (endMs < fromMs || endMs > toMs || endMs > nowMs) continue
    const bid = closeOf(c.yes_bid, `candlesticks[${i}].yes_bid`)
    const ask = closeOf(c.yes_ask, `candlesticks[${i}].yes_ask`)
    if (typeof bid === 'string') throw new Error(`${bid} is not a price`)
    if (typeof ask === 'string') throw new Error(`${ask} is not a price`)
    if (bid === undefined && ask === undefined) continue
    quotes.push({
      endMs,
      yesBid: bid === undefined || bid === 0 ? null : bid,
      yesAsk: ask === undefined || ask === 1 ? null : ask,
    })
  }
  return quotes.sort((a, b) => a.endMs - b.endMs)
}
