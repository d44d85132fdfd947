// The real-data tape builder (tools/real-data-tapes.ts) on tiny constructed files in the layout of
// ../shared/real-data (never the real files, which have no licence): settlements, quote candles and
// Coinbase closes become minute-grained day tapes that replay into the contest the files describe.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import { runReplay } from '../src/main/replay.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import type { BookRecord, MarketRecord, TapeRecord } from '../src/tape/tape-format.ts'
import { openTapeSet } from '../src/tape/tape-set.ts'
import { buildRealDataTapes } from '../tools/real-data-tapes.ts'
import { replayOptions } from './support/replay-options.ts'
import { tempDir } from './support/service-process.ts'

const MINUTE = 60_000
// EDT (UTC−4) on 1 July: the 12:15 ET close of this ticker is 16:15Z, its open 16:00Z
const TICKER = 'KXBTC15M-26JUL011215-15'
const OPENS = Date.UTC(2026, 6, 1, 16, 0)
// the contest before it (a warm-up one: its strike samples the basis) and one the spot never reached
const EARLIER = 'KXBTC15M-26JUL011200-00'
const TOO_EARLY = 'KXBTC15M-26JUL011030-30'
const iso = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('.000Z', '+00:00')

const tmp = tempDir('cs-real-data-')
after(() => tmp.remove())
let dirs = 0

/** A data folder in the real files' layout; `spotFrom` minutes before the open the closes start. */
function dataDir(opts: { quotes?: string[]; spotFrom?: number } = {}): string {
  const dir = path.join(tmp.dir, `data-${++dirs}`)
  mkdirSync(path.join(dir, 'kalshi'), { recursive: true })
  mkdirSync(path.join(dir, 'spot'), { recursive: true })
  writeFileSync(
    path.join(dir, 'kalshi', 'kalshi_kxbtc15m_settlements_test.csv'),
    'ticker,target_brti,final_brti,result,target_cb_close,final_cb_close\n' +
      `${TOO_EARLY},50010.5,50000.25,no,1,1\n` +
      `${EARLIER},50000.25,50020,yes,1,1\n` +
      `${TICKER},50020,50011.1,no,1,1\n`,
  )
  const quotes = opts.quotes ?? [
    ...Array.from(
      { length: 15 },
      (_, i) => `${TICKER},${iso(OPENS + (i + 1) * MINUTE)},0.4${i % 10},0.3${i % 10},0.6${i % 10}`,
    ),
    `${TICKER},${iso(OPENS + 14 * MINUTE + 30_000)},1.0,0.999,0.001`,
  ]
  writeFileSync(
    path.join(dir, 'kalshi', 'kalshi_kxbtc15m_1m_quotes_test.csv'),
    `contract,candle_end_utc,yes_ask,yes_bid,no_ask\n${quotes.join('\n')}\n`,
  )
  const spotFrom = opts.spotFrom ?? 40
  const closes = Array.from(
    { length: spotFrom + 16 },
    (_, i) => `${iso(OPENS + (i - spotFrom) * MINUTE)},${50_000 + (i % 7)}`,
  )
  writeFileSync(
    path.join(dir, 'spot', 'coinbase_btcusd_1m_close_test.csv'),
    `minute_start_utc,coinbase_btcusd_close\n${closes.join('\n')}\n`,
  )
  return dir
}

async function readBack(dir: string) {
  const set = await openTapeSet(dir)
  const records: TapeRecord[] = []
  for await (const batch of set.batches()) records.push(...batch)
  set.close()
  return { header: set.header, records }
}

