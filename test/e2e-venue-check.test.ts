// `contest-signals venue check` against loopback fixtures of the venue and the exchanges: what the
// engine would follow, the asks, each source's spot and the median; one line and a non-zero exit
// when the venue is unreachable, a series has no open market, or no spot is fresh.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type ExchangeFixtures, startExchangeFixtures } from './fixtures/exchange-fixtures.ts'
import { type KalshiFixture, makeMarket, startKalshiFixture } from './fixtures/kalshi-fixture.ts'
import { deadPort, exchangeEnv, unreachableExchangeEnv } from './support/feed-env.ts'
import { runCli, tempDir } from './support/service-process.ts'

const MINUTE = 60_000

describe('contest-signals venue check', { concurrency: true }, () => {
  const tmp = tempDir()
  let kalshi: KalshiFixture
  let exchanges: ExchangeFixtures
  let ticker = ''
  const opensAt = Math.floor(Date.now() / MINUTE) * MINUTE - 3 * MINUTE
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
    const market = makeMarket({
      openTime: opensAt,
      closeTime: opensAt + 15 * MINUTE,
      status: 'active',
      floorStrike: 68_421.37,
    })
    ticker = market.ticker
    kalshi.addMarket(market)
    kalshi.addMarket(
      makeMarket({
        openTime: opensAt + 15 * MINUTE,
        closeTime: opensAt + 30 * MINUTE,
        status: 'initialized',
      }),
    )
    kalshi.setOrderbook(ticker, { yes: [['0.3400', '703.36']], no: [['0.9650', '10670.72']] })
  })
  after(async () => {
    await kalshi?.close()
    await exchanges?.close()
    tmp.remove()
  })

  it('prints the market the engine would follow, its asks, each source and the median, and exits 0', async () => {
    const { code, stdout, stderr } = await runCli(['venue', 'check'], env())
    assert.equal(code, 0, stderr)
    assert.equal(stderr, '')
    const window = `${new Date(opensAt).toISOString()} → ${new Date(opensAt + 15 * MINUTE).toISOString()}`
    assert.match(stdout, new RegExp(`KXBTC15M: ${ticker} trading ${window} strike 68421.37`))
    // YES ask = 1 − 0.9650 = 3.5¢, NO ask = 1 − 0.3400 = 66¢
    assert.match(stdout, /asks up 3\.5¢ down 66¢/)
    assert.match(stdout, /coinbase: 68433\.20 \(\d+\.\d s ago\)/)
    assert.match(stdout, /kraken: 68435\.20 /)
    assert.match(stdout, /bitstamp: 91000\.00 /)
    assert.match(stdout, /median: 68435\.20$/m)
  })

  it('fails with one line when the venue cannot be reached', async () => {
    const port = await deadPort()
    const { code, stderr } = await runCli(
      ['venue', 'check'],
      env({ KALSHI_BASE_URL: `http://127.0.0.1:${port}/trade-api/v2` }),
    )
    assert.equal(code, 1)
    assert.equal(stderr.trim().split('\n').length, 1)
    assert.match(
      stderr,
      /^contest-signals: venue check failed: venue kalshi unreachable; no open market for KXBTC15M$/m,
    )
  })

  it('fails when a series has no open market, or no spot source is fresh', async () => {
    const port = await deadPort()
    const nowhere = `127.0.0.1:${port}`
    const { code, stdout, stderr } = await runCli(
      ['venue', 'check'],
      env({
        SERIES: 'KXBTC15M,KXETH15M',
        ...unreachableExchangeEnv(nowhere),
      }),
    )
    assert.equal(code, 1)
    assert.match(stdout, /KXETH15M: no open market/)
    assert.match(stdout, /median: —/)
    assert.match(
      stderr,
      /^contest-signals: venue check failed: no open market for KXETH15M; no fresh spot price$/m,
    )
  })

  it('refuses extra words with a usage line', async () => {
    const { code, stderr } = await runCli(['venue', 'status'], env())
    assert.equal(code, 2)
    assert.match(stderr, /usage: venue check/)
  })
})
