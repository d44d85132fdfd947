// The plan `history import` makes of its options.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { planImport, warmUpMinutes } from './history-import-command.ts'

const DAY = 86_400_000
const NOW = Date.UTC(2026, 5, 20, 9, 30)
const args = {
  venue: 'kalshi',
  series: undefined,
  since: '2026-06-10T05:00:00Z',
  until: '2026-06-11T13:00:00Z',
  out: 'tapes',
  sources: undefined,
}

describe('planImport', () => {
  it('rounds the period out to whole UTC days and fills the defaults', () => {
    const plan = planImport(args, NOW)
    assert.ok(typeof plan !== 'string')
    assert.equal(plan.series, 'KXBTC15M')
    assert.deepEqual(plan.sources, ['coinbase', 'bitstamp'])
    assert.deepEqual(plan.days, [Date.UTC(2026, 5, 10), Date.UTC(2026, 5, 11)])
    const poly = planImport({ ...args, venue: 'polymarket', sources: 'kraken,coinbase,kraken' }, NOW)
    assert.ok(typeof poly !== 'string')
    assert.equal(poly.series, 'btc-updown-15m')
    assert.deepEqual(poly.sources, ['kraken', 'coinbase'])
  })

  it('refuses what it cannot do, in one line', () => {
    assert.match(
      String(planImport({ ...args, venue: 'binance' }, NOW)),
      /--venue must be kalshi or polymarket/,
    )
    assert.match(String(planImport({ ...args, sources: 'coinbase,ftx' }, NOW)), /unknown spot source "ftx"/)
    assert.match(String(planImport({ ...args, since: 'yesterday' }, NOW)), /--since "yesterday" is not/)
    assert.match(String(planImport({ ...args, out: undefined }, NOW)), /--out DIR is required/)
    assert.match(
      String(planImport({ ...args, venue: 'kalshi', series: 'btc-updown-15m' }, NOW)),
      /--series btc-updown-15m is a polymarket series, not a kalshi one/,
    )
    assert.match(
      String(planImport({ ...args, venue: 'polymarket', series: 'KXBTC15M' }, NOW)),
      /--series KXBTC15M is a kalshi series, not a polymarket one/,
    )
    // a series no venue has would be asked for, found empty, and its days marked done
    for (const venue of ['kalshi', 'polymarket'])
      assert.match(
        String(planImport({ ...args, venue, series: 'ETH' }, NOW)),
        /--series ETH belongs to no known venue \(KX… is Kalshi, btc-updown-… Polymarket\)/,
      )
    assert.match(
      String(planImport({ ...args, until: '2026-06-20T01:00:00Z' }, NOW)),
      /2026-06-20, a day not over yet/,
    )
    assert.equal(typeof planImport({ ...args, until: '2026-06-20' }, NOW), 'object')
  })

  it('takes a day only once its last contests have settled: an hour after it ends, not the instant it ends', () => {
    // the 23:45 contest closes at midnight and settles seconds to minutes later: a run at 00:30 would
    // write the day without it, and a written day is never fetched again
    const justAfter = Date.UTC(2026, 5, 20, 0, 30)
    assert.match(
      String(planImport({ ...args, until: '2026-06-20' }, justAfter)),
      /2026-06-19, a day not over yet/,
    )
    assert.equal(typeof planImport({ ...args, until: '2026-06-20' }, Date.UTC(2026, 5, 20, 1)), 'object')
  })

  it('the warm-up covers at least the v2 model look-back of a day and 5 minutes', () => {
    assert.ok(warmUpMinutes() >= DAY / 60_000 + 5)
  })
})
