// One raw Kalshi Market object (venue facts §1.5) validated into the few fields the adapter uses.
// Unknown fields are ignored and optional ones may be missing: the venue adds and removes fields
// often (venue facts §1.5); only what the engine depends on is checked.
import { parseDollarsMillionths } from './fixed-point.ts'
import type { KalshiStatus } from './market-status.ts'

export type KalshiMarket = {
  ticker: string
  eventTicker: string | null
  status: KalshiStatus
  /** epoch ms */
  openTime: number
  /** epoch ms; the settlement instant for KXBTC15M, and the venue may move it */
  closeTime: number
  /** null until the venue sets it (a placeholder of 0 or below is not a strike) */
  floorStrike: number | null
  /** `yes`, `no`, `scalar` or `""` until determined */
  result: string
  /** settlement index value in dollars, null until reported (a value of 0 or below is not one) */
  expirationValue: number | null
  /** YES payout once determined (`settlement_value_dollars`) in millionths, null until reported */
  settlementValueMillionths: number | null
  /** `strike_type` (`greater_or_equal` on KXBTC15M), null when absent */
  strikeType: string | null
}

export type MarketParse =
  | { ok: true; market: KalshiMarket }
  | { ok: false; field: string; ticker: string | null }

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/
const DECIMAL = /^-?\d+(\.\d+)?$/

/** RFC 3339 to epoch ms; fractions past milliseconds (the venue sends microseconds) are dropped. */
export function parseRfc3339(value: unknown): number | null {
  if (typeof value !== 'string') return null
  const m = RFC3339.exec(value)
  if (!m) return null
  const fraction = m[1] ?? ''
  const ms = Date.parse(value.replace(fraction, fraction.slice(0, 4)))
  return Number.isFinite(ms) ? ms : null
}

/**
 * `"79,604.96"` → 79604.96 (thousands separators have been seen, venue facts §2.5); `""` → null. A
 * value of 0 or below is no index value (no bitcoin price is): not reported, null, as a strike of 0
 * is not set — else it would be published as the settled contest's `settled_price_dollars`.
 */
export function parseExpirationValue(value: unknown): number | null | undefined {
  if (value === undefined || value === null || value === '') return null
  const n = typeof value === 'number' ? value : typeof value === 'string' ? decimalOf(value) : undefined
  if (n === undefined || !Number.isFinite(n)) return undefined
  return n > 0 ? n : null
}

function decimalOf(text: string): number | undefined {
  const plain = text.replaceAll(',', '')
  return DECIMAL.test(plain) ? Number(plain) : undefined
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

export function parseMarket(raw: unknown): MarketParse {
  if (!isRecord(raw)) return { ok: false, field: 'market', ticker: null }
  const { ticker } = raw
  if (typeof ticker !== 'string' || ticker === '') return { ok: false, field: 'ticker', ticker: null }
  const bad = (field: string): MarketParse => ({ ok: false, field, ticker })

  const eventTicker = raw.event_ticker ?? null
  if (eventTicker !== null && typeof eventTicker !== 'string') return bad('event_ticker')
  // any word: one the adapter does not know maps to a non-trading phase (market-status.ts)
  if (typeof raw.status !== 'string' || raw.status === '') return bad('status')
  const openTime = parseRfc3339(raw.open_time)
  if (openTime === null) return bad('open_time')
  const closeTime = parseRfc3339(raw.close_time)
  if (closeTime === null || closeTime <= openTime) return bad('close_time')
  const rawStrike = raw.floor_strike ?? null
  if (rawStrike !== null && (typeof rawStrike !== 'number' || !Number.isFinite(rawStrike)))
    return bad('floor_strike')
  // no bitcoin price is 0: a non-positive value is a placeholder before the venue sets the strike,
  // and taken as one it would stay the contest's strike for good (a strike, once set, never changes)
  const floorStrike = rawStrike !== null && rawStrike > 0 ? rawStrike : null
  const result = raw.result ?? ''
  if (typeof result !== 'string') return bad('result')
  const expirationValue = parseExpirationValue(raw.expiration_value)
  if (expirationValue === undefined) return bad('expiration_value')
  const settlementRaw = raw.settlement_value_dollars ?? null
  const settlementValueMillionths = settlementRaw === null ? null : parseDollarsMillionths(settlementRaw)
  if (settlementValueMillionths === null && settlementRaw !== null) return bad('settlement_value_dollars')
  const strikeType = raw.strike_type ?? null
  if (strikeType !== null && typeof strikeType !== 'string') return bad('strike_type')

  return {
    ok: true,
    market: {
      ticker,
      eventTicker,
      status: raw.status,
      openTime,
      closeTime,
      floorStrike,
      result,
      expirationValue,
      settlementValueMillionths,
      strikeType,
    },
  }
}
