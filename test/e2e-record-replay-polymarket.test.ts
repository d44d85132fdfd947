// Recording live on Polymarket (decisions §12, §14): the real CLI on VENUE=polymarket against the
// loopback fixtures with RECORD_DIR set, through a window's last two reading minutes, its close, the
// price to beat published after it and its result; then `contest-signals replay` of the recording
// into a new store. With the default model, the replay publishes what the live run published: the
// same contests (the window and the next one it opened) and the same signals, the confidence to the
// hundredth and raised within a second, minute 14's one-sided book (the Down token's 404) included. The wall clock is shifted as in the lifecycle test (the
// venue's windows are the UTC quarter hours).
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Contest } from '../src/domain/contest.ts'
import { createReadingModel, DEFAULT_MODEL } from '../src/model/models.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { type ExchangeFixtures, startExchangeFixtures } from './fixtures/exchange-fixtures.ts'
import {
  DOWN_TOKEN,
  FINAL_PRICE,
  makeGammaEvent,
  NEXT_DOWN_TOKEN,
  NEXT_UP_TOKEN,
  PRICE_TO_BEAT,
  resolvedGammaEvent,
  UP_TOKEN,
} from './fixtures/polymarket-bodies.ts'
import { marketOf, type PolymarketFixture, startPolymarketFixture } from './fixtures/polymarket-fixture.ts'
import { warmAndDrift } from './support/exchange-motion.ts'
import { exchangeEnv } from './support/feed-env.ts'
import { keyedGet } from './support/keyed-get.ts'
import { shiftToMinute13 } from './support/polymarket-window.ts'
import { assertReplayEqualsLive } from './support/replay-equality.ts'
import { runCli, type ServiceProcess, startProcess, tempDir } from './support/service-process.ts'
import { shiftedClockEnv } from './support/shifted-clock.ts'
import { waitFor } from './support/wait.ts'

const MINUTE = 60_000
const SERIES = 'btc-updown-15m'
const LEAD_MS = 25_000

// the window that is 12 min 35 s old when the test starts (on the shifted clock)
const { S, minute13, closesAt, shiftMs: SHIFT_MS } = shiftToMinute13(LEAD_MS)

const TICKER = `btc-updown-15m-${S}`
const NEXT = `btc-updown-15m-${S + 900}`
const SPOT = 84_010

// biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field
type Json = Record<string, any>

async function storedContests(db: string): Promise<Contest[]> {
  const store = createSqliteStore(db)
  try {
    const out: Contest[] = []
    for (const ticker of [TICKER, NEXT]) {
      const contest = await store.getContest(ticker)
      assert.ok(contest, `${ticker} in ${db}`)
      out.push(contest)
    }
    return out
  } finally {
    await store.close()
  }
}

