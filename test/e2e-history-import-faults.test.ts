// `history import` through the real CLI when the history servers misbehave (test/fixtures/
// history-fixtures.ts): a 429 with Retry-After is waited out as asked, a burst of 5xx is retried, a
// minute the venue or an exchange has no data for stays a gap on the tape, and an answer that is not
// JSON or not the documented shape ends in one line naming the endpoint, a non-zero exit and no day file.
import assert from 'node:assert/strict'
import { existsSync, readdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, describe, it } from 'node:test'
import type { TapeRecord } from '../src/tape/tape-format.ts'
import { openTape } from '../src/tape/tape-reader.ts'
import {
  type HistoryFixture,
  type HistoryFixtureOptions,
  startHistoryFixture,
} from './fixtures/history-fixtures.ts'
import { kalshiImportArgs } from './support/history-import-args.ts'
import { runCli, tempDir } from './support/service-process.ts'

const MINUTE = 60_000
const DAY_START = Date.UTC(2026, 5, 10)
const DAY_FILE = 'tape-2026-06-10.ndjson.gz'
// every contest of the day settled long before the cutoff: the historical tier only
const ONE_DAY: HistoryFixtureOptions = {
  days: [DAY_START],
  contestHours: [10, 11],
  cutoff: DAY_START + 30 * 86_400_000,
}

async function records(file: string): Promise<TapeRecord[]> {
  const tape = await openTape(file)
  const out: TapeRecord[] = []
  for await (const batch of tape.batches()) out.push(...batch)
  tape.close()
  return out
}

describe('history import when the venues misbehave', () => {
  let fixture: HistoryFixture | null = null
  let tmp: ReturnType<typeof tempDir> | null = null
  const start = async (opts: HistoryFixtureOptions = ONE_DAY) => {
    fixture = await startHistoryFixture(opts)
    tmp = tempDir()
    return { fixture, out: path.join(tmp.dir, 'tapes') }
  }
  const importDay = (f: HistoryFixture, out: string) =>
    runCli(kalshiImportArgs(out, '2026-06-10', '2026-06-11'), f.env)
  afterEach(async () => {
    await fixture?.close()
    tmp?.remove()
  })

  it('waits as long as a 429 Retry-After asks, then imports the day', async () => {
    const { fixture: f, out } = await start()
    f.fail('kalshi', '/trade-api/v2/historical/cutoff', [{ status: 429, retryAfter: '2' }])
    const r = await importDay(f, out)
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /1 day written, .* 1 retries\n$/)
    const asked = f.requests.filter((q) => q.host === 'kalshi' && q.path.endsWith('/historical/cutoff'))
    assert.equal(asked.length, 2)
    assert.ok(asked[1]!.at - asked[0]!.at >= 1_900, `retried after ${asked[1]!.at - asked[0]!.at} ms`)
    assert.ok(existsSync(path.join(out, DAY_FILE)))
  })

  it('retries a burst of 5xx from an exchange and still writes every minute', async () => {
    const { fixture: f, out } = await start()
    f.fail('coinbase', '/products/BTC-USD/candles', [{ status: 503 }, { status: 502 }, { status: 500 }])
    const r = await importDay(f, out)
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /1 day written, .* 2880 spot minutes, 0 gaps; \d+ requests, 3 retries\n$/)
  })

  it('keeps a minute without a candle or a close as a gap, never filled', async () => {
    const gapMinute = DAY_START + 10 * 60 * MINUTE + 5 * MINUTE
    const { fixture: f, out } = await start({
      ...ONE_DAY,
      missingCandles: [`KXBTC15M-26JUN100615-15@${gapMinute}`],
      missingSpot: [`coinbase@${gapMinute}`],
    })
    const r = await importDay(f, out)
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /4 contests, 59 books, 2879 spot minutes, 2 gaps;/)
    const tape = await records(path.join(out, DAY_FILE))
    const ticker = f.contests[0]!.ticker
    assert.equal(ticker, 'KXBTC15M-26JUN100615-15')
    const books = tape.filter((x) => x.k === 'book' && x.ticker === ticker).map((x) => x.t)
    assert.ok(!books.includes(gapMinute))
    assert.ok(books.includes(gapMinute - MINUTE) && books.includes(gapMinute + MINUTE))
    const spotAt = (src: string) =>
      tape.some((x) => x.k === 'spot' && x.src === src && x.t === gapMinute + MINUTE - 1)
    assert.equal(spotAt('coinbase'), false)
    assert.equal(spotAt('bitstamp'), true)
  })

  it('says in one line that --out is a file, and asks the venue nothing', async () => {
    const { fixture: f, out } = await start()
    writeFileSync(out, 'not a directory')
    const r = await importDay(f, out)
    assert.equal(r.code, 1)
    assert.equal(
      r.stderr,
      `contest-signals history import: --out ${out}: is a file, not a directory: name a directory for the day files\n`,
    )
    assert.equal(f.requests.length, 0)
  })

  it('names the endpoint in one line and writes no day when an answer is not JSON', async () => {
    const { fixture: f, out } = await start()
    f.fail('kalshi', '/trade-api/v2/historical/markets', [{ status: 200, body: '<html>maintenance</html>' }])
    const r = await importDay(f, out)
    assert.equal(r.code, 1)
    assert.equal(
      r.stderr,
      'contest-signals history import: kalshi GET /historical/markets: the answer is not JSON\n',
    )
    assert.equal(r.stdout, '')
    assert.deepEqual(existsSync(out) ? readdirSync(out).filter((n) => !n.startsWith('.')) : [], [])
  })

  it('names the endpoint and the problem when an answer has the wrong shape', async () => {
    const { fixture: f, out } = await start()
    f.fail('bitstamp', '/api/v2/ohlc/btcusd/', [{ status: 200, body: '{"data": {"pair": "BTC/USD"}}' }])
    const r = await importDay(f, out)
    assert.equal(r.code, 1)
    assert.match(
      r.stderr,
      /^contest-signals history import: bitstamp GET \/api\/v2\/ohlc\/btcusd\/: unexpected answer: .*ohlc.*\n$/,
    )
    assert.equal(existsSync(path.join(out, DAY_FILE)), false)
  })
})
