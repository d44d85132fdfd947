// `contest-signals venue check` against loopback fixtures of the venue and the exchanges: what the
// engine would follow, the asks, each source's spot and the median; exactly one line naming the
// cause as the venue gave it, and a non-zero exit, when the venue refuses (451, 401) or cannot be
// reached, a series cannot be priced or has no open market, or too few spot sources are fresh.
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type ExchangeFixtures, startExchangeFixtures } from './fixtures/exchange-fixtures.ts'
import { type KalshiFixture, makeMarket, makeSeries, startKalshiFixture } from './fixtures/kalshi-fixture.ts'
import { exchangeEnv, unreachableExchangeEnv } from './support/feed-env.ts'
import { freePort } from './support/ports.ts'
import { runCli, tempDir } from './support/service-process.ts'
import { shiftedClockEnv } from './support/shifted-clock.ts'

const MINUTE = 60_000

describe('contest-signals venue check', { concurrency: true }, () => {
  const tmp = tempDir()
  let kalshi: KalshiFixture
  let exchanges: ExchangeFixtures
  let ticker = ''
  const opensAt = Math.floor(Date.now() / MINUTE) * MINUTE - 3 * MINUTE

  /** The live market every check here reads: struck at 68,421.37, its book 34 ¢ / 96.5 ¢ bids. */
  function addLiveMarket(fixture: Awaited<ReturnType<typeof startKalshiFixture>>) {
    const market = makeMarket({
      openTime: opensAt,
      closeTime: opensAt + 15 * MINUTE,
      status: 'active',
      floorStrike: 68_421.37,
    })
    fixture.addMarket(market)
    fixture.setOrderbook(market.ticker, { yes: [['0.3400', '703.36']], no: [['0.9650', '10670.72']] })
    return market
  }
  const env = (extra: Record<string, string> = {}) => ({
    DATABASE_URL: `sqlite:${path.join(tmp.dir, 'cs.db')}`,
    VENUE: 'kalshi',
    KALSHI_BASE_URL: kalshi.baseUrl,
    ...exchangeEnv(exchanges),
    ...extra,
  })

  before(async () => {
    kalshi = await startKalshiFixture({ pageSize: 2 })
    exchanges = await startExchangeFixtures()
    // Bitstamp far off: the median of three ignores it
    exchanges.coinbase.setPrice(68_433.1, 68_433.3) // mid 68 433.20
    exchanges.kraken.setPrice(68_435.0, 68_435.4) // mid 68 435.20
    exchanges.bitstamp.setPrice(91_000.0, 91_000.0)
    const market = addLiveMarket(kalshi)
    ticker = market.ticker
    kalshi.addMarket(
      makeMarket({
        openTime: opensAt + 15 * MINUTE,
        closeTime: opensAt + 30 * MINUTE,
        status: 'initialized',
      }),
    )
  })
  after(async () => {
    await kalshi?.close()
    await exchanges?.close()
    tmp.remove()
  })

  it('prints the market the engine would follow, its asks, each source and the spot (their median), and exits 0', async () => {
    const { code, stdout, stderr } = await runCli(['venue', 'check'], env())
    assert.equal(code, 0, stderr)
    assert.equal(stderr, '')
    const window = `${new Date(opensAt).toISOString()} → ${new Date(opensAt + 15 * MINUTE).toISOString()}`
    assert.match(stdout, new RegExp(`KXBTC15M: ${ticker} trading ${window} strike 68421.37`))
    // YES ask = 1 − 0.9650 = 3.5¢, NO ask = 1 − 0.3400 = 66¢
    assert.match(stdout, /asks up 3\.5¢ down 66¢/)
    assert.match(stdout, /coinbase: 68433\.20 \(\d+\.\d s ago[^)]*\)/)
    assert.match(stdout, /kraken: 68435\.20 /)
    assert.match(stdout, /bitstamp: 91000\.00 /)
    assert.match(stdout, /^spot sources$/m)
    assert.doesNotMatch(stdout, /spot spot/)
    assert.match(stdout, /^ {2}spot: 68435\.20 \(median of 3 fresh exchanges\)$/m)
  })

  it('with a Kalshi key and BRTI flowing, says the spot is BRTI, the settlement index, not a median', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const keyed = await startKalshiFixture({
      publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    })
    const keyFile = path.join(tmp.dir, 'kalshi.pem')
    writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), { mode: 0o600 })
    // the index prints as the venue relays them, about once a second (here faster, so the check's
    // one look finds a fresh one)
    const printing = setInterval(() => keyed.pushBrti(70_000, Date.now()), 100)
    try {
      addLiveMarket(keyed)
      const { code, stdout, stderr } = await runCli(
        ['venue', 'check'],
        env({
          KALSHI_BASE_URL: keyed.baseUrl,
          KALSHI_KEY_ID: 'a952bcbe-ec3b-4b5b-b8f9-11dae589608c',
          KALSHI_PRIVATE_KEY_FILE: keyFile,
        }),
      )
      assert.equal(code, 0, stderr)
      assert.match(stdout, /^ {2}brti: 70000\.00 \(/m)
      assert.match(stdout, /^ {2}spot: 70000\.00 \(BRTI, the settlement index\)$/m)
      assert.doesNotMatch(stdout, /median: 70000/)
    } finally {
      clearInterval(printing)
      await keyed.close()
    }
  })

  const oneLine = (stdout: string, stderr: string): string => {
    assert.equal(stdout, '', 'nothing but the failure line')
    const lines = stderr.trimEnd().split('\n')
    assert.equal(lines.length, 1, stderr)
    return lines[0]!
  }

  it('names a refused connection in one line', async () => {
    const port = await freePort()
    const base = `http://127.0.0.1:${port}/trade-api/v2`
    const { code, stdout, stderr } = await runCli(['venue', 'check'], env({ KALSHI_BASE_URL: base }))
    assert.equal(code, 1)
    assert.equal(
      oneLine(stdout, stderr),
      `contest-signals: venue check failed: venue kalshi at ${base} unreachable: error: ECONNREFUSED 127.0.0.1:${port}`,
    )
  })

  it('names a 451 and a 401 as the venue gave them, in one line each', async () => {
    const geo = await startKalshiFixture()
    const auth = await startKalshiFixture()
    try {
      geo.answerAll({
        status: 451,
        body: 'Unavailable For Legal Reasons: this service is not offered in your region',
      })
      auth.answerAll({
        status: 401,
        body: '{"code":"authentication_error","message":"invalid signature","details":"key not recognised"}',
      })
      const [g, a] = await Promise.all([
        runCli(['venue', 'check'], env({ KALSHI_BASE_URL: geo.baseUrl })),
        runCli(['venue', 'check'], env({ KALSHI_BASE_URL: auth.baseUrl })),
      ])
      assert.equal(g.code, 1)
      assert.equal(
        oneLine(g.stdout, g.stderr),
        `contest-signals: venue check failed: venue kalshi at ${geo.baseUrl} unreachable: HTTP 451: Unavailable For Legal Reasons: this service is not offered in your region (the venue refuses this region: run from one it serves, e.g. a US host)`,
      )
      assert.equal(a.code, 1)
      assert.equal(
        oneLine(a.stdout, a.stderr),
        `contest-signals: venue check failed: venue kalshi at ${auth.baseUrl} unreachable: HTTP 401: invalid signature: key not recognised`,
      )
    } finally {
      await Promise.all([geo.close(), auth.close()])
    }
  })

  it('fails in one line naming the venue’s words when the order book is refused (it is not guaranteed public)', async () => {
    const refusing = await startKalshiFixture()
    try {
      const market = addLiveMarket(refusing)
      // only the book is refused, as it would be if the venue made it keyed (venue facts §1.3, §6)
      refusing.failNext(100, 401, { path: /\/orderbook/ })
      const { code, stdout, stderr } = await runCli(
        ['venue', 'check'],
        env({ KALSHI_BASE_URL: refusing.baseUrl }),
      )
      assert.equal(code, 1)
      assert.equal(
        oneLine(stdout, stderr),
        `contest-signals: venue check failed: venue kalshi at ${refusing.baseUrl} order book of ${market.ticker} unreachable: HTTP 401: authentication required: fixture refusal`,
      )
    } finally {
      await refusing.close()
    }
  })

  it('refuses a series the engine cannot price, naming it and why', async () => {
    kalshi.addSeries(
      makeSeries({ ticker: 'KXETH15M', title: 'Ethereum price up down', tags: ['ETH', '15 min'] }),
    )
    const eth = await runCli(['venue', 'check'], env({ SERIES: 'KXETH15M' }))
    assert.equal(eth.code, 1)
    assert.equal(
      oneLine(eth.stdout, eth.stderr),
      'contest-signals: venue check failed: SERIES=KXETH15M cannot be priced: its underlying is not bitcoin (the venue calls it "Ethereum price up down", tagged ETH, 15 min)',
    )
  })

  it('fails in one line when a series has no open market, or too few spot sources are fresh', async () => {
    const port = await freePort()
    const nowhere = `127.0.0.1:${port}`
    kalshi.addSeries(makeSeries({ ticker: 'KXBTC15MB' }))
    const { code, stdout, stderr } = await runCli(
      ['venue', 'check'],
      env({
        SERIES: 'KXBTC15M,KXBTC15MB',
        ...unreachableExchangeEnv(nowhere),
      }),
    )
    assert.equal(code, 1)
    assert.equal(
      oneLine(stdout, stderr),
      'contest-signals: venue check failed: no open market for KXBTC15MB; fewer than 2 fresh spot sources',
    )
  })

  it('VENUE=sim (the default): the sandbox of the store’s timeline, read without fixing it', async () => {
    // the check reads the wall clock: held on a Tuesday noon, so a run in the sandbox's weekly pause
    // (Thursdays 03:00–05:00 New York) does not find trading paused and no asks
    const simEnv = (db: string, extra: Record<string, string> = {}) => ({
      DATABASE_URL: `sqlite:${path.join(tmp.dir, db)}`,
      VENUE: 'sim',
      ...shiftedClockEnv(Date.parse('2026-12-01T12:05:00Z') - Date.now()),
      ...extra,
    })
    // a store that never ran: the sandbox SIM_SEED names, and nothing is fixed by the check
    const fresh = await runCli(['venue', 'check'], simEnv('sim-fresh.db', { SIM_SEED: '7' }))
    assert.equal(fresh.code, 0, fresh.stderr)
    assert.match(fresh.stdout, /^venue sim\n {2}KXBTC15M: KXBTC15M-\S+ \w+ /)
    assert.match(fresh.stdout, /\n {2}spot: \d+\.\d\d \(median of \d fresh exchanges\)\n$/)
    assert.doesNotMatch(fresh.stderr, /resolveSimWorld|\n\s+at /)
    const again = await runCli(['venue', 'check'], simEnv('sim-fresh.db', { SIM_SEED: '8' }))
    assert.equal(again.code, 0, again.stderr)
  })

  it('refuses extra words with a usage line', async () => {
    const { code, stderr } = await runCli(['venue', 'status'], env())
    assert.equal(code, 2)
    assert.match(stderr, /usage: venue check/)
  })
})
