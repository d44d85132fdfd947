// Writes a tape (decisions §12). Lines are buffered and written out in batches; with a `.gz` name each
// batch is one complete gzip member appended to the file, so a process killed at any instant leaves
// a file whose every member but possibly the last is whole, and the reader recovers all of them.
import { type FileHandle, open } from 'node:fs/promises'
import { promisify } from 'node:util'
import { gzip as gzipCallback } from 'node:zlib'
import type { TapeHeader, TapeRecord } from './tape-format.ts'

const gzip = promisify(gzipCallback)

/** Uncompressed bytes buffered before a batch is written on its own, whatever the flush timer says. */
export const DEFAULT_FLUSH_BYTES = 1 << 20

export type TapeWriterOptions = {
  /** written as the first line when the file is new or empty */
  header: TapeHeader
  flushBytes?: number
  /** `t` of the last record already in the file, when appending to one */
  lastT?: number
}

export type TapeWriter = {
  readonly path: string
  /** Buffers one record. `t` never goes back: an earlier one is written as the latest `t` so far. */
  write(record: TapeRecord): void
  /** Resolves once everything buffered so far is in the file (a caller writing fast awaits this to keep memory bounded). */
  flush(): Promise<void>
  /**
   * Uncompressed bytes not yet in the file: those buffered and those of batches still being
   * compressed or written. A caller writing fast awaits flush() when this grows, which keeps its
   * memory bounded and lets the event loop (a signal's handler among others) run.
   */
  buffered(): number
  /** Bytes in the file so far. */
  size(): number
  close(): Promise<void>
}

export async function createTapeWriter(path: string, opts: TapeWriterOptions): Promise<TapeWriter> {
  const gzipped = path.endsWith('.gz')
  const flushBytes = opts.flushBytes ?? DEFAULT_FLUSH_BYTES
  const handle: FileHandle = await open(path, 'a')
  let fileSize = (await handle.stat()).size
  let parts: string[] = []
  let bufferedBytes = 0
  // of batches handed to the chain and not yet in the file
  let inFlightBytes = 0
  let lastT = opts.lastT ?? Number.NEGATIVE_INFINITY
  let chain: Promise<void> = Promise.resolve()
  let failure: unknown = null
  let closed = false

  const writeOut = async (text: string): Promise<void> => {
    const bytes = gzipped ? await gzip(text) : Buffer.from(text, 'utf8')
    // one write call per batch: a member is either all there or cut at the end of the file
    await handle.write(bytes, 0, bytes.length, null)
    fileSize += bytes.length
  }
  const startFlush = (): Promise<void> => {
    if (bufferedBytes > 0) {
      const text = parts.join('')
      const size = bufferedBytes
      parts = []
      bufferedBytes = 0
      inFlightBytes += size
      chain = chain
        .then(() => writeOut(text))
        .catch((err: unknown) => {
          failure ??= err
        })
        .finally(() => {
          inFlightBytes -= size
        })
    }
    return chain.then(() => {
      if (failure) throw failure
    })
  }
  const push = (line: string): void => {
    parts.push(line)
    bufferedBytes += line.length
    if (bufferedBytes >= flushBytes) void startFlush().catch(() => {})
  }

  if (fileSize === 0) push(`${JSON.stringify(opts.header)}\n`)

  return {
    path,
    write(record) {
      if (closed) throw new Error(`tape ${path} is closed`)
      if (record.t < lastT) record = { ...record, t: lastT }
      lastT = record.t
      push(`${JSON.stringify(record)}\n`)
    },
    flush: startFlush,
    buffered: () => bufferedBytes + inFlightBytes,
    size: () => fileSize,
    async close() {
      if (closed) return
      closed = true
      try {
        await startFlush()
        await handle.sync()
      } finally {
        await handle.close()
      }
    },
  }
}
