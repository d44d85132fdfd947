// Maps pg rows (and the JSON signal lists aggregated into them) to domain objects and back, checking
// each column so a schema drift fails loudly at the boundary instead of leaking odd values outward.
import type { ApiKeyRecord } from '../../domain/api-key.ts'
import {
  CONTEST_STATES,
  type Contest,
  OUTCOMES,
  type Outcome,
  SIDES,
  type Side,
  type Signal,
} from '../../domain/contest.ts'
import type { EventType, StoredEvent } from '../../domain/events.ts'
import { INTERNAL_EVENT_TYPES, PUBLIC_EVENT_TYPES } from '../../domain/events.ts'

export type Row = Record<string, unknown>

const EVENT_TYPES: readonly EventType[] = [...PUBLIC_EVENT_TYPES, ...INTERNAL_EVENT_TYPES]

/** int8 arrives as text; every BIGINT the store holds (ms times, seq, counts) is far below 2^53. */
export function parseInt8(text: string): number {
  const n = Number(text)
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${text} is not a safe integer`)
  return n
}

function num(row: Row, column: string): number {
  const v = row[column]
  if (typeof v === 'number') return v
  throw new TypeError(`column ${column}: expected a number, got ${typeof v}`)
}

function numOrNull(row: Row, column: string): number | null {
  return row[column] === null ? null : num(row, column)
}

function str(row: Row, column: string): string {
  const v = row[column]
  if (typeof v === 'string') return v
  throw new TypeError(`column ${column}: expected a string, got ${typeof v}`)
}

function strOrNull(row: Row, column: string): string | null {
  return row[column] === null ? null : str(row, column)
}

function bool(row: Row, column: string): boolean {
  const v = row[column]
  if (typeof v === 'boolean') return v
  throw new TypeError(`column ${column}: expected a boolean, got ${typeof v}`)
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

/** A contest row carrying its signals as a JSON array in the `signals` column, already in minute order. */
export function toContest(row: Row): Contest {
  const signals = row.signals
  if (!Array.isArray(signals)) throw new TypeError(`column signals: expected an array, got ${typeof signals}`)
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
    signals: signals.map((s: Row) => toSignal(s)),
  }
}

export function toStoredEvent(row: Row): StoredEvent {
  return {
    seq: num(row, 'seq'),
    type: oneOf(EVENT_TYPES, row, 'type'),
    series: str(row, 'series'),
    ticker: str(row, 'ticker'),
    data: str(row, 'data'),
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

/** A `contests` row as a JSON record, for bulk inserts through json_to_recordset. */
export function contestRecord(c: Contest, updatedAt: number) {
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
  }
}

/** A `signals` row as a JSON record, for bulk inserts through json_to_recordset. */
export function signalRecord(s: Signal) {
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
  }
}
