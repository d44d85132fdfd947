// Kalshi's fixed-point decimal strings as integers, so no price or count arithmetic touches a float
// (venue facts §1.5, §1.9): dollars as integer millionths, contract counts as integer hundredths.

/** One dollar in millionths: the venue's smallest documented price unit (up to 6 decimals). */
export const MILLIONTHS_PER_DOLLAR = 1_000_000
const MILLIONTHS_PER_CENT = 10_000

// Responses use 4 decimals today but the venue's SDK documents up to 6, so "0.34", "0.3400" and
// "0.340000" are the same price; signs, exponents, spaces and more digits are not prices.
const DOLLARS_SHAPE = /^(\d{1,9})(?:\.(\d{1,6}))?$/
// Counts are documented with 2 decimals, but the venue has already widened prices once; a count
// with more decimals is still a count (a body rejected for it would hide a whole book).
const COUNT_SHAPE = /^(\d{1,13})(?:\.(\d{1,18}))?$/

function parseFixed(text: unknown, shape: RegExp, decimals: number): number | null {
  if (typeof text !== 'string') return null
  const m = shape.exec(text)
  if (!m) return null
  const whole = Number(m[1])
  const fraction = Number((m[2] ?? '').padEnd(decimals, '0'))
  return whole * 10 ** decimals + fraction
}

/** A fixed-point dollar string (0–6 decimals) as integer millionths, or null when it is not one. */
export function parseDollarsMillionths(text: unknown): number | null {
  return parseFixed(text, DOLLARS_SHAPE, 6)
}

/**
 * A fixed-point contract count as integer hundredths, or null when it is not one. Decimals past the
 * second round up, so a positive count never reads as zero ("0.001" → 1).
 */
export function parseCountHundredths(text: unknown): number | null {
  if (typeof text !== 'string') return null
  const m = COUNT_SHAPE.exec(text)
  if (!m) return null
  const fraction = m[2] ?? ''
  const hundredths = Number(m[1]) * 100 + Number(fraction.slice(0, 2).padEnd(2, '0'))
  return /[1-9]/.test(fraction.slice(2)) ? hundredths + 1 : hundredths
}

/**
 * Millionths of a dollar on the port's 0–100 cent scale. Sub-cent ticks are kept (35_000 → 3.5,
 * 34_567 → 3.4567); the one division happens here, at the edge, and rounding is the model's call.
 */
export function millionthsToCents(millionths: number): number {
  return millionths / MILLIONTHS_PER_CENT
}
