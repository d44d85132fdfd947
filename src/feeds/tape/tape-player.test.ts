import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { TapeRecord } from '../../tape/tape-format.ts'
import { TapeError } from '../../tape/tape-reader.ts'
import { createTapePlayer } from './tape-player.ts'

const spot = (t: number): TapeRecord => ({ t, k: 'spot', src: 'coinbase', bid: 1, ask: 2 }) as TapeRecord

test('a bad tape met during a book look-ahead stays the replay’s failure: the next read throws it, never a quiet end of tape', async () => {
  const fault = new TapeError(7, '"t" goes back in time')
  async function* batches() {
    yield [spot(1_000), spot(2_000)]
    throw fault
  }
  const applied: number[] = []
  const player = createTapePlayer(batches()[Symbol.asyncIterator](), (r) => {
    applied.push(r.t)
    return false
  })
  // the engine asks for a book at 1 s: the look-ahead reads past the good batch into the bad line,
  // and the request has no book (the engine skips that minute)
  assert.equal(await player.bookBetween('X', 1_000, 6_000), null)
  // the replay loop plays the records before the bad line, then meets the fault itself
  assert.equal(await player.nextTime(), 1_000)
  await assert.rejects(player.playUntil(10_000), fault)
  assert.deepEqual(applied, [1_000, 2_000])
  await assert.rejects(player.nextTime(), fault)
})

test('a book answered from the tape applies the records before it, not those of the same millisecond after it: the live engine read on from the book before it handled them', async () => {
  const book = { t: 5_000, k: 'book', ticker: 'X', ob: {} } as TapeRecord
  const priced = (t: number, bid: number): TapeRecord =>
    ({ t, k: 'spot', src: 'coinbase', bid, ask: bid + 1 }) as TapeRecord
  async function* batches() {
    yield [priced(4_000, 1), priced(5_000, 2), book, priced(5_000, 3), priced(6_000, 4)]
  }
  const applied: TapeRecord[] = []
  const player = createTapePlayer(batches()[Symbol.asyncIterator](), (r) => {
    applied.push(r)
    return false
  })
  assert.equal(await player.bookBetween('X', 4_500, 9_500), book)
  const bids = () => applied.flatMap((r) => (r.k === 'spot' ? [(r as { bid: number }).bid] : []))
  assert.deepEqual(bids(), [1, 2], 'the spot as it stood when the book came')
  assert.equal(applied.at(-1), book)
  // the same millisecond's later record is played next, with the rest
  await player.playUntil(10_000)
  assert.deepEqual(bids(), [1, 2, 3, 4])
})
