import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { encodeFeedStatus, feedChecks } from './feed-status.ts'

const up = (name: string) => ({ name, state: 'ok' as const })
const down = (name: string) => ({ name, state: 'down' as const })

describe('feedChecks', () => {
  it('is ok while the venue answers and at least one spot source does', () => {
    const raw = encodeFeedStatus(up('kalshi'), [down('coinbase'), down('kraken'), up('bitstamp')])
    assert.deepEqual(feedChecks(raw), { venue: 'ok', spot: 'ok', venueDegraded: false })
  })

  it('reports the venue unreachable when its adapter says so', () => {
    assert.deepEqual(feedChecks(encodeFeedStatus(down('kalshi'), [up('coinbase')])), {
      venue: 'unreachable',
      spot: 'ok',
      venueDegraded: true,
    })
  })

  it('reports the spot unreachable only when every source is', () => {
    assert.deepEqual(feedChecks(encodeFeedStatus(up('kalshi'), [down('coinbase'), down('kraken')])), {
      venue: 'ok',
      spot: 'unreachable',
      venueDegraded: false,
    })
  })

  it('reads a scheduled pause as paused without degrading, and an unscheduled one as degrading', () => {
    const paused = (scheduledPause: boolean) =>
      feedChecks(encodeFeedStatus({ ...up('kalshi'), check: 'paused', scheduledPause }, [up('coinbase')]))
    assert.deepEqual(paused(true), { venue: 'paused', spot: 'ok', venueDegraded: false })
    assert.deepEqual(paused(false), { venue: 'paused', spot: 'ok', venueDegraded: true })
  })

  it('degrades on malformed quotes and on an outage outside the schedule', () => {
    const check = (c: 'malformed' | 'unreachable') =>
      feedChecks(encodeFeedStatus({ ...up('kalshi'), check: c }, [up('coinbase')]))
    assert.deepEqual(check('malformed'), { venue: 'malformed', spot: 'ok', venueDegraded: true })
    assert.deepEqual(check('unreachable'), { venue: 'unreachable', spot: 'ok', venueDegraded: true })
  })

  it('checks a missing or unreadable report as ok (the engine check covers a silent engine)', () => {
    assert.deepEqual(feedChecks(null), { venue: 'ok', spot: 'ok', venueDegraded: false })
    assert.deepEqual(feedChecks('{not json'), { venue: 'ok', spot: 'ok', venueDegraded: false })
    assert.deepEqual(feedChecks('{"venue":{}}'), { venue: 'ok', spot: 'ok', venueDegraded: false })
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
