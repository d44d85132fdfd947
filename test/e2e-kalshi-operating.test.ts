// Operating on Kalshi for real, through the real CLI against loopback fixtures: series the engine
// cannot price are refused at start in one line each; during the exchange's scheduled trading pause
// (market statuses still `active`) no reading is raised while health stays ok and says so; and with
// an API key the venue's WebSocket gives the model BRTI as its spot and the result before REST does,
// and a dropped socket costs REST nothing.
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type ExchangeFixtures, startExchangeFixtures } from './fixtures/exchange-fixtures.ts'
import { type KalshiFixture, makeMarket, makeSeries, startKalshiFixture } from './fixtures/kalshi-fixture.ts'
import { setWarmUpHour } from './support/exchange-motion.ts'
import { exchangeEnv } from './support/feed-env.ts'
import { runCli, type ServiceProcess, startProcess, tempDir } from './support/service-process.ts'
import { untilWallClock, waitFor } from './support/wait.ts'

const MINUTE = 60_000
// biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
type Json = Record<string, any>

describe('VENUE=kalshi operating for real (real CLI)', { concurrency: true }, () => {
  describe('series the engine cannot price', () => {
    const tmp = tempDir()
    let kalshi: KalshiFixture
    const now = Date.now()
    const opensAt = Math.floor(now / (15 * MINUTE)) * 15 * MINUTE

    before(async () => {
      kalshi = await startKalshiFixture()
      kalshi.addSeries(
        makeSeries({ ticker: 'KXETH15M', title: 'Ethereum price up down', tags: ['ETH', '15 min'] }),
      )
      kalshi.addSeries(makeSeries({ ticker: 'KXBTCD', title: 'Bitcoin price today', frequency: 'hourly' }))
      // a ladder: one event, several strikes
      for (const strike of [67_500, 68_000, 68_500])
        kalshi.addMarket(
          makeMarket({
            series: 'KXBTCD',
            ticker: `KXBTCD-26NOV2617-T${strike}`,
            openTime: opensAt,
            closeTime: opensAt + 15 * MINUTE,
            floorStrike: strike,
            extra: { event_ticker: 'KXBTCD-26NOV2617', strike_type: 'greater' },
          }),
        )
    })
    after(async () => {
      await kalshi?.close()
      tmp.remove()
    })

    for (const [series, why] of [
      [
        'KXETH15M',
        'its underlying is not bitcoin (the venue calls it "Ethereum price up down", tagged ETH, 15 min)',
      ],
      ['KXBTCD', 'its windows are not 15 minutes (frequency "hourly")'],
    ] as const) {
      it(`stops at start on SERIES=${series} with one line naming it and why`, async () => {
        const { code, stderr } = await runCli(['serve'], {
          DATABASE_URL: `sqlite:${path.join(tmp.dir, `${series}.db`)}`,
          PORT: '0',
          VENUE: 'kalshi',
          SERIES: series,
          KALSHI_BASE_URL: kalshi.baseUrl,
          COINBASE_WS_URL: 'ws://127.0.0.1:9',
        })
        assert.notEqual(code, 0)
        assert.equal(
          stderr.trimEnd(),
          `contest-signals: invalid configuration: SERIES=${series} cannot be priced: ${why}`,
        )
      })
    }
  })

  describe('the weekly trading pause, markets still active', () => {
    const tmp = tempDir()
    let kalshi: KalshiFixture
    let exchanges: ExchangeFixtures
    let service: ServiceProcess
    let url: string
    let ticking: NodeJS.Timeout
    // the market's minute 1 starts a few seconds after the test does
    const opensAt = Math.ceil((Date.now() + 8_000) / 1000) * 1000 - MINUTE
    let ticker = ''

    before(async () => {
      kalshi = await startKalshiFixture()
      exchanges = await startExchangeFixtures()
      ticking = setInterval(() => {
        exchanges.coinbase.setPrice(68_433.1, 68_433.2)
        exchanges.kraken.setPrice(68_433.4, 68_433.6)
        exchanges.bitstamp.setPrice(68_432.9, 68_433.3)
      }, 1000)
      const market = makeMarket({
        openTime: opensAt,
        closeTime: opensAt + 15 * MINUTE,
        status: 'active',
        floorStrike: 68_000,
      })
      ticker = market.ticker
      kalshi.addMarket(market)
      kalshi.setOrderbook(ticker, { yes: [['0.4000', '10.00']], no: [['0.5500', '10.00']] })
      // the venue lists the pause it is in, and says trading is off; the market itself says nothing
      kalshi.setSchedule({
        standard_hours: [],
        maintenance_windows: [
          {
            start_datetime: new Date(Date.now() - 10 * MINUTE).toISOString(),
            end_datetime: new Date(Date.now() + 110 * MINUTE).toISOString(),
          },
        ],
      })
      kalshi.setExchangeStatus({ exchange_active: true, trading_active: false })
      service = startProcess(['serve'], {
        DATABASE_URL: `sqlite:${path.join(tmp.dir, 'cs.db')}`,
        PORT: '0',
        LOG_LEVEL: 'info',
        VENUE: 'kalshi',
        KALSHI_BASE_URL: kalshi.baseUrl,
        KALSHI_POLL_S: '1',
        ...exchangeEnv(exchanges),
      })
      url = await service.url
    })
    after(async () => {
      clearInterval(ticking)
      await service?.kill()
      await kalshi?.close()
      await exchanges?.close()
      tmp.remove()
    })

    it('raises no reading, says why once, and health stays ok with checks.venue "paused"', async () => {
      const health = await waitFor(
        'health to show the pause',
        async () => {
          const body = (await (await fetch(`${url}/v1/health`)).json()) as Json
          return body.checks?.venue === 'paused' ? body : undefined
        },
        20_000,
        500,
      )
      assert.equal(health.status, 'ok')
      assert.deepEqual(health.checks, { store: 'ok', engine: 'ok', venue: 'paused' })
      // through minute 1 and into minute 2
      await untilWallClock(opensAt + 2 * MINUTE + 3_000, 'minute 2 of the contest')
      const key = await service.bootstrapKey
      const res = await fetch(`${url}/v1/contests/${ticker}`, { headers: { Authorization: `Bearer ${key}` } })
      const contest = (await res.json()) as { state: string; signals: unknown[] }
      assert.equal(contest.state, 'live', 'the contest opened: the market is active')
      assert.deepEqual(contest.signals, [], 'no reading while trading is paused')
      const paused = service
        .stdout()
        .split('\n')
        .filter((l) => l.includes('"reason":"paused"') && l.includes(ticker))
      assert.equal(paused.length, 1, 'logged once per contest')
      assert.equal(
        kalshi.requests.filter((r) => r.path.endsWith('/orderbook')).length,
        0,
        'no book asked for',
      )
    })
  })

  describe('with an API key: the venue’s WebSocket', () => {
    const tmp = tempDir()
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    let kalshi: KalshiFixture
    let exchanges: ExchangeFixtures
    let service: ServiceProcess
    let url: string
    let key: string
    let ticking: NodeJS.Timeout
    // minute 14 of the market starts this long after the test does; it closes a minute later
    const minute14 = Math.ceil((Date.now() + 30_000) / 1000) * 1000
    const opensAt = minute14 - 14 * MINUTE
    const closesAt = opensAt + 15 * MINUTE
    let ticker = ''
    const brti = 70_000

    before(async () => {
      kalshi = await startKalshiFixture({
        publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      })
      exchanges = await startExchangeFixtures()
      setWarmUpHour(exchanges, 68_433)
      const keyFile = path.join(tmp.dir, 'kalshi.pem')
      writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), { mode: 0o600 })
      // the exchanges put bitcoin well under the strike; BRTI, the settlement index, well over it
      ticking = setInterval(() => {
        exchanges.coinbase.setPrice(68_433.1, 68_433.2)
        exchanges.kraken.setPrice(68_433.4, 68_433.6)
        exchanges.bitstamp.setPrice(68_432.9, 68_433.3)
        kalshi.pushBrti(brti, Math.floor(Date.now() / 1000) * 1000)
      }, 1000)
      const market = makeMarket({
        openTime: opensAt,
        closeTime: closesAt,
        status: 'active',
        floorStrike: 69_000,
      })
      ticker = market.ticker
      kalshi.addMarket(market)
      kalshi.setOrderbook(ticker, { yes: [['0.4000', '10.00']], no: [['0.5500', '10.00']] })
      service = startProcess(['serve'], {
        DATABASE_URL: `sqlite:${path.join(tmp.dir, 'cs.db')}`,
        PORT: '0',
        LOG_LEVEL: 'info',
        VENUE: 'kalshi',
        KALSHI_BASE_URL: kalshi.baseUrl,
        KALSHI_POLL_S: '1',
        KALSHI_KEY_ID: 'a952bcbe-ec3b-4b5b-b8f9-11dae589608c',
        KALSHI_PRIVATE_KEY_FILE: keyFile,
        // the first model: a reading so far over the strike is all but certain under it
        MODEL: 'gbm-ewma-1',
        RATE_LIMIT_BURST: '1000',
        RATE_LIMIT_PER_SEC: '100',
        ...exchangeEnv(exchanges),
      })
      url = await service.url
      key = await service.bootstrapKey
    })
    after(async () => {
      clearInterval(ticking)
      await service?.kill()
      await kalshi?.close()
      await exchanges?.close()
      tmp.remove()
    })

    const contest = async (): Promise<Json> =>
      (
        await fetch(`${url}/v1/contests/${ticker}`, { headers: { Authorization: `Bearer ${key}` } })
      ).json() as Promise<Json>

    it('signs its handshake and prices off BRTI: a reading on the up side though the exchanges are below the strike', async () => {
      await waitFor(
        'a signed handshake',
        () => (kalshi.wsHandshakes.some((h) => h.accepted) ? true : undefined),
        20_000,
        200,
      )
      // minute 13 may be read at start, before the socket's first print; minute 14 is long after
      const withSignal = await waitFor(
        'the minute-14 reading',
        async () => {
          const c = await contest()
          return c.signals?.some((s: Json) => Date.parse(s.raised_at) >= minute14) ? c : undefined
        },
        minute14 + 30_000 - Date.now(),
        500,
      )
      const signal = withSignal.signals.find((s: Json) => Date.parse(s.raised_at) >= minute14)
      assert.equal(signal.side, 'up', 'spot 70,000 (BRTI) against a 69,000 strike; the exchanges say 68,433')
      assert.ok(signal.confidence > 90, String(signal.confidence))
      assert.equal(signal.entry_price_cents, 45)
    })

    it('settles on the socket’s result while REST still shows the market closed', async () => {
      await untilWallClock(closesAt + 500, 'the contest to close')
      kalshi.updateMarket(ticker, { status: 'closed' })
      const closeS = Math.floor(closesAt / 1000)
      kalshi.pushWs('market_lifecycle_v2', {
        event_type: 'determined',
        market_ticker: ticker,
        result: 'yes',
        settlement_value: '1.0000',
        determination_ts: closeS + 1,
      })
      kalshi.pushWs('market_lifecycle_v2', {
        event_type: 'settled',
        market_ticker: ticker,
        settled_ts: closeS + 8,
      })
      const settled = await waitFor(
        'the contest settled',
        async () => {
          const c = await contest()
          return c.state === 'settled' ? c : undefined
        },
        20_000,
        250,
      )
      assert.equal(settled.settled_side, 'up')
      for (const s of settled.signals) assert.equal(s.outcome, s.side === 'up' ? 'win' : 'loss')
      const rest = (await (await fetch(`${kalshi.baseUrl}/markets/${ticker}`)).json()) as Json
      assert.equal(rest.market.status, 'closed', 'REST never said finalized')
    })

    it('keeps polling REST through a socket outage, logs it once, and resubscribes', async () => {
      const commands = kalshi.wsCommands.length
      kalshi.refuseWs(true)
      kalshi.dropWs()
      const polledAt = kalshi.requests.length
      await waitFor(
        'REST polls meanwhile',
        () => (kalshi.requests.length >= polledAt + 3 ? true : undefined),
        10_000,
        200,
      )
      kalshi.refuseWs(false)
      await waitFor(
        'resubscribed',
        () => (kalshi.wsCommands.length >= commands + 2 ? true : undefined),
        40_000,
        250,
      )
      assert.deepEqual(
        kalshi.wsCommands.slice(commands).map((c) => (c.params as Json).channels),
        [['market_lifecycle_v2'], ['cfbenchmarks_value']],
      )
      assert.match(service.stdout(), /kalshi socket ended; REST polling carries on, reconnecting/)
      const health = (await (await fetch(`${url}/v1/health`)).json()) as Json
      assert.equal(health.status, 'ok')
    })
  })
})
