// Writes a tape (decisions §12). Lines are buffered and written out in batches; with a `.gz` name each
// batch is one complete gzip member appended to the file, so a process killed at any instant leaves
// a file whose every member but possibly the last is whole, and the reader recovers all of them.
import { type FileHandle, open } from 'node:fs/promises'
import { promisify } from 'node:util'
import { gzip as gzipCallback } from 'node:zlib'
import type { TapeHeader, TapeRecord } from './tape-format.ts'

const gzip = promisify(gzipCallback)
// zlib hands each output chunk back through the event loop: at its default 16 KiB a batch took a
// dozen turns of a loop busy writing the next one, so it was compressed only while the writer
// waited. A chunk larger than any compressed batch is one trip to the thread pool, beside the
// writer's own work.
const GZIP_CHUNK_BYTES = 1 << 20

/** Uncompressed bytes buffered before a batch is written on its own, whatever the flush timer says. */
export const DEFAULT_FLUSH_BYTES = 1 << 20

/**
 * Bytes not yet in the file past which a writer that writes faster than batches are compressed
 * waits for the oldest of them, down to half as many (drainTo).
 */
export const WRITE_AHEAD_BYTES = 4 << 20

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
  /** Resolves once everything buffered so far is in the file. */
  flush(): Promise<void>
  /**
   * Resolves once no more than `bytes` are not yet in the file, waiting for the oldest batches only:
   * a caller writing fast awaits this when buffered() grows, which bounds its memory and lets the
   * event loop (a signal's handler among others) run, while the newer batches are compressed beside
   * its own work.
   */
  drainTo(bytes: number): Promise<void>
  /** Uncompressed bytes not yet in the file: those buffered and those of batches still being compressed or written. */
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
  // the batches handed to the chain and not yet in the file, oldest first
  const inFlight: { size: number; written: Promise<void> }[] = []
  let lastT = opts.lastT ?? Number.NEGATIVE_INFINITY
  let chain: Promise<void> = Promise.resolve()
  let failure: unknown = null
  let closed = false

  const writeOut = async (text: string): Promise<void> => {
    const bytes = gzipped ? await gzip(text, { chunkSize: GZIP_CHUNK_BYTES }) : Buffer.from(text, 'utf8')
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
      chain = chain
        .then(() => writeOut(text))
        .catch((err: unknown) => {
          failure ??= err
        })
        .finally(() => {
          inFlight.shift()
        })
      inFlight.push({ size, written: chain })
    }
    return chain.then(() => {
      if (failure) throw failure
    })
  }
  const unwritten = (): number => {
    let bytes = bufferedBytes
    for (const batch of inFlight) bytes += batch.size
    return bytes
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
    async drainTo(bytes) {
      if (bufferedBytes > bytes) void startFlush().catch(() => {})
      while (unwritten() > bytes && inFlight.length > 0) await inFlight[0]?.written
      if (failure) throw failure
    },
    buffered: unwritten,
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
