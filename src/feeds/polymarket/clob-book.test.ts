// Tests of the CLOB book top (venue facts §3.4.2): min ask / max bid whatever the level order (the
// constructed book worst-first, the same best-first, shuffled), sub-cent ticks kept, empty sides,
// zero sizes skipped, another token's book refused, and malformed levels named.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { EXAMPLE_UP_BOOK_LEVELS, makeBook, UP_TOKEN } from '../../../test/fixtures/polymarket-bodies.ts'
import { bookTop } from './clob-book.ts'

const { bids, asks } = EXAMPLE_UP_BOOK_LEVELS

function top(body: unknown, token: string | undefined = UP_TOKEN) {
  const r = bookTop(body, token)
  assert.ok(r.ok, JSON.stringify(r))
  return r.value
}

describe('bookTop', () => {
  it('reads the constructed book served worst-first: 55 ¢ ask, 54 ¢ bid, not the 0.99/0.01 ghost levels', () => {
    assert.deepEqual(top(makeBook(UP_TOKEN, bids, asks)), { bestAskCents: 55, bestBidCents: 54 })
  })

  it('reads the same book served best-first, and shuffled', () => {
    assert.deepEqual(top(makeBook(UP_TOKEN, [...bids].reverse(), [...asks].reverse())), {
      bestAskCents: 55,
      bestBidCents: 54,
    })
    const shuffled = (xs: typeof asks) => [xs[2]!, xs[0]!, xs[4]!, xs[1]!, xs[3]!]
    assert.deepEqual(top(makeBook(UP_TOKEN, shuffled(bids), shuffled(asks))), {
      bestAskCents: 55,
      bestBidCents: 54,
    })
  })

  it('keeps sub-cent ticks: 0.005 → 0.5 ¢, 0.999 → 99.9 ¢', () => {
    const book = makeBook(
      UP_TOKEN,
      [
        { price: '0.001', size: '10' },
        { price: '0.004', size: '5' },
      ],
      [
        { price: '0.009', size: '100' },
        { price: '0.005', size: '7' },
      ],
    )
    assert.deepEqual(top(book), { bestAskCents: 0.5, bestBidCents: 0.4 })
    const high = makeBook(UP_TOKEN, [{ price: '0.998', size: '1' }], [{ price: '0.999', size: '1' }])
    assert.deepEqual(top(high), { bestAskCents: 99.9, bestBidCents: 99.8 })
  })

  it('reads an empty or missing side as no price, and skips levels of no size', () => {
    assert.deepEqual(top(makeBook(UP_TOKEN, [], [])), { bestAskCents: null, bestBidCents: null })
    const { asks: _asks, ...noAsks } = makeBook(UP_TOKEN, bids, [])
    assert.deepEqual(top(noAsks), { bestAskCents: null, bestBidCents: 54 })
    const zero = makeBook(UP_TOKEN, bids, [
      { price: '0.40', size: '0' },
      { price: '0.60', size: '3' },
    ])
    assert.equal(top(zero).bestAskCents, 60)
  })

  it('accepts numbers where strings are documented', () => {
    const book = makeBook(UP_TOKEN, [], []) as Record<string, unknown>
    book.asks = [{ price: 0.42, size: 10 }]
    assert.equal(top(book).bestAskCents, 42)
  })

  it('refuses the book of another token and malformed levels, naming the field', () => {
    const other = bookTop(makeBook('123', bids, asks), UP_TOKEN)
    assert.deepEqual(other, { ok: false, field: 'asset_id' })
    assert.deepEqual(bookTop(makeBook(UP_TOKEN, bids, [{ price: 'abc', size: '1' }]), UP_TOKEN), {
      ok: false,
      field: 'asks.price',
    })
    assert.deepEqual(bookTop(makeBook(UP_TOKEN, bids, [{ price: '1.5', size: '1' }]), UP_TOKEN), {
      ok: false,
      field: 'asks.price',
    })
    assert.deepEqual(bookTop(makeBook(UP_TOKEN, [{ price: '0.5', size: '-1' }], asks), UP_TOKEN), {
      ok: false,
      field: 'bids.size',
    })
    assert.deepEqual(bookTop({ ...makeBook(UP_TOKEN, bids, asks), asks: 'none' }, UP_TOKEN), {
      ok: false,
      field: 'asks',
    })
    assert.deepEqual(bookTop('<html>', UP_TOKEN), { ok: false, field: 'book' })
    assert.deepEqual(bookTop(null), { ok: false, field: 'book' })
  })
})
