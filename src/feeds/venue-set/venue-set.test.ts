import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { SourceStatus, Venue, VenueMarket } from '../../ports/venue.ts'
import { createVenueSet } from './venue-set.ts'

// the same quarter hour on both venues (venue facts §3.1.2): 2026-09-25 19:00–19:15Z
const OPENS = Date.parse('2026-09-25T19:00:00Z')
const EXPIRES = OPENS + 900_000
const KALSHI_TICKER = 'KXBTC15M-26SEP251515-15'
const POLY_TICKER = 'btc-updown-15m-1790362800'

/** A venue that lists one market per series it is given and remembers every call it answered. */
function testVenue(name: string, tickers: Record<string, string>, opts: { pausedAt?: number } = {}) {
  const calls: string[] = []
  let status: SourceStatus = { name, state: 'ok', lastOkAt: 1 }
  let started = 0
  let closed = 0
  const marketOf = (series: string, ticker: string): VenueMarket => ({
    ticker,
    series,
    opensAt: OPENS,
    expiresAt: EXPIRES,
    strikePriceDollars: null,
    phase: 'trading',
    venue: { name: 'kalshi', refs: null },
  })
  const seriesOf = (ticker: string) => Object.keys(tickers).find((s) => tickers[s] === ticker)
  const venue: Venue = {
    name,
    supportsHistory: false,
    async marketAt(series) {
      calls.push(`marketAt ${series}`)
      const ticker = tickers[series]
      return ticker ? marketOf(series, ticker) : null
    },
    async marketOpenedAt(series, opensAt) {
      calls.push(`marketOpenedAt ${series} ${opensAt}`)
      const ticker = tickers[series]
      // an earlier contest, long closed: marketAt no longer lists it, only this call describes it
      return ticker
        ? { ...marketOf(series, `${ticker}-earlier`), opensAt, strikePriceDollars: 68_420, phase: 'closed' }
        : null
    },
    async market(ticker) {
      calls.push(`market ${ticker}`)
      const series = seriesOf(ticker)
      return series ? marketOf(series, ticker) : null
    },
    async quote(ticker) {
      calls.push(`quote ${ticker}`)
      return { upAskCents: name === 'kalshi' ? 54 : 55, downAskCents: 47 }
    },
    async result(ticker) {
      calls.push(`result ${ticker}`)
      return { kind: 'settled', side: 'up', priceDollars: 100_000 }
    },
    tradingPaused: (at) => at === opts.pausedAt,
    status: () => status,
    statuses: () => [status],
    async start() {
      started++
    },
    async close() {
      closed++
    },
  }
  return {
    venue,
    calls,
    setStatus: (s: Partial<SourceStatus>) => {
      status = { ...status, ...s }
    },
    counts: () => ({ started, closed }),
  }
}

