// Several tapes read as one (an operator's month of day files from RECORD_DIR): a directory stands
// for every tape file in it, in name order — the day files' names sort by date. The files must be of
// one venue and follow each other in time; the header seen by the reader is the first file's, with
// the series and sources of all of them.
import { readdir, stat } from 'node:fs/promises'
import path from 'node:path'
import type { TapeHeader, TapeRecord } from './tape-format.ts'
import { inTapeFile, openTape, TapeError, type TapeReadOptions } from './tape-reader.ts'

const TAPE_FILE = /\.ndjson(\.gz)?$/

export type TapeSet = {
  /** the first file's header, with the series and sources of all of them and the last one's `to` */
  readonly header: TapeHeader
  /** each file's own header, in the order of `files` */
  readonly headers: readonly TapeHeader[]
  readonly files: readonly string[]
  batches(): AsyncGenerator<TapeRecord[], void, undefined>
  close(): void
}

/** The files a `--tape` argument names: the file itself, or a directory's tape files in name order. */
export async function tapeFiles(target: string): Promise<string[]> {
  // a tape is read twice (every file's header first, then the records): a pipe would be half
  // consumed by the first read, so it is refused here rather than misread
  const unreadable = (what: string): TapeError =>
    new TapeError(
      null,
      `${what} is not a tape file or a directory of them: a pipe, a device or stdin cannot be read twice (headers first, then records); save the tape to a file`,
    )
  if (target === '-') throw unreadable('-')
  const info = await stat(target).catch(() => null)
  if (!info) throw new TapeError(null, `no such file or directory: ${target}`)
  if (info.isFile()) return [target]
  if (!info.isDirectory()) throw unreadable(target)
  const names = (await readdir(target)).filter((n) => TAPE_FILE.test(n)).sort()
  if (names.length === 0) throw new TapeError(null, `${target} holds no tape files (*.ndjson, *.ndjson.gz)`)
  return names.map((n) => path.join(target, n))
}

export async function openTapeSet(target: string, opts: TapeReadOptions = {}): Promise<TapeSet> {
  const files = await tapeFiles(target)
  const headers: TapeHeader[] = []
  for (const file of files) {
    try {
      const tape = await openTape(file, opts)
      tape.close()
      headers.push(tape.header)
    } catch (err) {
      inTapeFile(err, file)
    }
  }
  const first = headers[0] as TapeHeader
  for (const [i, h] of headers.entries())
    if (h.venue !== first.venue)
      throw new TapeError(
        1,
        `venue "${h.venue}" differs from "${first.venue}" of the first tape`,
        files[i] as string,
      )
  for (const [i, h] of headers.entries())
    if (h.grain !== first.grain)
      throw new TapeError(
        1,
        `grain ${JSON.stringify(h.grain ?? 'full')} differs from ${JSON.stringify(first.grain ?? 'full')} of the first tape`,
        files[i] as string,
      )
  const union = (pick: (h: TapeHeader) => string[]) => [...new Set(headers.flatMap(pick))]
  const header: TapeHeader = {
    ...first,
    series: union((h) => h.series),
    sources: union((h) => h.sources),
    to: (headers.at(-1) as TapeHeader).to,
  }
  let current: { close(): void } | null = null

  async function* batches(): AsyncGenerator<TapeRecord[], void, undefined> {
    let lastT = Number.NEGATIVE_INFINITY
    for (const file of files) {
      const tape = await openTape(file, opts)
      current = tape
      try {
        let checked = false
        for await (const batch of tape.batches()) {
          if (!checked && batch.length > 0) {
            checked = true
            if ((batch[0] as TapeRecord).t < lastT)
              throw new TapeError(
                2,
                `"t" goes back in time from the previous tape (${(batch[0] as TapeRecord).t} after ${lastT})`,
                file,
              )
          }
          lastT = (batch.at(-1) as TapeRecord).t
          yield batch
        }
      } catch (err) {
        inTapeFile(err, file)
      } finally {
        tape.close()
        current = null
      }
    }
  }

  return { header, headers, files, batches, close: () => current?.close() }
}
