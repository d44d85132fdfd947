// The SQLite side of row mapping: signal rows joined to their contests in code, and the named
// parameters of the inserts (voided as 0/1, SQLite having no boolean type).
import type { SQLOutputValue } from 'node:sqlite'
import type { Contest, Signal } from '../../domain/contest.ts'
import { contestColumns, str, toContest, toSignal } from '../row-mapping.ts'

export {
  signalColumns,
  toApiKey,
  toContest,
  toGradedReading,
  toSignal,
  toStoredEvent,
} from '../row-mapping.ts'

export type Row = Record<string, SQLOutputValue>

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

/** The parameters of an INSERT into `contests`: voided as 0/1, SQLite having no boolean type. */
export function contestParams(c: Contest, updatedAt: number) {
  const columns = contestColumns(c, updatedAt)
  return { ...columns, voided: columns.voided ? 1 : 0 }
}
