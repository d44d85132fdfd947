// The PostgreSQL side of row mapping: contest rows carrying their signals as a JSON array, int8
// text as numbers, and the JSON records the bulk inserts read.
import type { Contest } from '../../domain/contest.ts'
import { toContest as contestWithSignals, type Row, toSignal } from '../row-mapping.ts'

// The store registers parseInt8 as the pool's int8 parser: its own reads of seq, counts and lease
// expiry expect numbers, not pg's default text.
export {
  contestColumns,
  parseInt8,
  type Row,
  signalColumns,
  toApiKey,
  toGradedReading,
  toStoredEvent,
} from '../row-mapping.ts'

/** A contest row carrying its signals as a JSON array in the `signals` column, already in minute order. */
export function toContest(row: Row): Contest {
  const signals = row.signals
  if (!Array.isArray(signals)) throw new TypeError(`column signals: expected an array, got ${typeof signals}`)
  return contestWithSignals(row, signals.map(toSignal))
}
