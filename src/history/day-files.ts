// The day files an import writes (decisions §12: `tape-YYYY-MM-DD.ndjson.gz`, one per UTC day, the
// name the recorder uses). A day is written whole to a hidden temporary name and renamed once
// complete, so a file with the day's name is always a finished day — the mark that lets a later run
// skip it — and an interrupted or failed run leaves no half day behind.
import { mkdir, rename, rmdir, stat, unlink } from 'node:fs/promises'
import path from 'node:path'
import type { TapeHeader, TapeRecord } from '../tape/tape-format.ts'
import { openTape, TapeError } from '../tape/tape-reader.ts'
import { dayFileName } from '../tape/tape-recorder.ts'
import { createTapeWriter, WRITE_AHEAD_BYTES } from '../tape/tape-writer.ts'
import { HistoryError } from './history-http.ts'

export const dayFilePath = (dir: string, dayStart: number): string => path.join(dir, dayFileName(dayStart))

/**
 * The temporary name: the day's own name (the writer compresses by it) in a hidden folder of DIR, so
 * a replay of DIR never reads a half day and the rename stays on one file system.
 */
const partialPath = (dir: string, dayStart: number): string =>
  path.join(dir, '.partial', dayFileName(dayStart))

/** The header of the day's finished file, or null when the day is not written yet. */
export async function writtenDayHeader(dir: string, dayStart: number): Promise<TapeHeader | null> {
  const file = dayFilePath(dir, dayStart)
  const info = await stat(file).catch(() => null)
  if (!info?.isFile() || info.size === 0) return null
  try {
    const tape = await openTape(file)
    tape.close()
    return tape.header
  } catch (err) {
    if (!(err instanceof TapeError)) throw err
    throw new HistoryError(
      file,
      `is not a readable tape (${err.message}); remove it to import that day again`,
    )
  }
}

/** Kinds at one instant in the order a reader needs them: status and warm-up first, a market before its book. */
const KIND_ORDER: Readonly<Record<TapeRecord['k'], number>> = {
  exchange: 0,
  closes: 1,
  market: 2,
  book: 3,
  spot: 4,
  index: 5,
}

/** Records in time order; at one instant by kind, and otherwise in the order given. */
export function tapeOrder(records: readonly TapeRecord[]): TapeRecord[] {
  return records
    .map((r, i) => ({ r, i }))
    .sort((a, b) => a.r.t - b.r.t || KIND_ORDER[a.r.k] - KIND_ORDER[b.r.k] || a.i - b.i)
    .map(({ r }) => r)
}

export async function writeDayFile(
  dir: string,
  dayStart: number,
  header: TapeHeader,
  records: readonly TapeRecord[],
): Promise<void> {
  const partial = partialPath(dir, dayStart)
  await mkdir(path.dirname(partial), { recursive: true })
  // the writer appends: a leftover of a run that died must not be continued
  await unlink(partial).catch(() => undefined)
  const writer = await createTapeWriter(partial, { header })
  try {
    for (const record of tapeOrder(records)) {
      writer.write(record)
      if (writer.buffered() > WRITE_AHEAD_BYTES) await writer.drainTo(WRITE_AHEAD_BYTES / 2)
    }
    await writer.close()
  } catch (err) {
    await writer.close().catch(() => undefined)
    await unlink(partial).catch(() => undefined)
    throw err
  }
  await rename(partial, dayFilePath(dir, dayStart))
  // left only while a day is being written
  await rmdir(path.dirname(partial)).catch(() => undefined)
}
