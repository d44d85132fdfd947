// Outages on VENUE=kalshi, driven through the real CLI: a venue unreachable from the start (history
// still served, health degraded after a minute) and every spot source stale (contests open, no
// reading raised, one log line for the contest).
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { settleContest } from '../src/domain/contest.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { type ExchangeFixtures, startExchangeFixtures } from './fixtures/exchange-fixtures.ts'
import { type KalshiFixture, makeMarket, startKalshiFixture } from './fixtures/kalshi-fixture.ts'
import { makeContest, makeSignal } from './support/contest-fixtures.ts'
import { exchangeEnv, unreachableExchangeEnv } from './support/feed-env.ts'
import { freePort } from './support/ports.ts'
import { type ServiceProcess, startProcess, tempDir } from './support/service-process.ts'
import { untilWallClock, waitFor } from './support/wait.ts'

const MINUTE = 60_000

async function healthOf(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/v1/health`)
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

describe('VENUE=kalshi outages (real CLI)', { concurrency: true }, () => {
  describe('the venue and every exchange unreachable from the start', () => {
    const tmp = tempDir()
    const db = path.join(tmp.dir, 'cs.db')
    let service: ServiceProcess
    let url: string
    let key: string
    const history = [makeContest(), makeContest()].map((c) =>
      settleContest(
        { ...c, state: 'expired', signals: [makeSignal(c)] },
        { kind: 'settled', side: 'up', priceDollars: 1 },
      ),
    )

    before(async () => {
      const store = createSqliteStore(db)
      await store.migrate()
      await store.importHistory(history)
      await store.close()
      const port = await freePort()
      const nowhere = `127.0.0.1:${port}`
      service = startProcess(['serve'], {
        DATABASE_URL: `sqlite:${db}`,
        PORT: '0',
        VENUE: 'kalshi',
        SERIES: history[0]!.series,
        KALSHI_BASE_URL: `http://${nowhere}/trade-api/v2`,
        KALSHI_POLL_S: '1',
        ...unreachableExchangeEnv(nowhere),
      })
      url = await service.url
      key = await service.bootstrapKey
    })
    after(async () => {
      await service?.kill()
      tmp.remove()
    })

    it('starts, serves the stored history, and reports the outage in health after a minute', async () => {
      // the minute's threshold itself is held on a manual clock by kalshi-venue-faults.test.ts
      const res = await fetch(`${url}/v1/contests?series=${history[0]!.series}`, {
        headers: { Authorization: `Bearer ${key}` },
      })
      assert.equal(res.status, 200)
      const body = (await res.json()) as { contests: { ticker: string }[] }
      assert.deepEqual(body.contests.map((c) => c.ticker).sort(), history.map((c) => c.ticker).sort())
      const active = await fetch(`${url}/v1/contests/active?series=${history[0]!.series}`, {
        headers: { Authorization: `Bearer ${key}` },
      })
      assert.equal(active.status, 404, 'an outage invents no contest')

      assert.equal((await healthOf(url)).body.status, 'ok', 'not degraded before a minute has passed')
      const degraded = await waitFor(
        'health to report the outage',
        async () => {
          const h = await healthOf(url)
          return h.body.status === 'degraded' ? h : undefined
        },
        90_000,
        1000,
      )
      assert.equal(degraded.status, 200)
      assert.deepEqual(degraded.body.checks, {
        store: 'ok',
        engine: 'ok',
        venue: 'unreachable',
        spot: 'unreachable',
      })
      assert.equal(service.child.exitCode, null, 'still running')
    })
  })

  describe('every spot source stale while the venue is fine', () => {
    const tmp = tempDir()
    let kalshi: KalshiFixture
    let exchanges: ExchangeFixtures
    let service: ServiceProcess
    let url: string
    let key: string
    // the market's minute 1 starts a few seconds after the test does
    const opensAt = Math.ceil((Date.now() + 8_000) / 1000) * 1000 - MINUTE
    let ticker = ''

    before(async () => {
      kalshi = await startKalshiFixture()
      exchanges = await startExchangeFixtures()
      // connected, then silent, with REST failing too: every source goes stale after SPOT_MAX_AGE_S
      for (const x of [exchanges.coinbase, exchanges.kraken, exchanges.bitstamp]) {
        x.silence(true)
        x.failRest(true)
      }
      const market = makeMarket({
        openTime: opensAt,
        closeTime: opensAt + 15 * MINUTE,
        status: 'active',
        floorStrike: 68_000,
      })
      ticker = market.ticker
      kalshi.addMarket(market)
      kalshi.setOrderbook(ticker, { yes: [['0.4000', '1.00']], no: [['0.5500', '1.00']] })
      service = startProcess(['serve'], {
        DATABASE_URL: `sqlite:${path.join(tmp.dir, 'cs.db')}`,
        PORT: '0',
        VENUE: 'kalshi',
        KALSHI_BASE_URL: kalshi.baseUrl,
        KALSHI_POLL_S: '1',
        SPOT_MAX_AGE_S: '2',
        ...exchangeEnv(exchanges),
      })
      url = await service.url
      key = await service.bootstrapKey
    })
    after(async () => {
      await service?.kill()
      await kalshi?.close()
      await exchanges?.close()
      tmp.remove()
    })

    it('opens the contest but raises no reading, and says why once', async () => {
      const get = () => fetch(`${url}/v1/contests/${ticker}`, { headers: { Authorization: `Bearer ${key}` } })
      await waitFor('the contest', async () => ((await get()).status === 200 ? true : undefined), 15_000, 500)
      // through minute 1 and into minute 2
      await untilWallClock(opensAt + 2 * MINUTE + 3_000, 'minute 2 of the contest')
      const contest = (await (await get()).json()) as { state: string; signals: unknown[] }
      assert.equal(contest.state, 'live')
      assert.deepEqual(contest.signals, [], 'no fresh spot, no reading')
      const lines = service
        .stdout()
        .split('\n')
        .filter((l) => l.includes('"reason":"no-spot"') && l.includes(ticker))
      assert.equal(lines.length, 1, 'logged once per contest, not once per minute or per tick')
    })
  })
})
