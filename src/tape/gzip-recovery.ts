// What a damaged gzip file decompresses to before its damage (decisions §12: every line before a bad
// one is read). The reader's fast stream cannot say: zlib hands out nothing of the call that meets
// the damage (up to a whole output chunk), and a stream destroyed by the error drops what it had
// buffered. So a damaged file is read once more: the input zlib had accepted in large pieces, then
// a few bytes at a time, keeping every byte out until zlib refuses one.
import { createReadStream } from 'node:fs'
import { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGunzip } from 'node:zlib'

/** Bytes given to zlib at a time past the input it accepted: each call's output is lost with it. */
const SMALL_PIECE_BYTES = 16

/**
 * The decompressed bytes of the gzip file at `path` that come before its damage, less the first
 * `skipOutputBytes` (already read). `acceptedInputBytes` is how much input the first read's zlib
 * had consumed without fault (its `bytesWritten`): up to there it is read in large pieces.
 */
export async function decompressedBeforeDamage(
  path: string,
  acceptedInputBytes: number,
  skipOutputBytes: number,
): Promise<Buffer> {
  const gunzip = createGunzip()
  const out: Buffer[] = []
  let seen = 0
  gunzip.on('data', (chunk: Buffer) => {
    const from = Math.max(0, skipOutputBytes - seen)
    seen += chunk.length
    if (from < chunk.length) out.push(chunk.subarray(from))
  })
  let failed = false
  const failure = new Promise<void>((resolve) =>
    gunzip.once('error', () => {
      failed = true
      resolve()
    }),
  )
  const write = (piece: Buffer): Promise<void> =>
    Promise.race([new Promise<void>((resolve) => gunzip.write(piece, () => resolve())), failure])

  let offset = 0
  const file = createReadStream(path, { highWaterMark: 256 * 1024 })
  try {
    for await (const chunk of file as AsyncIterable<Buffer>) {
      let i = 0
      while (i < chunk.length && !failed) {
        const large = acceptedInputBytes - (offset + i)
        const size = large > 0 ? Math.min(large, chunk.length - i) : SMALL_PIECE_BYTES
        await write(chunk.subarray(i, i + size))
        i += size
      }
      offset += chunk.length
      if (failed) break
    }
    if (!failed) {
      // a cut last member fails only here, at the end of its input
      const ended = new Promise<void>((resolve) => gunzip.once('end', resolve))
      gunzip.end()
      await Promise.race([ended, failure])
    }
  } finally {
    file.destroy()
    gunzip.destroy()
  }
  return Buffer.concat(out)
}

/**
 * zlib's refusal of the gzip file at `path`, or null when every member is whole. A flipped bit in a
 * member's data mostly decompresses to wrong bytes that zlib catches only at the member's end (its
 * CRC), so a line read before then can fail as "not JSON" with the cause unseen: this pass finds it.
 */
export async function gzipFaultOf(path: string): Promise<string | null> {
  try {
    await pipeline(
      createReadStream(path, { highWaterMark: 256 * 1024 }),
      createGunzip(),
      new Writable({ write: (_chunk, _enc, done) => done() }),
    )
    return null
  } catch (err) {
    return (err as Error).message
  }
}
