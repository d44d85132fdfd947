import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { ContestView } from './contest-view.ts'
import { alignByWindow, latestSignal } from './venue-windows.ts'
import { venueOfSeries } from './venues.ts'

const contest = (
  ticker: string,
  opens_at: string,
  expires_at: string,
  raised: string[] = [],
): ContestView => ({
  ticker,
  state: 'settled',
  window: { opens_at, expires_at },
  strike_price_dollars: null,
  settled_side: 'up',
  settled_price_dollars: null,
  venue: null,
  venue_refs: null,
  signals: raised.map((raised_at) => ({
    ticker,
    raised_at,
    side: 'up',
    confidence: 60,
    entry_price_cents: 55,
    edge_cents: 5,
    outcome: 'win',
    model_version: null,
  })),
})

describe('alignByWindow', () => {
  it('puts the same quarter hour of two venues on one row, matched by instants, not tickers', () => {
    // venue facts §3.1.2: the slug carries the start in Unix seconds, the Kalshi ticker the close in ET
    const kalshi = contest('KXBTC15M-26SEP251515-15', '2026-09-25T19:00:00Z', '2026-09-25T19:15:00Z')
    const poly = contest('btc-updown-15m-1790362800', '2026-09-25T19:00:00.000Z', '2026-09-25T19:15:00.000Z')
    const rows = alignByWindow([[kalshi], [poly]])
    assert.equal(rows.length, 1)
    assert.equal(rows[0]!.opensAt, 1_790_362_800_000)
    assert.deepEqual(rows[0]!.contests, [kalshi, poly])
  })

  it('keeps a window one venue lacks, or that a venue closed early, on rows of their own, newest first', () => {
    const k1 = contest('KXBTC15M-26SEP251515-15', '2026-09-25T19:00:00Z', '2026-09-25T19:15:00Z')
    const k2 = contest('KXBTC15M-26SEP251530-30', '2026-09-25T19:15:00Z', '2026-09-25T19:30:00Z')
    const p1 = contest('btc-updown-15m-1790362800', '2026-09-25T19:00:00Z', '2026-09-25T19:15:00Z')
    // closed early by the venue: not the same window any more
    const p2 = contest('btc-updown-15m-1790363700', '2026-09-25T19:15:00Z', '2026-09-25T19:27:00Z')
    const rows = alignByWindow([
      [k1, k2],
      [p2, p1],
    ])
    assert.deepEqual(
      rows.map((r) => r.contests.map((c) => c?.ticker ?? null)),
      [
        ['KXBTC15M-26SEP251530-30', null],
        [null, 'btc-updown-15m-1790363700'],
        ['KXBTC15M-26SEP251515-15', 'btc-updown-15m-1790362800'],
      ],
    )
  })

  it('never pairs two contests whose tickers look alike but whose windows differ', () => {
    const rows = alignByWindow([
      [contest('KXBTC15M-26SEP251515-15', '2026-09-25T19:00:00Z', '2026-09-25T19:15:00Z')],
      [contest('btc-updown-15m-1790362800', '2026-09-25T19:15:00Z', '2026-09-25T19:30:00Z')],
    ])
    assert.equal(rows.length, 2)
  })

  it('reads the latest reading of a contest', () => {
    const c = contest('T', '2026-09-25T19:00:00Z', '2026-09-25T19:15:00Z', [
      '2026-09-25T19:02:00.200Z',
      '2026-09-25T19:03:00.100Z',
      '2026-09-25T19:01:00.900Z',
    ])
    assert.equal(latestSignal(c)?.raised_at, '2026-09-25T19:03:00.100Z')
    assert.equal(latestSignal(contest('T', '2026-09-25T19:00:00Z', '2026-09-25T19:15:00Z')), null)
  })
})

describe('venueOfSeries', () => {
  it('names the venue by the series prefix (decisions §14)', () => {
    assert.equal(venueOfSeries('KXBTC15M'), 'kalshi')
    assert.equal(venueOfSeries('btc-updown-15m'), 'polymarket')
    assert.equal(venueOfSeries('BTC-UPDOWN-15M'), null)
    assert.equal(venueOfSeries('ETHUSD'), null)
  })
})
