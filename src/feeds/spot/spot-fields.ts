// Strict readers for exchange JSON: each failure is a SpotParseError naming the field that was wrong,
// so a malformed frame is logged with its cause and skipped.

export class SpotParseError extends Error {
  readonly field: string
  constructor(field: string, problem: string) {
    super(`${field}: ${problem}`)
    this.name = 'SpotParseError'
    this.field = field
  }
}

export function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    throw new SpotParseError('message', 'not JSON')
  }
}

export function asObject(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new SpotParseError(field, 'not an object')
  return value as Record<string, unknown>
}

export function asArray(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw new SpotParseError(field, 'not an array')
  return value
}

export function stringField(obj: Record<string, unknown>, key: string, path: string): string {
  const v = obj[key]
  if (typeof v !== 'string') throw new SpotParseError(`${path}.${key}`, 'not a string')
  return v
}

/**
 * A finite number given as a JSON number or a decimal string: exchanges mix both (Coinbase and
 * Bitstamp send strings, Kraken v2 numbers), and a few shapes are not pinned down at all.
 */
export function toNumber(value: unknown, field: string): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value
  if (typeof value === 'string' && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(value.trim())) return Number(value)
  throw new SpotParseError(field, 'not a number')
}

/** A price: positive and finite. */
export function toPrice(value: unknown, field: string): number {
  const n = toNumber(value, field)
  if (n <= 0) throw new SpotParseError(field, 'not a positive price')
  return n
}

/** The mid of a best bid and ask. A crossed book is tolerated: it happens for an instant on busy feeds. */
export function midOf(bid: number, ask: number): number {
  return (bid + ask) / 2
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/

/**
 * Epoch ms (fractional below the millisecond) of an RFC 3339 time. The fraction is read by hand
 * because exchanges send up to nine digits and Date.parse is not reliable past three.
 */
export function parseRfc3339(value: unknown, field: string): number {
  if (typeof value !== 'string') throw new SpotParseError(field, 'not a string')
  const m = RFC3339.exec(value)
  if (!m) throw new SpotParseError(field, 'not an RFC 3339 time')
  const [, y, mo, d, h, mi, s, frac = '', zone = 'Z'] = m
  const month = Number(mo)
  const day = Number(d)
  if (month < 1 || month > 12 || day < 1 || day > 31 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 60)
    throw new SpotParseError(field, 'not an RFC 3339 time')
  let ms = Date.UTC(Number(y), month - 1, day, Number(h), Number(mi), Number(s))
  if (frac) ms += Number(`0.${frac}`) * 1000
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1 : 1
    ms -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000
  }
  return ms
}

/** Epoch ms of a Unix-seconds value sent as a number or a string. */
export function unixSecondsToMs(value: unknown, field: string): number {
  const n = toNumber(value, field)
  if (n < 0) throw new SpotParseError(field, 'negative time')
  return n * 1000
}

/** Closes oldest first, one per bucket (the later entry wins when an exchange repeats a bucket). */
export function sortedCloses(closes: readonly { minuteStart: number; close: number }[]) {
  const byMinute = new Map<number, number>()
  for (const c of closes) byMinute.set(c.minuteStart, c.close)
  return [...byMinute.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([minuteStart, close]) => ({ minuteStart, close }))
}

/**
 * Closes from candle rows that are arrays with the bucket start (Unix s) at index 0 and the close at
 * index 4, as both Coinbase and Kraken send them (their other columns differ), sorted by time.
 */
export function closesFromArrayRows(rows: readonly unknown[], label: string) {
  return sortedCloses(
    rows.map((row, i) => {
      const r = asArray(row, `${label}[${i}]`)
      return {
        minuteStart: unixSecondsToMs(r[0], `${label}[${i}][0] (time)`),
        close: toPrice(r[4], `${label}[${i}][4] (close)`),
      }
    }),
  )
}
