// The venue's ticker shape (`KXBTC15M-26NOV221415-15`): series, the window's close time in US
// Eastern time (DST aware), and the close minute. Only the issuer of a ticker (the simulator) parses
// one; clients and the engine treat tickers as opaque.
import { MINUTE_MS } from './contest.ts'

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] as const
const HOUR_MS = 3_600_000
export const QUARTER_MS = 15 * MINUTE_MS

/**
 * Marks a close time in the second pass of the hour repeated when DST ends (01:00–01:59 local
 * happens twice). The venue's naming there is unknown (venue facts §2.2), and two windows must never
 * share a ticker because the ticker is the contest's key, so the second pass gets this suffix.
 */
export const REPEATED_HOUR_MARK = 'B'

// one formatter, built once: constructing Intl formatters is far costlier than using them
const eastern = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/New_York',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  hourCycle: 'h23',
})

// Eastern offsets change only on whole UTC hours, so one Intl lookup per UTC hour is enough; the
// cache is small and bounded because callers (backfill, the simulator) walk time in order.
const offsetByHour = new Map<number, number>()
const OFFSET_CACHE_MAX = 50_000

/** Eastern local time minus UTC, in ms (−4 h or −5 h), at the instant `ms`. */
export function easternOffset(ms: number): number {
  const hour = Math.floor(ms / HOUR_MS)
  let offset = offsetByHour.get(hour)
  if (offset === undefined) {
    const start = hour * HOUR_MS
    const parts: Record<string, string> = {}
    for (const p of eastern.formatToParts(start)) parts[p.type] = p.value
    const local = Date.UTC(
      Number(parts.year),
      Number(parts.month) - 1,
      Number(parts.day),
      Number(parts.hour),
      Number(parts.minute),
    )
    offset = local - start
    if (offsetByHour.size >= OFFSET_CACHE_MAX) offsetByHour.clear()
    offsetByHour.set(hour, offset)
  }
  return offset
}

const pad2 = (n: number): string => String(n).padStart(2, '0')

/** The ticker of the window of `series` that closes at `expiresAt` (epoch ms). */
export function formatTicker(series: string, expiresAt: number): string {
  const offset = easternOffset(expiresAt)
  // the same local time an hour earlier happens only in the repeated hour
  const repeated = easternOffset(expiresAt - HOUR_MS) - HOUR_MS === offset
  const d = new Date(expiresAt + offset)
  const yy = pad2(d.getUTCFullYear() % 100)
  const month = MONTHS[d.getUTCMonth()] as string
  const mm = pad2(d.getUTCMinutes())
  const stamp = `${yy}${month}${pad2(d.getUTCDate())}${pad2(d.getUTCHours())}${mm}`
  return `${series}-${stamp}-${mm}${repeated ? REPEATED_HOUR_MARK : ''}`
}

const TICKER_SHAPE = /^(.+)-(\d{2})([A-Z]{3})(\d{2})(\d{2})(\d{2})-(\d{2})(B?)$/

/**
 * The series and close time a ticker was formatted from, or null when `ticker` is not exactly what
 * formatTicker would produce. For the issuer only (see the module comment).
 */
export function parseTicker(ticker: string): { series: string; expiresAt: number } | null {
  const m = TICKER_SHAPE.exec(ticker)
  if (!m) return null
  const [, series, yy, mon, dd, hh, mm, suffix] = m as unknown as string[]
  const month = MONTHS.indexOf(mon as (typeof MONTHS)[number])
  if (month < 0 || mm !== suffix) return null
  const wall = Date.UTC(2000 + Number(yy), month, Number(dd), Number(hh), Number(mm))
  // Eastern time is UTC−4 (EDT) or UTC−5 (EST): one of the two candidates formats back to the ticker
  for (const offsetHours of [4, 5]) {
    const at = wall + offsetHours * HOUR_MS
    if (formatTicker(series as string, at) === ticker) return { series: series as string, expiresAt: at }
  }
  return null
}

/** Start of the quarter-hour containing `ms`. ET offsets are whole hours, so UTC quarters are ET quarters. */
export function quarterStart(ms: number): number {
  return Math.floor(ms / QUARTER_MS) * QUARTER_MS
}
