// Tests of listing pagination on a scripted client: every way the data can end, and a looping cursor.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { KalshiClient, KalshiReply } from './kalshi-client.ts'
import { closeWindowQuery, listMarkets } from './market-listing.ts'

const WINDOW = closeWindowQuery('KXBTC15M', Date.parse('2026-03-02T21:20:00Z'))

function scripted(replies: KalshiReply[]) {
  const queries: Array<Record<string, string>> = []
  const client: KalshiClient = {
    async get(_endpoint, _path, query = {}) {
      queries.push(query)
      return replies.shift() ?? { ok: true, body: { cursor: '', markets: [] } }
    },
  }
  return { client, queries }
}
const page = (cursor: unknown, ...tickers: string[]): KalshiReply => ({
  ok: true,
  body: { cursor, markets: tickers.map((ticker) => ({ ticker })) },
})

describe('listMarkets', () => {
  it('passes each cursor back with the same filters until the "" cursor', async () => {
    const s = scripted([page('c1', 'A', 'B'), page('c2', 'C'), page('', 'D')])
    const r = await listMarkets(s.client, WINDOW)
    assert.deepEqual(r, {
      ok: true,
      markets: [{ ticker: 'A' }, { ticker: 'B' }, { ticker: 'C' }, { ticker: 'D' }],
      cutShort: null,
    })
    assert.deepEqual(
      s.queries.map((q) => [q.series_ticker, q.min_close_ts, q.max_close_ts, q.status, q.cursor]),
      [
        ['KXBTC15M', '1772485500', '1772488200', undefined, undefined],
        ['KXBTC15M', '1772485500', '1772488200', undefined, 'c1'],
        ['KXBTC15M', '1772485500', '1772488200', undefined, 'c2'],
      ],
    )
  })

  it('ends on a null or missing cursor, and on an empty page', async () => {
    for (const last of [
      page(null, 'B'),
      { ok: true as const, body: { markets: [{ ticker: 'B' }] } },
      page('more'),
    ]) {
      const s = scripted([page('c1', 'A'), last, page('', 'never')])
      const r = await listMarkets(s.client, WINDOW)
      assert.ok(r.ok)
      assert.equal(s.queries.length, 2)
      assert.ok(!r.markets.some((m) => (m as { ticker: string }).ticker === 'never'))
    }
  })

  it('stops, saying why, when the venue hands back a cursor it gave before', async () => {
    const s = scripted([page('c1', 'A'), page('c2', 'B'), page('c1', 'A'), page('c2', 'B')])
    const r = await listMarkets(s.client, WINDOW)
    assert.ok(r.ok)
    assert.equal(s.queries.length, 3)
    assert.deepEqual(r.cutShort, { reason: 'the venue handed back a cursor it gave before', cursor: 'c1' })
  })

  it('fails when a page fails or is not a listing', async () => {
    const failed = scripted([page('c1', 'A'), { ok: false, status: '503', code: null, message: 'down' }])
    assert.deepEqual(await listMarkets(failed.client, WINDOW), {
      ok: false,
      status: '503',
      message: 'down',
    })
    const odd = scripted([{ ok: true, body: { cursor: '', market: [] } }])
    assert.equal((await listMarkets(odd.client, WINDOW)).ok, false)
  })
})
