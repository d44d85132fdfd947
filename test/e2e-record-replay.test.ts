// Recording live (decisions §12): the real CLI on VENUE=kalshi against the loopback fixtures with
// RECORD_DIR set, on the wall clock, through a contest's last three minutes, its close and its
// result; then `contest-signals replay` of what it recorded into a new store. The replay must publish
// what the live run published, with the default model: the same contest and the same signals (the
// confidence to the hundredth, raised within a second). The contest before it is still listed, closed
// with its strike: the default model's basis reads it, live through the venue set as in the replay.
import assert from 'node:assert/strict'
import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Contest } from '../src/domain/contest.ts'
import { createReadingModel, DEFAULT_MODEL } from '../src/model/models.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { openTape } from '../src/tape/tape-reader.ts'
import { type ExchangeFixtures, startExchangeFixtures } from './fixtures/exchange-fixtures.ts'
import { type KalshiFixture, makeMarket, startKalshiFixture } from './fixtures/kalshi-fixture.ts'
import { warmAndDrift } from './support/exchange-motion.ts'
import { exchangeEnv } from './support/feed-env.ts'
import { assertReplayEqualsLive } from './support/replay-equality.ts'
import { runCli, type ServiceProcess, startProcess, tempDir } from './support/service-process.ts'
import { untilWallClock, waitFor } from './support/wait.ts'

const MINUTE = 60_000
const BTC = 'KXBTC15M'
/** minute 13 of the window begins at least this long after the test starts: time to start and set the strike */
const LEAD_MS = 25_000
// on a whole minute, as the venue's windows are: the strikes' basis samples are the proxy's mean over
// the whole minute before each open (decisions §11), so the earlier contest's strike counts
const minute13 = Math.ceil((Date.now() + LEAD_MS) / MINUTE) * MINUTE
const opensAt = minute13 - 13 * MINUTE
const closesAt = opensAt + 15 * MINUTE

// biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field
type Json = Record<string, any>

async function storedContest(db: string, ticker: string): Promise<Contest> {
  const store = createSqliteStore(db)
  try {
    const contest = await store.getContest(ticker)
    assert.ok(contest, `${ticker} in ${db}`)
    return contest
  } finally {
    await store.close()
  }
}

