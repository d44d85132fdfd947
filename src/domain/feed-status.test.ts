import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { encodeFeedStatus, feedChecks } from './feed-status.ts'

const up = (name: string) => ({ name, state: 'ok' as const })
const down = (name: string) => ({ name, state: 'down' as const })

describe('feedChecks', () => {
  it('is ok while the venue answers and at least one spot source does', () => {
    const raw = encodeFeedStatus(up('kalshi'), [down('coinbase'), down('kraken'), up('bitstamp')])
    assert.deepEqual(feedChecks(raw), {
      venue: 'ok',
      venues: null,
      spot: 'ok',
      venueDegraded: false,
      index: null,
    })
  })

  it('reports the venue unreachable when its adapter says so', () => {
    assert.deepEqual(feedChecks(encodeFeedStatus(down('kalshi'), [up('coinbase')])), {
      venue: 'unreachable',
      venues: null,
      spot: 'ok',
      venueDegraded: true,
      index: null,
    })
  })

  it('reports the spot unreachable only when every source is', () => {
    assert.deepEqual(feedChecks(encodeFeedStatus(up('kalshi'), [down('coinbase'), down('kraken')])), {
      venue: 'ok',
      venues: null,
      spot: 'unreachable',
      venueDegraded: false,
      index: null,
    })
  })

  it('reads a scheduled pause as paused without degrading, and an unscheduled one as degrading', () => {
    const paused = (scheduledPause: boolean) =>
      feedChecks(encodeFeedStatus({ ...up('kalshi'), check: 'paused', scheduledPause }, [up('coinbase')]))
    assert.deepEqual(paused(true), {
      venue: 'paused',
      venues: null,
      spot: 'ok',
      venueDegraded: false,
      index: null,
    })
    assert.deepEqual(paused(false), {
      venue: 'paused',
      venues: null,
      spot: 'ok',
      venueDegraded: true,
      index: null,
    })
  })

  it('degrades on malformed quotes and on an outage outside the schedule', () => {
    const check = (c: 'malformed' | 'unreachable') =>
      feedChecks(encodeFeedStatus({ ...up('kalshi'), check: c }, [up('coinbase')]))
    assert.deepEqual(check('malformed'), {
      venue: 'malformed',
      venues: null,
      spot: 'ok',
      venueDegraded: true,
      index: null,
    })
    assert.deepEqual(check('unreachable'), {
      venue: 'unreachable',
      venues: null,
      spot: 'ok',
      venueDegraded: true,
      index: null,
    })
  })

  it('checks a missing or unreadable report as ok (the engine check covers a silent engine)', () => {
    assert.deepEqual(feedChecks(null), {
      venue: 'ok',
      venues: null,
      spot: 'ok',
      venueDegraded: false,
      index: null,
    })
    assert.deepEqual(feedChecks('{not json'), {
      venue: 'ok',
      venues: null,
      spot: 'ok',
      venueDegraded: false,
      index: null,
    })
    assert.deepEqual(feedChecks('{"venue":{}}'), {
      venue: 'ok',
      venues: null,
      spot: 'ok',
      venueDegraded: false,
      index: null,
    })
  })

  describe('with several venues (decisions §14)', () => {
    const two = (kalshi: object, polymarket: object) =>
      feedChecks(
        encodeFeedStatus(
          [
            { ...up('kalshi'), ...kalshi },
            { ...up('polymarket'), ...polymarket },
          ],
          [up('coinbase')],
        ),
      )

    it('names each venue with its own check, ok included', () => {
      assert.deepEqual(two({}, {}), {
        venue: 'ok',
        venues: { kalshi: 'ok', polymarket: 'ok' },
        spot: 'ok',
        venueDegraded: false,
        index: null,
      })
    })

    it('keeps health ok through one venue’s scheduled pause, the other trading', () => {
      assert.deepEqual(two({ check: 'paused', scheduledPause: true }, {}), {
        venue: 'paused',
        venues: { kalshi: 'paused', polymarket: 'ok' },
        spot: 'ok',
        venueDegraded: false,
        index: null,
      })
    })

    it('degrades when either venue degrades, and puts the fault before a scheduled pause in `venue`', () => {
      assert.deepEqual(two({ check: 'paused', scheduledPause: true }, { state: 'down' }), {
        venue: 'unreachable',
        venues: { kalshi: 'paused', polymarket: 'unreachable' },
        spot: 'ok',
        venueDegraded: true,
        index: null,
      })
      assert.deepEqual(two({ check: 'malformed' }, {}), {
        venue: 'malformed',
        venues: { kalshi: 'malformed', polymarket: 'ok' },
        spot: 'ok',
        venueDegraded: true,
        index: null,
      })
      // an unscheduled pause degrades, and so outranks a scheduled one
      assert.equal(two({ check: 'paused', scheduledPause: true }, { check: 'paused' }).venueDegraded, true)
    })

    it('gives an api that reads `venue` alone the venue that says most', () => {
      const raw = encodeFeedStatus([up('kalshi'), { ...up('polymarket'), check: 'malformed' }], [])
      assert.deepEqual(JSON.parse(raw).venue, { name: 'polymarket', state: 'ok', check: 'malformed' })
      const venueOnly = JSON.stringify({ venue: JSON.parse(raw).venue, spot: [] })
      assert.equal(feedChecks(venueOnly).venue, 'malformed')
    })
  })

  describe('the settlement index', () => {
    it('is absent when the engine follows none, and reports its verdict when it does', () => {
      const kraken = { name: 'kraken', state: 'ok' as const }
      assert.equal(feedChecks(encodeFeedStatus(up('kalshi'), [kraken])).index, null)
      for (const index of ['ok', 'stale', 'refused'] as const) {
        const raw = encodeFeedStatus(up('kalshi'), [kraken, { name: 'brti', state: 'down', index }])
        assert.equal(feedChecks(raw).index, index)
      }
    })

    it('keeps the spot reachable on the index alone, and reads an unknown verdict as stale', () => {
      const raw = JSON.stringify({
        venue: up('kalshi'),
        spot: [
          { name: 'kraken', state: 'down' },
          { name: 'brti', state: 'ok', index: 'flowing?' },
        ],
      })
      assert.deepEqual(
        { spot: feedChecks(raw).spot, index: feedChecks(raw).index },
        { spot: 'ok', index: 'stale' },
      )
    })
  })

  it('carries only names and states, never prices or times', () => {
    const status = {
      ...up('kalshi'),
      lastOkAt: 1,
      midDollars: 2,
    }
    assert.equal(encodeFeedStatus(status, []), '{"venue":{"name":"kalshi","state":"ok"},"spot":[]}')
  })
})
