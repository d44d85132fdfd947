// Several series on their venues at once (decisions §14), through the real CLI on the wall clock:
// the same quarter hour listed once per series, each streamed on its own stream and settled on its
// own, health and metrics per venue, `venue check` for every series, and the config refusing a series
// that no configured venue follows.
//
// Until the Polymarket adapter is merged this proves the plumbing with the one real venue there is:
// VENUE=kalshi with two Kalshi-style series of the loopback fixture, which run through the same
// venue set (src/feeds/venue-set/) that routes KXBTC15M to Kalshi and btc-updown-15m to Polymarket.
// With the adapter in, SECOND becomes `btc-updown-15m` on a Polymarket fixture, VENUE `kalshi,polymarket`,
// and the metrics and health assertions name both venues.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type ExchangeFixtures, startExchangeFixtures } from './fixtures/exchange-fixtures.ts'
import { type KalshiFixture, makeMarket, makeSeries, startKalshiFixture } from './fixtures/kalshi-fixture.ts'
import { deadPort, exchangeEnv } from './support/feed-env.ts'
import {
  bootstrapKeyFrom,
  runCli,
  type ServiceProcess,
  startProcess,
  tempDir,
} from './support/service-process.ts'
import { openStream, type SseClient } from './support/sse-client.ts'
import { waitFor } from './support/wait.ts'

const MINUTE = 60_000
const FIRST = 'KXBTC15M'
const SECOND = 'KXBTC15MB'

/** The markets are in minute 12 when the test starts; minute 13 begins this long after. */
const LEAD_MS = 20_000
const minute13 = Math.ceil((Date.now() + LEAD_MS) / 1000) * 1000
const opensAt = minute13 - 13 * MINUTE
const closesAt = opensAt + 15 * MINUTE

// biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
type Json = Record<string, any>