describe('recording a live Polymarket run and replaying it (shifted wall clock, loopback fixtures)', () => {
  const tmp = tempDir('cs-record-pm-')
  const recordDir = path.join(tmp.dir, 'tapes')
  const liveDb = path.join(tmp.dir, 'live.db')
  let pm: PolymarketFixture
  let exchanges: ExchangeFixtures
  let service: ServiceProcess
  let stopDrift = () => {}

  before(async () => {
    pm = await startPolymarketFixture()
    exchanges = await startExchangeFixtures({ bid: SPOT - 0.1, ask: SPOT + 0.1 })
    stopDrift = warmAndDrift(exchanges, SPOT, 20)

    pm.putEvent(
      resolvedGammaEvent(
        S - 900,
        'up',
        { priceToBeat: 83_900.5, finalPrice: PRICE_TO_BEAT },
        { upToken: '3'.repeat(76), downToken: '4'.repeat(76) },
      ),
    )
    pm.putEvent(makeGammaEvent({ startS: S }))
    pm.putEvent(makeGammaEvent({ startS: S + 900, upToken: NEXT_UP_TOKEN, downToken: NEXT_DOWN_TOKEN }))
    pm.setBook(UP_TOKEN, [{ price: '0.54', size: '96.4' }], [{ price: '0.55', size: '64.1' }])
    pm.setBook(DOWN_TOKEN, [{ price: '0.45', size: '64.1' }], [{ price: '0.46', size: '96.4' }])
    pm.setBook(NEXT_UP_TOKEN, [{ price: '0.49', size: '10' }], [{ price: '0.51', size: '10' }])
    pm.setBook(NEXT_DOWN_TOKEN, [{ price: '0.49', size: '10' }], [{ price: '0.51', size: '10' }])

    service = startProcess(['serve'], {
      DATABASE_URL: `sqlite:${liveDb}`,
      PORT: '0',
      LOG_LEVEL: 'info',
      VENUE: 'polymarket',
      SERIES,
      POLYMARKET_GAMMA_URL: pm.gammaUrl,
      POLYMARKET_CLOB_URL: pm.clobUrl,
      POLYMARKET_POLL_S: '1',
      RECORD_DIR: recordDir,
      RATE_LIMIT_BURST: '1000',
      RATE_LIMIT_PER_SEC: '100',
      ...exchangeEnv(exchanges),
      ...shiftedClockEnv(SHIFT_MS),
    })
    const url = await service.url
    const key = await service.bootstrapKey
    const get = keyedGet(() => ({ url, key }))
    const contest = async (ticker: string): Promise<Json> => (await get(`/v1/contests/${ticker}`)).body
    const until = (what: string, ok: (c: Json) => boolean, timeoutMs?: number) =>
      waitFor(
        what,
        async () => {
          const c = await contest(TICKER)
          return ok(c) ? c : undefined
        },
        timeoutMs,
        250,
      )

    await until('minute 13', (c) => c.signals?.length >= 1, minute13 - Date.now() + 15_000)
    pm.setBook(UP_TOKEN, [{ price: '0.99', size: '5' }], [{ price: '0.995', size: '50' }])
    // minute 14: the Down token has no book (the CLOB's 404), a one-sided quote live, which the
    // recording must keep for the replay to read the same
    pm.removeBook(DOWN_TOKEN)
    await until('minute 14', (c) => c.signals?.length >= 2, minute13 + MINUTE - Date.now() + 15_000)
    await until('expired', (c) => c.state === 'expired', closesAt - Date.now() + 15_000)
    await waitFor('the next window', async () => ((await contest(NEXT)).state === 'live' ? true : undefined))
    pm.updateEvent(TICKER, (e) => {
      const m = marketOf(e)
      Object.assign(e, {
        closed: true,
        eventMetadata: { priceToBeat: PRICE_TO_BEAT, finalPrice: FINAL_PRICE },
      })
      Object.assign(m, {
        closed: true,
        acceptingOrders: false,
        umaResolutionStatus: 'resolved',
        outcomes: '["Up", "Down"]',
        outcomePrices: '["0", "1"]',
        clobTokenIds: JSON.stringify([UP_TOKEN, DOWN_TOKEN]),
        closedTime: new Date(closesAt + 72_000)
          .toISOString()
          .replace('T', ' ')
          .replace(/\.\d+Z$/, '+00'),
      })
    })
    await until('settled', (c) => c.state === 'settled')
    // SIGTERM: the recorder writes its last member and closes the day's file
    const { code } = await service.kill()
    assert.equal(code, 0)
  })

  after(async () => {
    stopDrift()
    await service?.kill()
    await pm?.close()
    await exchanges?.close()
    tmp.remove()
  })

  it('replays to the contests and signals the live run published', async (t) => {
    const replayDb = path.join(tmp.dir, 'replayed.db')
    const run = await runCli(['replay', '--tape', recordDir], { DATABASE_URL: `sqlite:${replayDb}` })
    assert.equal(run.code, 0, run.stderr)
    const live = await storedContests(liveDb)
    const replayed = await storedContests(replayDb)
    assert.equal(live[0]!.settledSide, 'down')
    assert.equal(live[0]!.strikePriceDollars, 84_012.48)
    assert.equal(live[0]!.signals.length, 2, 'minute 14 raised on its one-sided book')
    const version = createReadingModel(DEFAULT_MODEL).version
    assert.ok(
      live[0]!.signals.every((s) => s.modelVersion === version),
      'the default model read them',
    )
    const figures = assertReplayEqualsLive(live, replayed)
    t.diagnostic(`record → replay (polymarket): ${JSON.stringify(figures)}`)
  })
})
