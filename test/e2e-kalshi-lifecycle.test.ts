// The real CLI on VENUE=kalshi against loopback fixtures of the venue and the three exchanges, on the
// wall clock: a whole contest lifecycle per series, seen through the public API and the stream.
// The fixture markets opened 12 minutes before the test, so the last three reading minutes, the close,
// the results and the next market all happen within about three minutes.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type ExchangeFixtures, startExchangeFixtures } from './fixtures/exchange-fixtures.ts'
import { type KalshiFixture, makeMarket, makeSeries, startKalshiFixture } from './fixtures/kalshi-fixture.ts'
import { keepFresh, setWarmUpHour } from './support/exchange-motion.ts'
import { exchangeEnv } from './support/feed-env.ts'
import { keyedGet } from './support/keyed-get.ts'
import { type ServiceProcess, startProcess, tempDir } from './support/service-process.ts'
import { openStream, type SseClient } from './support/sse-client.ts'
import { untilWallClock, waitFor } from './support/wait.ts'

const MINUTE = 60_000
const BTC = 'KXBTC15M'
// three series of the same kind (the fixture describes each as KXBTC15M is described), followed at once
const BTC_B = 'KXBTC15MB'
const BTC_C = 'KXBTC15MC'

/**
 * The test's timeline: the first markets are in minute 12 when the test starts, and minute 13 begins
 * this long after, enough to start the service and set the strike inside minute 12.
 */
const LEAD_MS = 25_000
const minute13 = Math.ceil((Date.now() + LEAD_MS) / 1000) * 1000
const opensAt = minute13 - 13 * MINUTE
const closesAt = opensAt + 15 * MINUTE
const nextClosesAt = closesAt + 15 * MINUTE

// biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
type Json = Record<string, any>