describe('createVenueSet', () => {
  const world = () => {
    const kalshi = testVenue('kalshi', { KXBTC15M: KALSHI_TICKER }, { pausedAt: OPENS + 60_000 })
    const polymarket = testVenue('polymarket', { 'btc-updown-15m': POLY_TICKER })
    const set = createVenueSet([
      { venue: kalshi.venue, series: ['KXBTC15M'] },
      { venue: polymarket.venue, series: ['btc-updown-15m'] },
    ])
    return { kalshi, polymarket, set }
  }

  it('asks each series of the venue that follows it', async () => {
    const { kalshi, polymarket, set } = world()
    assert.equal((await set.marketAt('KXBTC15M', OPENS))?.ticker, KALSHI_TICKER)
    assert.equal((await set.marketAt('btc-updown-15m', OPENS))?.ticker, POLY_TICKER)
    assert.equal(await set.marketAt('KXETH15M', OPENS), null)
    assert.deepEqual(kalshi.calls, ['marketAt KXBTC15M'])
    assert.deepEqual(polymarket.calls, ['marketAt btc-updown-15m'])
  })

  it('passes on an earlier contest of a series to the venue that follows it (the basis strikes)', async () => {
    const { kalshi, polymarket, set } = world()
    const earlier = OPENS - 900_000
    const market = await set.marketOpenedAt('KXBTC15M', earlier)
    assert.equal(market?.strikePriceDollars, 68_420)
    assert.equal(market?.opensAt, earlier)
    assert.equal(await set.marketOpenedAt('KXETH15M', earlier), null)
    assert.deepEqual(kalshi.calls, [`marketOpenedAt KXBTC15M ${earlier}`])
    assert.deepEqual(polymarket.calls, [])
  })

  it('routes each ticker to the venue that issued it, with no memory of earlier calls', async () => {
    const { kalshi, polymarket, set } = world()
    // straight after a start: the engine advances a stored contest before listing anything
    assert.equal((await set.market(POLY_TICKER, OPENS))?.series, 'btc-updown-15m')
    assert.deepEqual(await set.quote(KALSHI_TICKER, OPENS), { upAskCents: 54, downAskCents: 47 })
    assert.deepEqual(await set.quote(POLY_TICKER, OPENS), { upAskCents: 55, downAskCents: 47 })
    assert.ok(await set.result(KALSHI_TICKER, EXPIRES))
    assert.deepEqual(kalshi.calls, [`quote ${KALSHI_TICKER}`, `result ${KALSHI_TICKER}`])
    assert.deepEqual(polymarket.calls, [`market ${POLY_TICKER}`, `quote ${POLY_TICKER}`])
  })

  it('answers null for a ticker no venue issued, and for a series name that is only a stem', async () => {
    const { kalshi, polymarket, set } = world()
    assert.equal(await set.market('KXETH15M-26SEP251515-15', OPENS), null)
    assert.equal(await set.quote('btc-updown-5m-1790362800', OPENS), null)
    assert.equal(await set.result('KXBTC15MX-26SEP251515-15', OPENS), null)
    assert.deepEqual([...kalshi.calls, ...polymarket.calls], [])
  })

  it('gives a ticker to the longest series it starts with', async () => {
    const short = testVenue('short', { KX: 'KX-1' })
    const long = testVenue('long', { 'KX-BTC': 'KX-BTC-1' })
    const set = createVenueSet([
      { venue: short.venue, series: ['KX'] },
      { venue: long.venue, series: ['KX-BTC'] },
    ])
    await set.quote('KX-BTC-1', OPENS)
    await set.quote('KX-1', OPENS)
    assert.deepEqual(long.calls, ['quote KX-BTC-1'])
    assert.deepEqual(short.calls, ['quote KX-1'])
  })

  it('pauses only the series of the venue whose exchange paused', () => {
    const { set } = world()
    const paused = OPENS + 60_000
    assert.equal(set.tradingPaused(paused, 'KXBTC15M'), true)
    assert.equal(set.tradingPaused(paused, 'btc-updown-15m'), false)
    assert.equal(set.tradingPaused(OPENS, 'KXBTC15M'), false)
    assert.equal(set.tradingPaused(paused, 'unknown'), false)
  })

  it('reports each venue’s status, and one combined line that is down when either is', () => {
    const { kalshi, set } = world()
    assert.deepEqual(
      set.statuses().map((s) => [s.name, s.state]),
      [
        ['kalshi', 'ok'],
        ['polymarket', 'ok'],
      ],
    )
    assert.equal(set.status().name, 'kalshi+polymarket')
    assert.equal(set.status().state, 'ok')
    kalshi.setStatus({ state: 'down', check: 'unreachable', failure: 'HTTP 451 unavailable', lastOkAt: null })
    assert.deepEqual(
      set.statuses().map((s) => [s.name, s.state]),
      [
        ['kalshi', 'down'],
        ['polymarket', 'ok'],
      ],
    )
    assert.equal(set.status().state, 'down')
    assert.equal(set.status().failure, 'HTTP 451 unavailable')
    assert.equal(set.status().lastOkAt, null)
  })

  it('starts and closes every venue, closing all even when one fails to', async () => {
    const { kalshi, polymarket, set } = world()
    await set.start()
    assert.deepEqual([kalshi.counts().started, polymarket.counts().started], [1, 1])
    kalshi.venue.close = async () => {
      throw new Error('socket stuck')
    }
    await assert.rejects(set.close(), /socket stuck/)
    assert.equal(polymarket.counts().closed, 1)
  })

  it('refuses a series on two venues', () => {
    const a = testVenue('a', {})
    const b = testVenue('b', {})
    assert.throws(
      () =>
        createVenueSet([
          { venue: a.venue, series: ['KXBTC15M'] },
          { venue: b.venue, series: ['KXBTC15M'] },
        ]),
      /KXBTC15M is on two venues/,
    )
  })

  it('a set of one venue reports that venue’s own status', () => {
    const one = testVenue('kalshi', {})
    const set = createVenueSet([{ venue: one.venue, series: ['KXBTC15M'] }])
    assert.deepEqual(set.statuses(), [one.venue.status()])
  })
})
