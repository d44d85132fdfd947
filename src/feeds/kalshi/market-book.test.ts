// Tests of the market cache: filing by series, one warning per bad payload, the live window lookup.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createMarketBook } from './market-book.ts'

const raw = (
  ticker: string,
  status: string,
  open: string,
  close: string,
  extra: Record<string, unknown> = {},
) => ({
  ticker,
  status,
  open_time: open,
  close_time: close,
  ...extra,
})

function book(series = ['KXBTC', 'KXBTC15M']) {
  const warnings: Array<Record<string, unknown>> = []
  const logger = {
    info() {},
    debug() {},
    error() {},
    warn: (o: unknown) => void warnings.push(o as Record<string, unknown>),
  }
  return { book: createMarketBook({ series, logger }), warnings }
}

describe('createMarketBook', () => {
  it('files a market under the listing series, its earlier series, or the longest series its ticker starts with', () => {
    const { book: b, warnings } = book()
    b.ingest(raw('KXBTC15M-A-00', 'active', '2026-03-02T21:15:00Z', '2026-03-02T21:30:00Z'), null, 1)
    assert.equal(b.get('KXBTC15M-A-00')?.series, 'KXBTC15M')
    b.ingest(raw('ODD-1', 'active', '2026-03-02T21:15:00Z', '2026-03-02T21:30:00Z'), 'KXBTC', 2)
    b.ingest(raw('ODD-1', 'closed', '2026-03-02T21:15:00Z', '2026-03-02T21:30:00Z'), null, 3)
    assert.deepEqual([b.get('ODD-1')?.series, b.get('ODD-1')?.market.status], ['KXBTC', 'closed'])
    assert.equal(
      b.ingest(raw('KXETH-1', 'active', '2026-03-02T21:15:00Z', '2026-03-02T21:30:00Z'), null, 4),
      null,
    )
    assert.deepEqual(
      warnings.map((w) => [w.ticker, w.field]),
      [['KXETH-1', 'series']],
    )
  })

  it('warns once per ticker and field, and keeps the last good view', () => {
    const { book: b, warnings } = book()
    const good = raw('KXBTC15M-A-00', 'active', '2026-03-02T21:15:00Z', '2026-03-02T21:30:00Z')
    b.ingest(good, 'KXBTC15M', 1)
    for (let i = 0; i < 3; i++) assert.equal(b.ingest({ ...good, status: 7 }, 'KXBTC15M', 2 + i), null)
    b.ingest({ ...good, open_time: 'x' }, 'KXBTC15M', 9)
    assert.deepEqual(
      warnings.map((w) => [w.ticker, w.field]),
      [
        ['KXBTC15M-A-00', 'status'],
        ['KXBTC15M-A-00', 'open_time'],
      ],
    )
    assert.deepEqual([b.get('KXBTC15M-A-00')?.market.status, b.get('KXBTC15M-A-00')?.seenAt], ['active', 1])
  })

  it('takes a status word it does not know as the new view (not trading), warned once', () => {
    const { book: b, warnings } = book()
    const good = raw('KXBTC15M-A-00', 'active', '2026-03-02T21:15:00Z', '2026-03-02T21:30:00Z')
    b.ingest(good, 'KXBTC15M', 1)
    b.ingest({ ...good, status: 'halted' }, 'KXBTC15M', 2)
    b.ingest({ ...good, status: 'halted' }, 'KXBTC15M', 3)
    assert.equal(b.get('KXBTC15M-A-00')?.market.status, 'halted')
    assert.equal(b.liveIn('KXBTC15M', Date.parse('2026-03-02T21:20:00Z'))?.market.ticker, 'KXBTC15M-A-00')
    assert.deepEqual(
      warnings.map((w) => [w.ticker, w.field]),
      [['KXBTC15M-A-00', 'status:halted']],
    )
  })

  it('never replaces a settled view with one that is not', () => {
    const { book: b } = book()
    const settled = {
      ...raw('KXBTC15M-A-00', 'finalized', '2026-03-02T21:15:00Z', '2026-03-02T21:30:00Z'),
      result: 'yes',
    }
    b.ingest(settled, 'KXBTC15M', 1)
    b.ingest({ ...settled, status: 'closed', result: '' }, 'KXBTC15M', 2)
    assert.equal(b.get('KXBTC15M-A-00')?.market.status, 'finalized')
  })

  it('finds the trading or paused market whose window holds the instant, and forgets unseen ones', () => {
    const { book: b } = book()
    const t = (iso: string) => Date.parse(iso)
    b.ingest(raw('KXBTC15M-1', 'closed', '2026-03-02T21:00:00Z', '2026-03-02T21:15:00Z'), 'KXBTC15M', 1)
    b.ingest(raw('KXBTC15M-2', 'inactive', '2026-03-02T21:15:00Z', '2026-03-02T21:30:00Z'), 'KXBTC15M', 1)
    b.ingest(raw('KXBTC15M-3', 'initialized', '2026-03-02T21:30:00Z', '2026-03-02T21:45:00Z'), 'KXBTC15M', 5)
    assert.equal(b.liveIn('KXBTC15M', t('2026-03-02T21:10:00Z')), null)
    assert.equal(b.liveIn('KXBTC15M', t('2026-03-02T21:15:00Z'))?.market.ticker, 'KXBTC15M-2')
    assert.equal(b.liveIn('KXBTC15M', t('2026-03-02T21:30:00Z')), null)
    assert.equal(b.liveIn('KXBTC', t('2026-03-02T21:20:00Z')), null)
    b.prune(10, 5)
    assert.deepEqual(
      [...b.entries()].map((e) => e.market.ticker),
      ['KXBTC15M-3'],
    )
  })
})
