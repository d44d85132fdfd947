// Lenient readers for the value forms Polymarket's APIs are known to send (venue facts §3.2.5): JSON
// arrays encoded as strings (or already decoded by a proxy), prices as decimal strings or numbers, and
// timestamps with or without fractions, with `T` or a space, `Z` or a short `+00` offset.

// any number of decimals (a "1.0000…" with 40 of them is 1) and an exponent ("5e-1"): values Gamma
// has been seen to send; anything else is not a decimal
const DECIMAL = /^\d{1,12}(\.\d+)?(e[+-]?\d{1,3})?$/i

/** A finite non-negative decimal given as a string or a number, else null. */
export function decimalOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : null
  if (typeof value !== 'string') return null
  const text = value.trim()
  if (!DECIMAL.test(text)) return null
  const n = Number(text)
  return Number.isFinite(n) ? n : null
}

/**
 * A price on the 0–1 scale as integer millionths of a dollar, or null when it is not one. Digits
 * past the sixth decimal are not a tick either venue uses; they round to the nearest millionth.
 */
export function priceMillionths(value: unknown): number | null {
  const n = decimalOf(value)
  if (n === null || n > 1) return null
  return Math.round(n * 1_000_000)
}

/** Millionths of a dollar on the 0–100 cent scale, sub-cent ticks kept (5_000 → 0.5). */
export function millionthsToCents(millionths: number): number {
  return millionths / 10_000
}

/** A JSON array given as its encoded string (the normal case) or as a real array, else null. */
export function jsonArrayOf(value: unknown): unknown[] | null {
  if (Array.isArray(value)) return value
  if (typeof value !== 'string') return null
  try {
    const decoded: unknown = JSON.parse(value)
    return Array.isArray(decoded) ? decoded : null
  } catch {
    return null
  }
}

const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(\.\d{1,9})?\s*(Z|[+-]\d{2}(?::?\d{2})?)$/i

/** Epoch ms of an ISO 8601 / RFC 3339 timestamp or of Gamma's `2026-09-25 19:16:12+00` form, else null. */
export function timestampOf(value: unknown): number | null {
  if (typeof value !== 'string') return null
  const m = TIMESTAMP.exec(value.trim())
  if (!m) return null
  const [, date, time, fraction = '', zone = 'Z'] = m
  let offset = zone.toUpperCase()
  if (offset !== 'Z') {
    const digits = offset.slice(1).replace(':', '')
    offset = `${offset[0]}${digits.slice(0, 2)}:${(digits.slice(2) || '00').padEnd(2, '0')}`
  }
  const seconds = time!.length === 5 ? `${time}:00` : time
  const ms = Date.parse(`${date}T${seconds}${fraction.slice(0, 4)}${offset}`)
  return Number.isFinite(ms) ? ms : null
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
