// Reads a tape as a stream (decisions §12): never the whole file in memory, gzip when the name ends
// in `.gz`. Every fault names its line. A gzip file whose last member was cut short (the recorder
// was killed mid-flush) is read up to its last complete line and a notice says so; any other damage
// stops the read, after every whole line that decompressed before it.
import { createReadStream } from 'node:fs'
import { StringDecoder } from 'node:string_decoder'
import { createGunzip } from 'node:zlib'
import { decompressedBeforeDamage, gzipFaultOf } from './gzip-recovery.ts'
import { isLineProblem, parseHeader, parseRecord, type TapeHeader, type TapeRecord } from './tape-format.ts'

/**
 * A tape that cannot be read on: `line` is the 1-based line at fault (null when no line is), `file`
 * the tape file it is in (null when the fault is no one file's), so the one line an operator reads
 * says where to look whichever of a directory's day files went bad.
 */
export class TapeError extends Error {
  readonly line: number | null
  readonly problem: string
  readonly file: string | null
  constructor(line: number | null, problem: string, file: string | null = null) {
    const where = line === null ? '' : `line ${line}: `
    super(`${file === null ? '' : `${file}: `}${where}${problem}`)
    this.name = 'TapeError'
    this.line = line
    this.problem = problem
    this.file = file
  }

  /** The same fault, naming the file it is in (kept when it names one already). */
  in(file: string): TapeError {
    return this.file !== null ? this : new TapeError(this.line, this.problem, file)
  }
}

/** Rethrows a tape fault naming `file`; any other error as it is. */
export function inTapeFile(err: unknown, file: string): never {
  throw err instanceof TapeError ? err.in(file) : err
}

/** Where a record is on the tape: what an operator opens to mend it. */
export type RecordPlace = { tape: string; line: number }

// A venue body's place rides on its record, unseen (not enumerable: a record still equals the same
// record written by hand), for the warning the venue's adapter raises if it rejects the body. Not a
// spot's: those are most of a tape, and never rejected there.
const PLACE = Symbol('place on the tape')

function placeRecord(record: TapeRecord, tape: string, line: number): void {
  Object.defineProperty(record, PLACE, { value: { tape, line } satisfies RecordPlace })
}

/** The file and line a market or book record was read from, null for any other record. */
export function placeOf(record: TapeRecord): RecordPlace | null {
  return (record as { [PLACE]?: RecordPlace })[PLACE] ?? null
}

export type TapeReadOptions = {
  /** told about a truncated final gzip member (and anything else worth an operator's eye) */
  onNotice?: (message: string) => void
}

export type OpenedTape = {
  readonly path: string
  readonly header: TapeHeader
  /** The records after the header, in order; throws TapeError at the first bad line. Read once. */
  records(): AsyncGenerator<TapeRecord, void, undefined>
  /** The same records a batch at a time (what a fast consumer reads); use this or records(), not both. */
  batches(): AsyncGenerator<TapeRecord[], void, undefined>
  /** Line number of the last record handed out (the header is line 1). */
  lineNumber(): number
  close(): void
}

/**
 * The longest line read (in UTF-16 units): far above any record (a market or book body is kilobytes),
 * so only a file that is not NDJSON (a JSON array on one line, a binary file) reaches it.
 */
export const MAX_LINE_CHARS = 64 * 1024 * 1024

const isGzipPath = (path: string): boolean => path.endsWith('.gz')
const errorCode = (err: unknown): string | undefined =>
  typeof err === 'object' && err !== null && 'code' in err
    ? String((err as { code: unknown }).code)
    : undefined

/** The fault of a line that gzip damage kept from being read whole. */
const gzipDamage = (err: unknown): string =>
  `not valid gzip data (${(err as Error).message}): a damaged gzip member, or bytes after the last one, from this line on; every line before it was read`

/**
 * The lines of a file without their newlines, a chunk's worth at a time (one await per chunk, not per
 * line: a day of tape is hundreds of thousands of lines); line numbers count from 1.
 */
