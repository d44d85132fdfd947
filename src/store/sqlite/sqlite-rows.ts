// Maps node:sqlite rows (null-prototype records of loosely typed values) to domain objects, checking
// each column so a schema drift fails loudly at the boundary instead of leaking odd values outward.
import type { SQLOutputValue } from 'node:sqlite'
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

export type Row = Record<string, SQLOutputValue>

const EVENT_TYPES: readonly EventType[] = [...PUBLIC_EVENT_TYPES, ...INTERNAL_EVENT_TYPES]

function num(row: Row, column: string): number {
  const v = row[column]
  if (typeof v === 'number') return v
  if (typeof v === 'bigint') return Number(v)
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
    voided: num(row, 'voided') === 1,
    signals,
  }
}

/** Joins contest rows with their signal rows (already in minute order), keeping the contests' order. */
export function toContests(contestRows: Row[], signalRows: Row[]): Contest[] {
  const byTicker = new Map<string, Signal[]>()
  for (const row of signalRows) {
    const signal = toSignal(row)
    const list = byTicker.get(signal.ticker)
    if (list) list.push(signal)
    else byTicker.set(signal.ticker, [signal])
  }
  return contestRows.map((row) => toContest(row, byTicker.get(str(row, 'ticker')) ?? []))
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

/** The parameters of an INSERT into `contests`. */
export function contestParams(c: Contest, updatedAt: number) {
  return {
    ticker: c.ticker,
    series: c.series,
    state: c.state,
    opens_at: c.opensAt,
    expires_at: c.expiresAt,
    strike_price_dollars: c.strikePriceDollars,
    settled_side: c.settledSide,
    settled_price_dollars: c.settledPriceDollars,
    voided: c.voided ? 1 : 0,
    updated_at: updatedAt,
  }
}

/** The parameters of an INSERT into `signals`. */
export function signalParams(s: Signal) {
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