describe('the real-data tape builder', () => {
  it('writes minute-grained day tapes: the settled markets, each candle at its end, each close before its minute ends', async () => {
    const out = path.join(tmp.dir, 'tapes-1')
    const built = await buildRealDataTapes(dataDir(), out)
    assert.deepEqual(
      {
        contests: built.contests,
        warmUp: built.warmUpContests,
        books: built.books,
        files: built.files.length,
      },
      { contests: 1, warmUp: 1, books: 16, files: 1 },
    )
    const { header, records } = await readBack(out)
    assert.equal(header.grain, '1m')
    assert.deepEqual(header.sources, ['coinbase'])
    assert.equal(header.from, new Date(OPENS).toISOString(), 'the engine starts at the first quoted contest')
    const markets = records.filter((r): r is MarketRecord => r.k === 'market')
    const tickers = [...new Set(markets.map((m) => (m.m as { ticker: string }).ticker))]
    assert.deepEqual(tickers, [EARLIER, TICKER], 'a contest before the spot history is left out')
    const mine = markets.filter((m) => (m.m as { ticker: string }).ticker === TICKER)
    assert.deepEqual(
      mine.map((m) => [
        m.t,
        (m.m as Record<string, unknown>).status,
        (m.m as Record<string, unknown>).result,
      ]),
      [
        [OPENS, 'active', ''],
        [OPENS + 15 * MINUTE, 'closed', ''],
        [OPENS + 16 * MINUTE, 'finalized', 'no'],
      ],
    )
    const body = (i: number) => (mine[i] as MarketRecord).m as Record<string, unknown>
    assert.equal(body(0).floor_strike, 50_020)
    assert.equal(body(2).expiration_value, '50011.10')
    const books = records.filter((r): r is BookRecord => r.k === 'book')
    assert.equal(books[0]?.t, OPENS + MINUTE)
    assert.deepEqual(books[0]?.ob, {
      orderbook_fp: { yes_dollars: [['0.3000', '1.00']], no_dollars: [['0.6000', '1.00']] },
    })
    // a YES ask of 1 is no YES ask: the NO side (YES asks) is empty
    assert.deepEqual((books.find((b) => b.t === OPENS + 14 * MINUTE + 30_000) as BookRecord).ob, {
      orderbook_fp: { yes_dollars: [['0.9990', '1.00']], no_dollars: [] },
    })
    const spot = records.filter((r) => r.k === 'spot')
    assert.deepEqual(spot[0], {
      t: OPENS - 39 * MINUTE - 1,
      k: 'spot',
      src: 'coinbase',
      px: 50_000,
      xt: OPENS - 39 * MINUTE - 1,
    })
  })

  it('replays into the contest the files describe, every reading at its boundary', async () => {
    const out = path.join(tmp.dir, 'tapes-2')
    await buildRealDataTapes(dataDir(), out)
    const store = createSqliteStore(path.join(tmp.dir, 'replayed.db'))
    await store.migrate()
    try {
      const summary = await runReplay(replayOptions(out, store))
      assert.deepEqual([summary.opened, summary.settled, summary.signals], [1, 1, 14])
      const contest = await store.getContest(TICKER)
      assert.deepEqual(
        [contest?.strikePriceDollars, contest?.settledSide, contest?.settledPriceDollars],
        [50_020, 'down', 50_011.1],
      )
      const readings = await store.listGradedReadings({ series: 'KXBTC15M' })
      assert.ok(readings.every((r) => r.inputs?.bookObservedAt === OPENS + r.minute * MINUTE))
      // minute 3's candle: YES bid 0.32, ask 0.42
      const third = readings.find((r) => r.minute === 3)
      assert.deepEqual([third?.inputs?.upAskCents, third?.inputs?.downAskCents], [42, 68])
    } finally {
      await store.close()
    }
  })

  it('answers a bad row with one line naming the file and the line, and writes nothing', async () => {
    const dir = dataDir({ quotes: [`${TICKER},${iso(OPENS + MINUTE)},0.41,abc,0.6`] })
    const out = path.join(tmp.dir, 'tapes-bad')
    const tool = path.join(import.meta.dirname, '..', 'tools', 'real-data-tapes.ts')
    const r = spawnSync(process.execPath, [tool, '--data', dir, '--out', out], { encoding: 'utf8' })
    assert.equal(r.status, 1)
    assert.equal(existsSync(out), false)
    assert.equal(
      r.stderr.trim(),
      'real-data-tapes: kalshi_kxbtc15m_1m_quotes_test.csv, line 2: "yes_bid" is not a number: abc',
    )
  })
})
