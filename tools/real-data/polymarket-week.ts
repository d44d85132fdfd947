// A week of Polymarket btc-updown-15m results beside Binance's one-minute klines, as published in
// research CSV files (../shared/real-data/README.md): the windows' starts and outcomes, and the
// proxy's one-minute closes. Pure parsing: the files are read and scored by
// model-card-real-polymarket.ts. The files hold no price to beat, no final price and no book, so
// what they can judge is the model's own evidence against the venue's outcome.
import { CONTEST_MS, MINUTE_MS } from '../../src/domain/contest.ts'
import { csvRows, HistoryInputError, utcInstant } from './kalshi-minute-history.ts'

const SLUG_PREFIX = 'btc-updown-15m-'

/** One window and how the venue resolved it: null when the file's price is not yet 0 or 1. */
export type PolymarketWindow = { slug: string; opensAt: number; up: boolean | null }

/**
 * The outcomes file: `timestamp` (the window's start), `slug` (`btc-updown-15m-<start, Unix s>`),
 * `yes_price` (Up's price when fetched: 1 or 0 once resolved; anything between is a window not yet
 * resolved then, kept with `up` null). A slug that names another start than its timestamp is refused.
 */
export function polymarketWindows(file: string, text: string): PolymarketWindow[] {
  const seen = new Set<number>()
  return csvRows(file, text, ['timestamp', 'slug', 'yes_price']).map((row) => {
    const opensAt = utcInstant(file, row.line, 'timestamp', row.get('timestamp'), true)
    const slug = row.get('slug')
    if (!slug.startsWith(SLUG_PREFIX) || Number(slug.slice(SLUG_PREFIX.length)) * 1000 !== opensAt)
      throw new HistoryInputError(
        file,
        row.line,
        `slug "${slug}" does not name the window starting at ${row.get('timestamp')}`,
      )
    if (opensAt % CONTEST_MS !== 0)
      throw new HistoryInputError(file, row.line, `${row.get('timestamp')} is not a quarter-hour`)
    if (seen.has(opensAt))
      throw new HistoryInputError(
        file,
        row.line,
        `the window starting at ${row.get('timestamp')} appears twice`,
      )
    seen.add(opensAt)
    const price = Number(row.get('yes_price'))
    if (row.get('yes_price') === '' || !(price >= 0 && price <= 1))
      throw new HistoryInputError(
        file,
        row.line,
        `"yes_price" is not a price between 0 and 1: ${row.get('yes_price')}`,
      )
    return { slug, opensAt, up: price === 1 ? true : price === 0 ? false : null }
  })
}

/** One whole minute of the proxy: its start and its close. */
export type ProxyMinute = { minuteStart: number; close: number }

/** Binance klines: `open_time` (the minute's start, naive UTC) and `close`. */
export function binanceMinutes(file: string, text: string): ProxyMinute[] {
  const seen = new Set<number>()
  return csvRows(file, text, ['open_time', 'close']).map((row) => {
    const minuteStart = utcInstant(file, row.line, 'open_time', row.get('open_time'), true)
    if (minuteStart % MINUTE_MS !== 0)
      throw new HistoryInputError(file, row.line, `${row.get('open_time')} is not a whole minute`)
    if (seen.has(minuteStart))
      throw new HistoryInputError(file, row.line, `the minute ${row.get('open_time')} appears twice`)
    seen.add(minuteStart)
    const close = Number(row.get('close'))
    if (row.get('close') === '' || !(close > 0 && Number.isFinite(close)))
      throw new HistoryInputError(file, row.line, `"close" is not a positive price: ${row.get('close')}`)
    return { minuteStart, close }
  })
}
