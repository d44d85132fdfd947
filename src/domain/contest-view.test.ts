import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Contest } from './contest.ts'
import { formatInstant, formatInstantMs, toContestView } from './contest-view.ts'

describe('contest view', () => {
  it('writes RFC 3339 UTC times with Z, raised_at with milliseconds', () => {
    assert.equal(formatInstant(Date.UTC(2026, 10, 22, 14, 15)), '2026-11-22T14:15:00Z')
    assert.equal(formatInstantMs(Date.UTC(2026, 10, 22, 14, 15, 3, 7)), '2026-11-22T14:15:03.007Z')
  })

  it('has exactly the spec fields, in snake_case, with signals carrying the contest ticker', () => {
    const c: Contest = {
      ticker: 'KXBTC15M-26NOV220915-15',
      series: 'KXBTC15M',
      state: 'live',
      opensAt: Date.UTC(2026, 10, 22, 14, 0),
      expiresAt: Date.UTC(2026, 10, 22, 14, 15),
      strikePriceDollars: 97_000.5,
      settledSide: null,
      settledPriceDollars: null,
      voided: false,
      venue: {
        name: 'kalshi',
        refs: { marketTicker: 'KXBTC15M-26NOV220915-15', eventTicker: 'KXBTC15M-26NOV220915' },
      },
      signals: [
        {
          ticker: 'KXBTC15M-26NOV220915-15',
          minute: 1,
          raisedAt: Date.UTC(2026, 10, 22, 14, 1, 0, 250),
          side: 'up',
          confidence: 57.3,
          entryPriceCents: 54,
          edgeCents: 3.3,
          outcome: 'pending',
          modelVersion: 'gbm-ewma-1',
        },
      ],
    }
    assert.deepEqual(toContestView(c), {
      ticker: 'KXBTC15M-26NOV220915-15',
      state: 'live',
      window: { opens_at: '2026-11-22T14:00:00Z', expires_at: '2026-11-22T14:15:00Z' },
      strike_price_dollars: 97_000.5,
      settled_side: null,
      settled_price_dollars: null,
      venue: 'kalshi',
      venue_refs: { market_ticker: 'KXBTC15M-26NOV220915-15', event_ticker: 'KXBTC15M-26NOV220915' },
      signals: [
        {
          ticker: 'KXBTC15M-26NOV220915-15',
          raised_at: '2026-11-22T14:01:00.250Z',
          side: 'up',
          confidence: 57.3,
          entry_price_cents: 54,
          edge_cents: 3.3,
          outcome: 'pending',
          model_version: 'gbm-ewma-1',
        },
      ],
    })
  })

  it('sends a Polymarket contest’s slug, condition id and the token of each outcome by name', () => {
    const c: Contest = {
      ticker: 'btc-updown-15m-1790362800',
      series: 'btc-updown-15m',
      state: 'settled',
      opensAt: 1_790_362_800_000,
      expiresAt: 1_790_363_700_000,
      strikePriceDollars: null,
      settledSide: null,
      settledPriceDollars: null,
      voided: true,
      venue: {
        name: 'polymarket',
        refs: {
          slug: 'btc-updown-15m-1790362800',
          conditionId: '0xabc',
          upTokenId: '111',
          downTokenId: '222',
        },
      },
      signals: [],
    }
    const view = toContestView(c)
    assert.equal(view.venue, 'polymarket')
    assert.deepEqual(view.venue_refs, {
      slug: 'btc-updown-15m-1790362800',
      condition_id: '0xabc',
      up_token_id: '111',
      down_token_id: '222',
    })
  })

  it('sends null references, and no venue, when neither is known', () => {
    const view = toContestView({
      ticker: 'T',
      series: 'S',
      state: 'live',
      opensAt: 0,
      expiresAt: 900_000,
      strikePriceDollars: null,
      settledSide: null,
      settledPriceDollars: null,
      voided: false,
      venue: null,
      signals: [],
    })
    assert.equal(view.venue, null)
    assert.equal(view.venue_refs, null)
  })
})