describe('recording a live Kalshi run and replaying it (wall clock, loopback fixtures)', () => {
  const tmp = tempDir('cs-record-')
  const recordDir = path.join(tmp.dir, 'tapes')
  const liveDb = path.join(tmp.dir, 'live.db')
  let kalshi: KalshiFixture
  let exchanges: ExchangeFixtures
  let service: ServiceProcess
  let stopDrift = () => {}
  let ticker = ''

  before(async () => {
    kalshi = await startKalshiFixture()
    exchanges = await startExchangeFixtures({ bid: 68_433.1, ask: 68_433.2 })
    stopDrift = warmAndDrift(exchanges, 68_433.15, 25)

    // the contest before, settled: in the listing's close window, its strike one basis sample
    kalshi.addMarket(
      makeMarket({
        series: BTC,
        openTime: opensAt - 15 * MINUTE,
        closeTime: opensAt,
        status: 'finalized',
        floorStrike: 68_452.5,
        result: 'yes',
        expirationValue: '68,460.12',
      }),
    )
    const market = makeMarket({ series: BTC, openTime: opensAt, closeTime: closesAt, status: 'active' })
    ticker = market.ticker
    kalshi.addMarket(market)
    kalshi.setOrderbook(ticker, { yes: [['0.4200', '13.00']], no: [['0.5500', '2.00']] })
    service = startProcess(['serve'], {
      DATABASE_URL: `sqlite:${liveDb}`,
      PORT: '0',
      LOG_LEVEL: 'info',
      VENUE: 'kalshi',
      SERIES: BTC,
      KALSHI_BASE_URL: kalshi.baseUrl,
      KALSHI_POLL_S: '1',
      RECORD_DIR: recordDir,
      RATE_LIMIT_BURST: '1000',
      RATE_LIMIT_PER_SEC: '100',
      ...exchangeEnv(exchanges),
    })
    const url = await service.url
    const key = await service.bootstrapKey
    const contest = async (): Promise<Json> =>
      (await (
        await fetch(`${url}/v1/contests/${ticker}`, { headers: { Authorization: `Bearer ${key}` } })
      ).json()) as Json
    await waitFor('the contest opened, the spot sources fresh', async () => {
      const health = (await (await fetch(`${url}/v1/health`)).json()) as Json
      return (await contest()).state === 'live' && health.status === 'ok' ? true : undefined
    })

    // the service starts inside minute 12, past READING_MAX_LATE_S: minute 12 stays unread (decisions §11),
    // so the strike arrives now and minutes 13 and 14 are read at their whole minutes
    kalshi.updateMarket(ticker, { floor_strike: 68_420, yes_sub_title: 'Target Price: $68,420.00' })
    await waitFor(
      'minute 13',
      async () => ((await contest()).signals.length >= 1 ? true : undefined),
      minute13 - Date.now() + 15_000,
    )
    kalshi.setOrderbook(ticker, { yes: [['0.9200', '3.00']], no: [['0.0050', '4.00']] })
    await waitFor(
      'minute 14',
      async () => ((await contest()).signals.length >= 2 ? true : undefined),
      minute13 + MINUTE - Date.now() + 15_000,
    )
    await untilWallClock(closesAt, 'the contest to close')
    kalshi.updateMarket(ticker, { status: 'closed' })
    await waitFor('expired', async () => ((await contest()).state === 'expired' ? true : undefined))
    kalshi.updateMarket(ticker, { status: 'finalized', result: 'no', expiration_value: '68,411.07' })
    await waitFor('settled', async () => ((await contest()).state === 'settled' ? true : undefined))
    // SIGTERM: the recorder writes its last member and closes the day's file
    const { code } = await service.kill()
    assert.equal(code, 0)
  })

  after(async () => {
    stopDrift()
    await service?.kill()
    await kalshi?.close()
    await exchanges?.close()
    tmp.remove()
  })

  it('wrote one gzip tape per UTC day, named by the day, with a Kalshi header', async () => {
    const files = readdirSync(recordDir)
    const today = new Date(closesAt).toISOString().slice(0, 10)
    assert.ok(files.includes(`tape-${today}.ndjson.gz`), files.join(', '))
    assert.ok(
      files.every((f) => /^tape-\d{4}-\d{2}-\d{2}\.ndjson\.gz$/.test(f)),
      files.join(', '),
    )
    const tape = await openTape(path.join(recordDir, `tape-${today}.ndjson.gz`))
    const kinds = new Set<string>()
    for await (const r of tape.records()) kinds.add(r.k)
    assert.equal(tape.header.venue, 'kalshi')
    assert.deepEqual(tape.header.series, [BTC])
    assert.deepEqual(tape.header.sources, ['coinbase', 'kraken', 'bitstamp'])
    assert.equal(tape.header.from, `${today}T00:00:00.000Z`)
    for (const k of ['market', 'book', 'spot', 'closes', 'exchange']) assert.ok(kinds.has(k), `a ${k} record`)
  })

  it('replays to the contest and signals the live run published', async (t) => {
    const replayDb = path.join(tmp.dir, 'replayed.db')
    const run = await runCli(['replay', '--tape', recordDir], { DATABASE_URL: `sqlite:${replayDb}` })
    assert.equal(run.code, 0, run.stderr)
    assert.match(run.stdout, /^replay KXBTC15M: 1 contests opened, 1 settled \(0 void\), \d+ signals raised/m)
    assert.ok(existsSync(replayDb))

    const live = await storedContest(liveDb, ticker)
    const replayed = await storedContest(replayDb, ticker)
    assert.equal(live.settledSide, 'down')
    assert.ok(live.signals.length >= 2, `${live.signals.length} signals`)
    assert.ok(
      live.signals.every((s) => s.modelVersion === createReadingModel(DEFAULT_MODEL).version),
      'the default model read them',
    )
    const figures = assertReplayEqualsLive([live], [replayed])
    t.diagnostic(`record → replay (kalshi): ${JSON.stringify(figures)}`)
  })
})