async function* linesOf(
  path: string,
  onTruncated: (lastLine: number) => void,
  onDamaged: (problem: string) => void,
  closeSignal: AbortSignal,
): AsyncGenerator<string[], void, undefined> {
  const file = createReadStream(path, { highWaterMark: 256 * 1024, signal: closeSignal })
  const gunzip = isGzipPath(path) ? createGunzip({ chunkSize: 256 * 1024 }) : null
  const source = gunzip ? file.pipe(gunzip) : file
  if (gunzip) file.on('error', (err) => gunzip.destroy(err))
  const decoder = new StringDecoder('utf8')
  let line = 0
  let bytesOut = 0
  const tooLong = (): TapeError =>
    new TapeError(
      line + 1,
      `longer than ${MAX_LINE_CHARS / 1024 / 1024} MiB without a newline: not a tape line`,
    )
  // the start of a line not ended yet, in pieces: joined once its newline comes, so a long line is
  // copied once, not once per chunk
  let rest: string[] = []
  let restLength = 0
  // set by wholeLines: the lines before the long one are handed out, then it is refused
  let overLong = false
  // a UTF-8 byte-order mark before the first line (a file an editor or a Windows tool saved) is no
  // part of the header: JSON.parse would refuse it as "not JSON" with nothing to show why
  let atStart = true
  const wholeLines = (chunk: Buffer): string[] => {
    let text = decoder.write(chunk)
    if (atStart && text !== '') {
      atStart = false
      if (text.startsWith('\ufeff')) text = text.slice(1)
    }
    const batch: string[] = []
    let start = 0
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      if (restLength + nl - start > MAX_LINE_CHARS) {
        overLong = true
        return batch
      }
      batch.push(rest.length === 0 ? text.slice(start, nl) : rest.join('') + text.slice(start, nl))
      rest = []
      restLength = 0
      line++
      start = nl + 1
    }
    if (start < text.length) {
      rest.push(text.slice(start))
      restLength += text.length - start
      overLong = restLength > MAX_LINE_CHARS
    }
    return batch
  }
  try {
    for await (const chunk of source) {
      bytesOut += (chunk as Buffer).length
      const batch = wholeLines(chunk as Buffer)
      if (batch.length > 0) yield batch
      if (overLong) throw tooLong()
    }
  } catch (err) {
    if (err instanceof TapeError) throw err
    const code = errorCode(err)
    if (code === 'ABORT_ERR') return
    if (code === 'ENOENT') throw new TapeError(null, 'no such file', path)
    if (code === 'EISDIR') throw new TapeError(null, 'a directory, not a tape file', path)
    const cut = code === 'Z_BUF_ERROR'
    if (gunzip && (cut || code === 'Z_DATA_ERROR' || code === 'Z_STREAM_ERROR')) {
      // the stream lost what zlib gave out just before the fault: read it again, then keep every
      // complete line and drop the partial one
      const recovered = wholeLines(await decompressedBeforeDamage(path, gunzip.bytesWritten, bytesOut))
      if (cut) {
        // the last gzip member ends early (a recorder killed mid-flush)
        onTruncated(line)
        if (recovered.length > 0) yield recovered
        if (overLong) throw tooLong()
        return
      }
      // nothing accepted at all: not a damaged tape but a file that is not gzip
      const problem =
        gunzip.bytesWritten === 0 && line === 0
          ? `the name ends in .gz but the file is not gzip data (${(err as Error).message})`
          : gzipDamage(err)
      onDamaged(problem)
      if (recovered.length > 0) yield recovered
      throw overLong ? tooLong() : new TapeError(line + 1, problem)
    }
    throw new TapeError(line + 1, `cannot be read (${(err as Error).message})`)
  }
  const last = rest.join('') + decoder.end()
  if (last !== '') {
    line++
    // a file may lack its final newline; a last line that is not whole JSON was cut off
    try {
      JSON.parse(last)
    } catch {
      throw new TapeError(
        line,
        'the file ends inside this line (truncated: no newline and not complete JSON)',
      )
    }
    yield [last]
  }
}

/** Opens a tape and reads its header; the records follow through `records()`. */
export async function openTape(path: string, opts: TapeReadOptions = {}): Promise<OpenedTape> {
  try {
    return await openTapeFile(path, opts)
  } catch (err) {
    inTapeFile(err, path)
  }
}