/** One sample of the exposition text; labels not named are ignored. Undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!m || m[1] !== name) continue
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]))
    if (Object.entries(labels).every(([k, v]) => got[k] === v))
      return m[3] === '+Inf' ? Infinity : Number(m[3])
  }
  return undefined
}

describe('two series on their venues at once (VENUE list, wall clock, loopback fixtures)', () => {
  const tmp = tempDir()
  let kalshi: KalshiFixture
  let exchanges: ExchangeFixtures
  let service: ServiceProcess
  let url: string
  let metricsUrl: string
  let key: string
  const streams: Record<string, SseClient> = {}
  let ticking: NodeJS.Timeout
  const tickers: Record<string, string> = {}
  let env: Record<string, string>

  const get = async (p: string): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${url}${p}`, { headers: { Authorization: `Bearer ${key}` } })
    return { status: res.status, body: (await res.json()) as Json }
  }
  const contest = async (ticker: string): Promise<Json> => (await get(`/v1/contests/${ticker}`)).body
  const inState = (ticker: string, state: string) =>
    waitFor(`${ticker} ${state}`, async () => {
      const body = await contest(ticker)
      return body.state === state ? body : undefined
    })

  before(async () => {
    kalshi = await startKalshiFixture({ pageSize: 2 })
    exchanges = await startExchangeFixtures({ bid: 68_433.1, ask: 68_433.2 })
    // an hour of one-minute candles, so the model has its minimum history from the start (decisions §11)
    const minuteNow = Math.floor(Date.now() / MINUTE) * MINUTE
    const hour = Array.from({ length: 60 }, (_, i) => ({
      time: (minuteNow - (60 - i) * MINUTE) / 1000,
      close: 68_433 + 3 * Math.sin(i),
    }))
    for (const ex of [exchanges.coinbase, exchanges.kraken, exchanges.bitstamp]) ex.setCandles(hour)
    let drift = 0
    ticking = setInterval(() => {
      drift = (drift + 0.7) % 5
      exchanges.coinbase.setPrice(68_433.1 + drift, 68_433.2 + drift)
      exchanges.kraken.setPrice(68_433.4 + drift, 68_433.6 + drift)
      exchanges.bitstamp.setPrice(68_432.9 + drift, 68_433.3 + drift)
    }, 1000)

    kalshi.addSeries(makeSeries({ ticker: SECOND }))
    // the same quarter hour on both series; the second has no strike yet when it opens
    for (const [series, floorStrike] of [
      [FIRST, 68_000],
      [SECOND, undefined],
    ] as const) {
      const market = makeMarket({
        series,
        openTime: opensAt,
        closeTime: closesAt,
        status: 'active',
        ...(floorStrike === undefined ? {} : { floorStrike }),
      })
      kalshi.addMarket(market)
      tickers[series] = market.ticker
      kalshi.setOrderbook(market.ticker, { yes: [['0.4200', '13.00']], no: [['0.5500', '2.00']] })
    }

    env = {
      DATABASE_URL: `sqlite:${path.join(tmp.dir, 'cs.db')}`,
      PORT: '0',
      METRICS_PORT: String(await deadPort()),
      LOG_LEVEL: 'info',
      VENUE: 'kalshi',
      MODEL: 'gbm-ewma-1',
      SERIES: `${FIRST},${SECOND}`,
      KALSHI_BASE_URL: kalshi.baseUrl,
      KALSHI_POLL_S: '1',
      RATE_LIMIT_BURST: '1000',
      RATE_LIMIT_PER_SEC: '100',
      ...exchangeEnv(exchanges),
    }
    service = startProcess(['serve'], env)
    url = await service.url
    metricsUrl = `http://127.0.0.1:${env.METRICS_PORT}/metrics`
    key = await waitFor('the bootstrap key', () => bootstrapKeyFrom(service.stdout()) ?? undefined)
    for (const series of [FIRST, SECOND])
      streams[series] = await openStream(`${url}/v1/stream/contests?series=${series}`, { key })
  })

  after(async () => {
    clearInterval(ticking)
    for (const stream of Object.values(streams)) stream.close()
    await service?.kill()
    await kalshi?.close()
    await exchanges?.close()
    tmp.remove()
  })

  it('refuses, in one line, a series that no configured venue follows', async () => {
    const { code, stdout, stderr } = await runCli(['serve'], {
      ...env,
      PORT: '0',
      METRICS_PORT: '',
      SERIES: `${FIRST},btc-updown-15m`,
    })
    assert.notEqual(code, 0)
    assert.equal(stdout, '')
    assert.equal(
      stderr,
      'contest-signals: invalid configuration: SERIES "btc-updown-15m" is a polymarket series, and VENUE="kalshi" leaves polymarket out\n',
    )
  })

  it('lists the same quarter hour once per series, each with its own ticker and strike', async () => {
    const active = async (series: string) =>
      waitFor(`the live ${series} contest`, async () => {
        const res = await get(`/v1/contests/active?series=${series}`)
        return res.status === 200 ? res.body : undefined
      })
    const [first, second] = [await active(FIRST), await active(SECOND)]
    assert.equal(first.ticker, tickers[FIRST])
    assert.equal(second.ticker, tickers[SECOND])
    assert.notEqual(first.ticker, second.ticker)
    assert.deepEqual(first.window, second.window, 'one quarter hour')
    assert.equal(first.strike_price_dollars, 68_000)
    assert.equal(second.strike_price_dollars, null, 'not yet published, never invented')
  })

  it('checks every configured series with `venue check`, and exits 0', async () => {
    const { code, stdout, stderr } = await runCli(['venue', 'check'], { ...env, METRICS_PORT: '' })
    assert.equal(code, 0, stderr)
    assert.match(stdout, new RegExp(`^venue kalshi at ${kalshi.baseUrl}$`, 'm'))
    assert.match(stdout, new RegExp(`^  ${FIRST}: ${tickers[FIRST]} trading .* strike 68000 `, 'm'))
    assert.match(stdout, new RegExp(`^  ${SECOND}: ${tickers[SECOND]} trading .* strike not set `, 'm'))
  })

  it('reads each series at its own minute: the one with a strike at once, the other once its strike comes', async () => {
    const withSignals = (ticker: string) =>
      waitFor(
        `a reading on ${ticker}`,
        async () => {
          const c = await contest(ticker)
          return c.signals.length >= 1 ? c : undefined
        },
        // minute 13, or minute 14 should the strike have come too late for 13 (decisions §11)
        minute13 + MINUTE - Date.now() + 15_000,
        250,
      )
    // the second series' strike arrives before minute 13: both read minute 13, each on its own book
    kalshi.updateMarket(tickers[SECOND]!, { floor_strike: 68_100, yes_sub_title: 'Target Price: $68,100.00' })
    const first = await withSignals(tickers[FIRST]!)
    const second = await withSignals(tickers[SECOND]!)
    assert.equal(second.strike_price_dollars, 68_100)
    for (const c of [first, second]) {
      const [s] = c.signals
      assert.equal(s.ticker, c.ticker)
      assert.ok(Date.parse(s.raised_at) >= minute13, 'minute 13')
      assert.equal(s.entry_price_cents, s.side === 'up' ? 45 : 58)
    }
  })

  it('reports health without per-venue detail for one venue, and labels the venue metrics with it', async () => {
    const health = await fetch(`${url}/v1/health`).then((r) => r.json() as Promise<Json>)
    assert.equal(health.status, 'ok')
    assert.deepEqual(health.checks, { store: 'ok', engine: 'ok' })
    const text = await waitFor('venue metrics with a venue label', async () => {
      const body = await fetch(metricsUrl).then((r) => r.text())
      return sample(body, 'cs_venue_request_duration_seconds_count', {
        venue: 'kalshi',
        endpoint: 'orderbook',
      })
        ? body
        : undefined
    })
    const pollAge = sample(text, 'cs_venue_last_poll_age_seconds', { venue: 'kalshi' })
    assert.ok(pollAge !== undefined && pollAge < 60, `the last poll is ${pollAge} s old`)
    assert.ok(
      (sample(text, 'cs_venue_request_duration_seconds_count', { venue: 'kalshi', endpoint: 'markets' }) ??
        0) > 0,
    )
  })

  it('settles each series on its own venue result, one before the other', async () => {
    for (const series of [FIRST, SECOND]) kalshi.updateMarket(tickers[series]!, { status: 'closed' })
    for (const series of [FIRST, SECOND]) await inState(tickers[series]!, 'expired')
    kalshi.updateMarket(tickers[FIRST]!, {
      status: 'finalized',
      result: 'yes',
      expiration_value: '68,433.15',
    })
    const first = await inState(tickers[FIRST]!, 'settled')
    assert.equal(first.settled_side, 'up')
    assert.equal(first.settled_price_dollars, 68_433.15)
    // a few polls later the other series is still waiting for its own result
    const polled = kalshi.requests.length
    await waitFor('three more polls', () => (kalshi.requests.length >= polled + 6 ? true : undefined))
    assert.equal((await contest(tickers[SECOND]!)).state, 'expired')
    kalshi.updateMarket(tickers[SECOND]!, {
      status: 'finalized',
      result: 'no',
      expiration_value: '68,099.99',
    })
    const second = await inState(tickers[SECOND]!, 'settled')
    assert.equal(second.settled_side, 'down')
    for (const s of second.signals) assert.equal(s.outcome, s.side === 'down' ? 'win' : 'loss')
  })

  it('streamed each series on its own stream, and only its own contest', async () => {
    for (const series of [FIRST, SECOND]) {
      const stream = streams[series]!
      await waitFor(`the settlement on the ${series} stream`, () =>
        stream.events.some((e) => e.event === 'contest.settled') ? true : undefined,
      )
      const story = stream.events.map((e) => ({ event: e.event, data: JSON.parse(e.data) as Json }))
      const events = story.map((e) => e.event)
      assert.equal(events[0], 'contest.opened', series)
      assert.equal(events.at(-1), 'contest.settled', series)
      const between = events.slice(1, -1)
      assert.ok(between.length >= 1 && between.every((e) => e === 'signal.emitted'), `${series}: ${events}`)
      for (const e of story)
        assert.equal(e.event === 'signal.emitted' ? e.data.contest.ticker : e.data.ticker, tickers[series])
    }
  })
})
