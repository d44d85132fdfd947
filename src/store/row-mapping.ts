// Maps rows of either SQL store (node:sqlite or pg) to domain objects, checking each column so a
// schema drift fails loudly at the boundary instead of leaking odd values outward.
import type { ApiKeyRecord } from '../domain/api-key.ts'
import {
  CONTEST_STATES,
  type Contest,
  OUTCOMES,
  type Outcome,
  SIDES,
  type Side,
  type Signal,
} from '../domain/contest.ts'
import type { EventType, StoredEvent } from '../domain/events.ts'
import { INTERNAL_EVENT_TYPES, PUBLIC_EVENT_TYPES } from '../domain/events.ts'
import type { GradedReading } from '../domain/graded-reading.ts'
import { withVenueMembers } from '../domain/pre-venue-events.ts'
import { decodeContestVenue, encodeVenueRefs } from '../domain/venue-refs.ts'

/** One row as a driver returns it, column name to loosely typed value. */
export type Row = Record<string, unknown>

const EVENT_TYPES: readonly EventType[] = [...PUBLIC_EVENT_TYPES, ...INTERNAL_EVENT_TYPES]

/** A 64-bit integer as pg's int8 text or as a bigint, as a number. */
export function parseInt8(value: string | bigint): number {
  // Every BIGINT the stores hold (ms times, seq, counts) is far below 2^53; anything past it would
  // come back rounded, so it is refused rather than read as a nearby value.
  const n = Number(value)
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${value} is not a safe integer`)
  return n
}

// Number() would also read '', ' 7' or '0x10'; int8 text is only ever an optional minus and digits.
const INT8_TEXT = /^-?\d+$/

function num(row: Row, column: string): number {
  const v = row[column]
  if (typeof v === 'number') return v
  if (typeof v === 'bigint' || (typeof v === 'string' && INT8_TEXT.test(v))) return parseInt8(v)
  throw new TypeError(`column ${column}: expected a number, got ${typeof v}`)
}

function numOrNull(row: Row, column: string): number | null {
  return row[column] === null ? null : num(row, column)
}

export function str(row: Row, column: string): string {
  const v = row[column]
  if (typeof v === 'string') return v
  throw new TypeError(`column ${column}: expected a string, got ${typeof v}`)
}

function strOrNull(row: Row, column: string): string | null {
  return row[column] === null ? null : str(row, column)
}

/** PostgreSQL has BOOLEAN; SQLite stores 0 or 1 in an INTEGER column. */
function bool(row: Row, column: string): boolean {
  const v = row[column]
  if (typeof v === 'boolean') return v
  const n = typeof v === 'bigint' ? Number(v) : v
  if (n === 0 || n === 1) return n === 1
  throw new TypeError(
    `column ${column}: expected a boolean or 0/1, got ${typeof v === 'number' ? v : typeof v}`,
  )
}

function oneOf<T extends string>(allowed: readonly T[], row: Row, column: string): T {
  const v = str(row, column)
  if ((allowed as readonly string[]).includes(v)) return v as T
  throw new TypeError(`column ${column}: unexpected value ${JSON.stringify(v)}`)
}

export function toSignal(row: Row): Signal {
  return {
    ticker: str(row, 'ticker'),
    minute: num(row, 'minute'),
    raisedAt: num(row, 'raised_at'),
    side: oneOf<Side>(SIDES, row, 'side'),
    confidence: num(row, 'confidence'),
    entryPriceCents: num(row, 'entry_price_cents'),
    edgeCents: num(row, 'edge_cents'),
    outcome: oneOf<Outcome>(OUTCOMES, row, 'outcome'),
    modelVersion: strOrNull(row, 'model_version'),
  }
}

/** A `contests` row with its signals, which each driver reads its own way. */
export function toContest(row: Row, signals: Signal[]): Contest {
  return {
    ticker: str(row, 'ticker'),
    series: str(row, 'series'),
    state: oneOf(CONTEST_STATES, row, 'state'),
    opensAt: num(row, 'opens_at'),
    expiresAt: num(row, 'expires_at'),
    strikePriceDollars: numOrNull(row, 'strike_price_dollars'),
    settledSide: row.settled_side === null ? null : oneOf<Side>(SIDES, row, 'settled_side'),
    settledPriceDollars: numOrNull(row, 'settled_price_dollars'),
    voided: bool(row, 'voided'),
    // rows stored before migration 3 have no venue columns' values: the series names the venue
    venue: decodeContestVenue(strOrNull(row, 'venue'), strOrNull(row, 'venue_refs'), str(row, 'series')),
    signals,
  }
}

export function toStoredEvent(row: Row): StoredEvent {
  const type = oneOf(EVENT_TYPES, row, 'type')
  const series = str(row, 'series')
  return {
    seq: num(row, 'seq'),
    type,
    series,
    ticker: str(row, 'ticker'),
    // events appended before migration 3 gain the venue members their contest reads back with
    data: withVenueMembers(type, series, str(row, 'data')),
    appendedAt: num(row, 'appended_at'),
  }
}

export function toApiKey(row: Row): ApiKeyRecord {
  return {
    id: str(row, 'id'),
    label: str(row, 'label'),
    digest: str(row, 'digest'),
    prefix: str(row, 'prefix'),
    createdAt: num(row, 'created_at'),
    lastUsedAt: numOrNull(row, 'last_used_at'),
    revokedAt: numOrNull(row, 'revoked_at'),
  }
}

/** A `contests` row's columns by name (voided as a boolean: SQLite binds it as 0/1 itself). */
export function contestColumns(c: Contest, updatedAt: number) {
  return {
    ticker: c.ticker,
    series: c.series,
    state: c.state,
    opens_at: c.opensAt,
    expires_at: c.expiresAt,
    strike_price_dollars: c.strikePriceDollars,
    settled_side: c.settledSide,
    settled_price_dollars: c.settledPriceDollars,
    voided: c.voided,
    updated_at: updatedAt,
    venue: c.venue?.name ?? null,
    venue_refs: encodeVenueRefs(c.venue),
  }
}

/** A `signals` row's columns by name: SQLite binds them as named parameters, PostgreSQL as a JSON record. */
export function signalColumns(s: Signal) {
  return {
    ticker: s.ticker,
    minute: s.minute,
    raised_at: s.raisedAt,
    side: s.side,
    confidence: s.confidence,
    entry_price_cents: s.entryPriceCents,
    edge_cents: s.edgeCents,
    outcome: s.outcome,
    model_version: s.modelVersion,
    spot_observed_at: s.inputs?.spotObservedAt ?? null,
    book_observed_at: s.inputs?.bookObservedAt ?? null,
    spot_dollars: s.inputs?.spotDollars ?? null,
    fresh_sources: s.inputs?.freshSources ?? null,
    up_ask_cents: s.inputs?.upAskCents ?? null,
    down_ask_cents: s.inputs?.downAskCents ?? null,
    sigma_per_minute: s.inputs?.sigmaPerMinute ?? null,
    effective_minutes: s.inputs?.effectiveMinutes ?? null,
    probability_up: s.inputs?.probabilityUp ?? null,
    model_alone_up: s.inputs?.modelAloneUp ?? null,
  }
}

/**
 * A graded reading with what produced it and its contest's result, as `evaluate` and the backtest
 * read them (decisions §11, §13); internal, never published.
 */
export function toGradedReading(row: Row): GradedReading {
  const observed = row.spot_observed_at !== null && row.spot_observed_at !== undefined
  return {
    ...toSignal(row),
    opensAt: num(row, 'opens_at'),
    expiresAt: num(row, 'expires_at'),
    settledSide: row.settled_side === null ? null : oneOf<Side>(SIDES, row, 'settled_side'),
    inputs: observed
      ? {
          spotObservedAt: num(row, 'spot_observed_at'),
          bookObservedAt: num(row, 'book_observed_at'),
          spotDollars: num(row, 'spot_dollars'),
          freshSources: num(row, 'fresh_sources'),
          upAskCents: numOrNull(row, 'up_ask_cents'),
          downAskCents: numOrNull(row, 'down_ask_cents'),
          sigmaPerMinute: num(row, 'sigma_per_minute'),
          effectiveMinutes: num(row, 'effective_minutes'),
          probabilityUp: num(row, 'probability_up'),
          modelAloneUp: numOrNull(row, 'model_alone_up'),
        }
      : null,
  }
}