async function openTapeFile(path: string, opts: TapeReadOptions): Promise<OpenedTape> {
  const closer = new AbortController()
  let truncatedAt: number | null = null
  // set before the last lines read ahead of gzip damage: a fault among them is that damage's
  let damage: string | null = null
  const lines = linesOf(
    path,
    (last) => {
      truncatedAt = last
    },
    (problem) => {
      damage = problem
    },
    closer.signal,
  )
  const noteTruncation = (): void => {
    if (truncatedAt !== null)
      opts.onNotice?.(
        `${path}: the last gzip member is truncated; read up to line ${truncatedAt}, the last complete line`,
      )
  }
  let lineNo = 0
  let pending: string[] = []
  const first = await lines.next()
  if (first.done) {
    noteTruncation()
    throw new TapeError(
      1,
      truncatedAt !== null ? 'truncated before its header' : 'empty file: no tape header',
    )
  }
  pending = first.value.slice(1)
  lineNo = 1
  let headerValue: unknown
  try {
    headerValue = JSON.parse(first.value[0] as string)
  } catch {
    // gzip's magic bytes read as UTF-8: a compressed tape whose name lacks the .gz
    throw new TapeError(
      1,
      (first.value[0] as string).startsWith('\u001f\ufffd')
        ? 'gzip data, but the name does not end in .gz (a compressed tape must be named *.ndjson.gz)'
        : 'the header is not JSON',
    )
  }
  const header = parseHeader(headerValue)
  if (isLineProblem(header)) throw new TapeError(1, header.problem)

  let lastT = Number.NEGATIVE_INFINITY
  /** The records of `texts` up to the first bad line, and that line's fault (handed out after them). */
  const parseLines = (texts: string[]): { records: TapeRecord[]; fault: TapeError | null } => {
    const out: TapeRecord[] = []
    for (const text of texts) {
      lineNo++
      if (text.trim() === '') continue
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch {
        return { records: out, fault: new TapeError(lineNo, 'not JSON') }
      }
      const record = parseRecord(value)
      if (record === null) continue
      if (isLineProblem(record)) return { records: out, fault: new TapeError(lineNo, record.problem) }
      if (record.t < lastT)
        return {
          records: out,
          fault: new TapeError(lineNo, `"t" goes back in time (${record.t} after ${lastT})`),
        }
      lastT = record.t
      if (record.k === 'market' || record.k === 'book') placeRecord(record, path, lineNo)
      out.push(record)
    }
    return { records: out, fault: null }
  }

  async function* batches(): AsyncGenerator<TapeRecord[], void, undefined> {
    const handOut = function* (texts: string[]): Generator<TapeRecord[], void, undefined> {
      const { records, fault } = parseLines(texts)
      // every record before a bad line is played before the fault stops the read
      if (records.length > 0) yield records
      if (fault) throw damage === null ? fault : new TapeError(fault.line, damage)
    }
    try {
      if (pending.length > 0) {
        const first = pending
        pending = []
        yield* handOut(first)
      }
      for await (const texts of lines) yield* handOut(texts)
    } catch (err) {
      inTapeFile(damage === null ? await withGzipDamage(err) : err, path)
    }
    noteTruncation()
  }
  /** A line's fault in a gzip file whose member fails its check later: that damage is named too. */
  async function withGzipDamage(err: unknown): Promise<unknown> {
    if (!isGzipPath(path) || !(err instanceof TapeError) || err.line === null) return err
    const gzip = await gzipFaultOf(path)
    if (gzip === null) return err
    return new TapeError(
      err.line,
      `${err.problem}; the file's gzip data is damaged too (${gzip}): a damaged gzip member reads as wrong bytes until its check at the member's end fails, so this line is likely that damage; every line before it was read`,
    )
  }
  async function* records(): AsyncGenerator<TapeRecord, void, undefined> {
    for await (const batch of batches()) yield* batch
  }

  return {
    path,
    header,
    records,
    batches,
    lineNumber: () => lineNo,
    close: () => closer.abort(),
  }
}