describe('contest-signals serve with VENUE=kalshi (wall clock, loopback fixtures)', () => {
  const tmp = tempDir()
  let kalshi: KalshiFixture
  let exchanges: ExchangeFixtures
  let service: ServiceProcess
  let url: string
  let key: string
  let stream: SseClient
  let stopTicking = (): void => {}
  const tickers = { btc: '', btcB: '', btcC: '', btcNext: '' }

  const get = keyedGet(() => ({ url, key }))
  const contest = async (ticker: string): Promise<Json> => (await get(`/v1/contests/${ticker}`)).body
  const signalsAt = (ticker: string, n: number, timeoutMs: number) =>
    waitFor(
      `${n} signal(s) on ${ticker}`,
      async () => {
        const c = await contest(ticker)
        return c.signals.length >= n ? c : undefined
      },
      timeoutMs,
      250,
    )

  before(async () => {
    kalshi = await startKalshiFixture({ pageSize: 2 })
    exchanges = await startExchangeFixtures({ bid: 68_433.1, ask: 68_433.2 })
    setWarmUpHour(exchanges, 68_433)
    stopTicking = keepFresh(exchanges, {
      coinbase: [68_433.1, 68_433.2],
      kraken: [68_433.4, 68_433.6],
      bitstamp: [68_432.9, 68_433.3],
    })

    // BTC opens without a strike (set later), with a sub-cent YES ask: 1 − 0.9650 = 0.035 → 3.5¢
    const btc = makeMarket({ series: BTC, openTime: opensAt, closeTime: closesAt, status: 'active' })
    const btcB = makeMarket({
      series: BTC_B,
      openTime: opensAt,
      closeTime: closesAt,
      status: 'active',
      floorStrike: 68_000,
    })
    const btcC = makeMarket({
      series: BTC_C,
      openTime: opensAt,
      closeTime: closesAt,
      status: 'active',
      floorStrike: 69_000,
    })
    const btcNext = makeMarket({
      series: BTC,
      openTime: closesAt,
      closeTime: nextClosesAt,
      status: 'initialized',
    })
    for (const series of [BTC_B, BTC_C]) kalshi.addSeries(makeSeries({ ticker: series }))
    for (const m of [btc, btcB, btcC, btcNext]) kalshi.addMarket(m)
    Object.assign(tickers, { btc: btc.ticker, btcB: btcB.ticker, btcC: btcC.ticker, btcNext: btcNext.ticker })
    kalshi.setOrderbook(btc.ticker, {
      yes: [
        ['0.0050', '1500.00'],
        ['0.4200', '13.00'],
      ],
      no: [
        ['0.0010', '9000.00'],
        ['0.9650', '2.00'],
      ],
    })
    // BTC_B: nobody bids YES, so NO has no ask and the reading must be on the up side (YES ask 0.55)
    kalshi.setOrderbook(btcB.ticker, { yes: null, no: [['0.4500', '1.00']] })
    kalshi.setOrderbook(btcC.ticker, { yes: [['0.6000', '5.00']], no: [['0.3800', '5.00']] })
    // a market the adapter must skip without disturbing the others
    kalshi.injectMalformed({ ticker: `${BTC}-BROKEN`, status: 'teleported', open_time: 'soon' })

    service = startProcess(['serve'], {
      DATABASE_URL: `sqlite:${path.join(tmp.dir, 'cs.db')}`,
      PORT: '0',
      LOG_LEVEL: 'info',
      VENUE: 'kalshi',
      // the first model: its readings far from the strike are the ones this lifecycle asserts
      MODEL: 'gbm-ewma-1',
      SERIES: `${BTC},${BTC_B},${BTC_C}`,
      KALSHI_BASE_URL: kalshi.baseUrl,
      KALSHI_POLL_S: '1',
      // the test reads the API far more often than an integrator should; the limiter has its own tests
      RATE_LIMIT_BURST: '1000',
      RATE_LIMIT_PER_SEC: '100',
      ...exchangeEnv(exchanges),
    })
    url = await service.url
    key = await service.bootstrapKey
    stream = await openStream(`${url}/v1/stream/contests?series=${BTC}`, { key })
  })

  after(async () => {
    stopTicking()
    stream?.close()
    await service?.kill()
    await kalshi?.close()
    await exchanges?.close()
    tmp.remove()
  })

  it('opens each live market as the venue gives it, the strike still unknown', async () => {
    const active = await waitFor('the BTC contest', async () => {
      const res = await get(`/v1/contests/active?series=${BTC}`)
      return res.status === 200 ? res.body : undefined
    })
    assert.equal(active.ticker, tickers.btc)
    assert.equal(active.state, 'live')
    assert.deepEqual(active.window, {
      opens_at: new Date(opensAt).toISOString().replace('.000Z', 'Z'),
      expires_at: new Date(closesAt).toISOString().replace('.000Z', 'Z'),
    })
    assert.equal(active.strike_price_dollars, null)
    assert.deepEqual(active.signals, [], 'no reading without a strike')
    for (const t of [tickers.btcB, tickers.btcC]) {
      await waitFor(`${t} live`, async () => ((await contest(t)).state === 'live' ? true : undefined))
    }
    assert.equal((await get(`/v1/contests/${BTC}-BROKEN`)).status, 404)
  })

  it('picks up the strike when the venue sets it, skips the minute already too late, and reads the next at the book’s asks', async () => {
    assert.ok(Date.now() < minute13 - 3000, 'the strike must be set inside minute 12')
    kalshi.updateMarket(tickers.btc, { floor_strike: 68_000, yes_sub_title: 'Target Price: $68,000.00' })
    // minute 12 began long before the strike came: past READING_MAX_LATE_S it stays unread (decisions §11)
    const btc = await signalsAt(tickers.btc, 1, minute13 - Date.now() + 15_000)
    assert.equal(btc.strike_price_dollars, 68_000)
    const [s13] = btc.signals
    const raisedAt = Date.parse(s13.raised_at)
    assert.ok(raisedAt >= minute13 && raisedAt < minute13 + 10_000, 'minute 13, at its boundary')
    // far above the strike, up is the larger edge at a 3.5¢ YES ask
    assert.equal(s13.side, 'up')
    assert.equal(s13.entry_price_cents, 3.5)
    assert.equal(s13.edge_cents, Math.round((s13.confidence - 3.5) * 100) / 100)
    assert.equal(s13.outcome, 'pending')
    assert.equal(s13.model_version, 'gbm-ewma-1')

    const btcB = await signalsAt(tickers.btcB, 1, 15_000)
    assert.equal(btcB.signals[0].side, 'up', 'NO has no ask: the reading cannot be on the down side')
    assert.equal(btcB.signals[0].entry_price_cents, 55)
    const btcC = await signalsAt(tickers.btcC, 1, 15_000)
    const btcCSignal = btcC.signals[0]
    assert.equal(btcCSignal.entry_price_cents, btcCSignal.side === 'up' ? 62 : 40)
  })

  it('reads minute 14 at its whole minute, from the book as it stands then', async () => {
    kalshi.setOrderbook(tickers.btc, { yes: [['0.9200', '3.00']], no: [['0.0050', '4.00']] })
    const at14 = await signalsAt(tickers.btc, 2, minute13 + MINUTE - Date.now() + 15_000)
    const s14 = at14.signals[1]
    assert.ok(Date.parse(s14.raised_at) >= minute13 + MINUTE)
    assert.equal(s14.entry_price_cents, s14.side === 'up' ? 99.5 : 8)
    assert.equal(at14.signals.length, 2, 'one reading per minute')
  })

  it('expires at the close and raises nothing after it', async () => {
    await untilWallClock(closesAt, 'the contest to close')
    for (const t of [tickers.btc, tickers.btcB, tickers.btcC]) kalshi.updateMarket(t, { status: 'closed' })
    kalshi.updateMarket(tickers.btcNext, { status: 'active', floor_strike: 68_100.5 })
    for (const t of [tickers.btc, tickers.btcB, tickers.btcC]) {
      const c = await waitFor(`${t} expired`, async () => {
        const body = await contest(t)
        return body.state === 'expired' ? body : undefined
      })
      assert.equal(c.settled_side, null)
      assert.ok(c.signals.every((s: Json) => s.outcome === 'pending'))
    }
    assert.equal((await contest(tickers.btc)).signals.length, 2)
    // the next market opens at the close, before any result of the last one is known
    await waitFor('the next BTC contest open', async () => {
      const res = await get(`/v1/contests/active?series=${BTC}`)
      return res.status === 200 && res.body.ticker === tickers.btcNext ? true : undefined
    })
  })

  it('settles on the venue’s final result: yes → up, no → down, a void only on its word; and grades', async () => {
    // BTC jumps to finalized; BTC_B shows determined first (provisional: nothing settles on it); BTC_C
    // is finalized with its result still empty (waited on: missing data resolves No, never void)
    kalshi.updateMarket(tickers.btc, {
      status: 'finalized',
      result: 'yes',
      expiration_value: '68,433.15',
      settlement_value_dollars: '1.0000',
    })
    kalshi.updateMarket(tickers.btcB, { status: 'determined', result: 'no', expiration_value: '67,999.99' })
    kalshi.updateMarket(tickers.btcC, { status: 'finalized', result: '', expiration_value: '' })
    const settled = async (t: string) =>
      waitFor(`${t} settled`, async () => {
        const body = await contest(t)
        return body.state === 'settled' ? body : undefined
      })
    await settled(tickers.btc)
    // a few polls later, neither the determined nor the half-written record has settled anything
    const polled = kalshi.requests.length
    await waitFor('three more polls', () => (kalshi.requests.length >= polled + 6 ? true : undefined))
    assert.equal((await contest(tickers.btcB)).state, 'expired')
    assert.equal((await contest(tickers.btcC)).state, 'expired')
    kalshi.updateMarket(tickers.btcB, { status: 'finalized', settlement_value_dollars: '0.0000' })
    // the venue's own word for a void: a final result that is neither yes nor no
    kalshi.updateMarket(tickers.btcC, { result: 'scalar', settlement_value_dollars: '0.5000' })

    const btc = await settled(tickers.btc)
    assert.equal(btc.settled_side, 'up')
    assert.equal(btc.settled_price_dollars, 68_433.15)
    for (const s of btc.signals) assert.equal(s.outcome, s.side === 'up' ? 'win' : 'loss')

    const btcB = await settled(tickers.btcB)
    assert.equal(btcB.settled_side, 'down')
    assert.equal(btcB.settled_price_dollars, 67_999.99)
    for (const s of btcB.signals) assert.equal(s.outcome, 'loss', 'an up reading on a down result')

    const btcC = await settled(tickers.btcC)
    assert.equal(btcC.settled_side, null)
    assert.equal(btcC.settled_price_dollars, null)
    assert.ok(btcC.signals.length >= 1)
    for (const s of btcC.signals) assert.equal(s.outcome, 'void')

    const history = await get(`/v1/contests?series=${BTC}`)
    assert.equal(history.status, 200)
    assert.deepEqual(
      history.body.contests.map((c: Json) => c.ticker),
      [tickers.btc],
    )
  })

  it('opens the next market, and the stream told the whole story in order', async () => {
    const next = await waitFor('the next BTC contest', async () => {
      const res = await get(`/v1/contests/active?series=${BTC}`)
      return res.status === 200 && res.body.ticker === tickers.btcNext ? res.body : undefined
    })
    assert.equal(next.strike_price_dollars, 68_100.5)

    await waitFor('the stream to see the next opening', () =>
      stream.events.filter((e) => e.event === 'contest.opened').length >= 2 ? true : undefined,
    )
    const story = stream.events.map((e) => ({ event: e.event, data: JSON.parse(e.data) as Json }))
    // the next market opens at the close, before the previous one's result is known
    assert.deepEqual(
      story.map((e) => e.event),
      ['contest.opened', 'signal.emitted', 'signal.emitted', 'contest.opened', 'contest.settled'],
    )
    const [opened, first, second, nextOpened, settled] = story
    assert.equal(opened!.data.ticker, tickers.btc)
    assert.equal(opened!.data.strike_price_dollars, null)
    assert.equal(first!.data.contest.strike_price_dollars, 68_000)
    assert.equal(first!.data.signal.entry_price_cents, 3.5)
    assert.equal(second!.data.contest.signals.length, 2)
    assert.equal(nextOpened!.data.ticker, tickers.btcNext)
    assert.equal(nextOpened!.data.state, 'live')
    assert.equal(settled!.data.ticker, tickers.btc)
    assert.equal(settled!.data.state, 'settled')
    assert.equal(settled!.data.settled_side, 'up')
  })

  it('polled the venue at its pace and logged the malformed market with its field', async () => {
    const log = service.stdout()
    assert.match(log, /KXBTC15M-BROKEN/)
    assert.match(log, /"field":"(status|open_time)"/)
    const listings = kalshi.requests.filter((r) => r.path.endsWith('/markets'))
    const seconds = (listings.at(-1)!.at - listings[0]!.at) / 1000
    // per 1-s poll: the exchange status and one close-window listing (pages of 2) per series, paced
    // well under the venue's limit
    assert.ok(kalshi.requests.length / seconds < 6, `${kalshi.requests.length} requests in ${seconds} s`)
  })
})
