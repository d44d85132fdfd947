// The tail rows the model cards keep per seed (in their JSON) and pool across seeds: a bucket named
// with its long shot, and the per-contest sums that let the clustered SE be recomputed when pooled.
import { pooledTailRow, type TailRow, tailRatioText } from '../src/domain/tail-table.ts'

export type CardTailRow = TailRow & { label: string }

/** A report's row as a card keeps it: the label names the long shot too ("2–5 % up"). */
export function cardTailRow(row: TailRow): CardTailRow {
  return { ...row, label: `${row.label} ${row.longShot}` }
}

/** One bucket pooled over several runs' tables (seeds, or a crowd's seeds); null where none has it. */
export function pooledCardTail(tables: readonly (readonly CardTailRow[])[], label: string): TailRow | null {
  return pooledTailRow(tables.flatMap((t) => t.filter((r) => r.label === label)))
}

/** "claimed → realised (ratio ± SE; N contests)", as the card tables print a pooled bucket. */
export function pooledTailText(row: TailRow): string {
  if (!(row.claimed > 0)) return '–'
  return `${row.claimed.toFixed(1)} → ${row.realised} (${tailRatioText(row)}; ${row.contests} contests)`
}
