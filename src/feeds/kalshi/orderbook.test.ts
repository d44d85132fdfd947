// Tests of ask derivation from the bids-only book: integer maths, sub-cent ticks, empty sides.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { asksFromOrderbook } from './orderbook.ts'

const book = (fp: Record<string, unknown>) => ({ orderbook_fp: fp })

describe('asksFromOrderbook', () => {
  it('derives each ask from the best bid of the opposite side (the example of venue facts §1.8)', () => {
    const r = asksFromOrderbook(
      book({
        yes_dollars: [
          ['0.0050', '1500.00'],
          ['0.2500', '320.00'],
          ['0.3100', '250.00'],
          ['0.3300', '1200.50'],
          ['0.3400', '703.36'],
        ],
        no_dollars: [
          ['0.0010', '9000.00'],
          ['0.5800', '410.00'],
          ['0.6300', '2210.00'],
          ['0.6400', '1875.25'],
          ['0.6500', '10670.72'],
        ],
      }),
    )
    assert.deepEqual(r, { ok: true, value: { upAskCents: 35, downAskCents: 66 } })
  })

  it('takes the highest bid even when the levels are not in ascending order', () => {
    const r = asksFromOrderbook(
      book({
        yes_dollars: [
          ['0.4200', '13.00'],
          ['0.1000', '5.00'],
        ],
        no_dollars: [
          ['0.5500', '1.00'],
          ['0.2000', '2.00'],
        ],
      }),
    )
    assert.deepEqual(r, { ok: true, value: { upAskCents: 45, downAskCents: 58 } })
  })

  it('keeps sub-cent ticks and 6-decimal prices without float drift', () => {
    assert.deepEqual(
      asksFromOrderbook(book({ yes_dollars: [['0.965432', '1.00']], no_dollars: [['0.9650', '2.00']] })),
      {
        ok: true,
        value: { upAskCents: 3.5, downAskCents: 3.4568 },
      },
    )
    // 1 − 0.7 in floats is 0.30000000000000004; in millionths it is exact
    assert.deepEqual(
      asksFromOrderbook(book({ yes_dollars: [['0.7', '1.00']], no_dollars: [['0.9', '1.00']] })),
      {
        ok: true,
        value: { upAskCents: 10, downAskCents: 30 },
      },
    )
  })

  it('gives no ask on a side whose opposite book is empty, missing or null', () => {
    const yesOnly = [['0.4200', '13.00']]
    for (const emptyNo of [{ no_dollars: [] }, {}, { no_dollars: null }]) {
      assert.deepEqual(asksFromOrderbook(book({ yes_dollars: yesOnly, ...emptyNo })), {
        ok: true,
        value: { upAskCents: null, downAskCents: 58 },
      })
    }
    assert.deepEqual(asksFromOrderbook(book({ yes_dollars: [], no_dollars: null })), {
      ok: true,
      value: { upAskCents: null, downAskCents: null },
    })
  })

  it('ignores levels with no contracts or no price', () => {
    const r = asksFromOrderbook(
      book({
        yes_dollars: [
          ['0.4000', '3.00'],
          ['0.5000', '0.00'],
        ],
        no_dollars: [['0.0000', '5.00']],
      }),
    )
    assert.deepEqual(r, { ok: true, value: { upAskCents: null, downAskCents: 60 } })
  })

  it('names the field when the book is malformed', () => {
    assert.deepEqual(asksFromOrderbook({ orderbook: { yes: [[42, 13]] } }), {
      ok: false,
      field: 'orderbook_fp',
    })
    assert.deepEqual(asksFromOrderbook(null), { ok: false, field: 'orderbook_fp' })
    const bad = (fp: Record<string, unknown>) => asksFromOrderbook(book(fp))
    assert.deepEqual(bad({ yes_dollars: [[0.42, '13.00']] }), {
      ok: false,
      field: 'orderbook_fp.yes_dollars',
    })
    assert.deepEqual(bad({ no_dollars: [['1.2000', '13.00']] }), {
      ok: false,
      field: 'orderbook_fp.no_dollars',
    })
    assert.deepEqual(bad({ no_dollars: [['0.4200']] }), { ok: false, field: 'orderbook_fp.no_dollars' })
    assert.deepEqual(bad({ yes_dollars: '0.42' }), { ok: false, field: 'orderbook_fp.yes_dollars' })
    assert.deepEqual(bad({ yes_dollars: [['0.42', '1.5e2']] }), {
      ok: false,
      field: 'orderbook_fp.yes_dollars',
    })
  })
})
