// `history import` through the real CLI against loopback history servers (test/fixtures/
// history-fixtures.ts, shapes from the reference, values constructed): two days of Kalshi written as
// day tapes with their header, replayed into a fresh SQLite store and judged by `evaluate`; a second
// run fetches nothing; 429 with Retry-After and a burst of 5xx are waited out; a missing candle stays a
// gap; a malformed answer ends in one line naming the endpoint and no day file.
import assert from 'node:assert/strict'
import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import type { TapeRecord } from '../src/tape/tape-format.ts'
import { openTape } from '../src/tape/tape-reader.ts'
import { type HistoryFixture, startHistoryFixture } from './fixtures/history-fixtures.ts'
import { kalshiImportArgs, polymarketImportArgs } from './support/history-import-args.ts'
import { runCli, tempDir } from './support/service-process.ts'

const DAY = 86_400_000
const MINUTE = 60_000
const D1 = Date.UTC(2026, 5, 10)
const D2 = D1 + DAY

async function readTape(file: string) {
  const tape = await openTape(file)
  const records: TapeRecord[] = []
  for await (const batch of tape.batches()) records.push(...batch)
  tape.close()
  return { header: tape.header, records }
}

describe('history import → replay → evaluate, Kalshi, two days across the tier cutoff and a midnight', () => {
  const tmp = tempDir()
  const out = path.join(tmp.dir, 'tapes')
  let fixture: HistoryFixture
  let first: { code: number | null; stdout: string; stderr: string }

  before(async () => {
    // D2's first three contests settle before the cutoff (historical tier), the rest after (live
    // tier); D1's last contest closes and settles at D2's first instants, in D2's file
    fixture = await startHistoryFixture({
      days: [D1, D2],
      contestHours: [22, 24],
      cutoff: D2 + 23 * 3_600_000,
    })
    first = await runCli(kalshiImportArgs(out, '2026-06-10', '2026-06-12'), fixture.env)
  })
  after(async () => {
    await fixture.close()
    tmp.remove()
  })

  it('writes one finished tape per UTC day with the minute grain and its origin in the header', async () => {
    assert.equal(first.code, 0, first.stderr)
    assert.deepEqual(readdirSync(out).sort(), ['tape-2026-06-10.ndjson.gz', 'tape-2026-06-11.ndjson.gz'])
    const { header, records } = await readTape(path.join(out, 'tape-2026-06-10.ndjson.gz'))
    assert.equal(header.venue, 'kalshi')
    assert.deepEqual(header.series, ['KXBTC15M'])
    assert.deepEqual(header.sources, ['coinbase', 'bitstamp'])
    assert.equal(header.from, '2026-06-10T00:00:00.000Z')
    assert.equal(header.to, '2026-06-11T00:00:00.000Z')
    assert.equal(header.grain, '1m')
    assert.match(header.origin, /^imported from Kalshi .+ on \d{4}-\d{2}-\d{2}$/)
    // the day opens with the assumed exchange status and each source's warm-up closes
    assert.deepEqual(records[0], {
      t: D1,
      k: 'exchange',
      status: { trading_active: true, exchange_active: true },
    })
    const warmUp = records.filter((r) => r.k === 'closes')
    assert.equal(warmUp.length, 2)
    for (const w of warmUp) {
      if (w.k !== 'closes') continue
      // at least a day and 5 minutes (the v2 model's look-back), ending with the minute before the day
      assert.ok(w.c.length >= 24 * 60 + 5, `${w.src}: ${w.c.length} closes`)
      assert.equal(w.c.at(-1)![0], D1 - MINUTE)
    }
    // a spot close 1 ms before its minute ends, a book at each candle's end
    const spot = records.filter((r) => r.k === 'spot')
    assert.equal(spot.length, 2 * 1440)
    assert.ok(spot.every((r) => (r.t + 1) % MINUTE === 0))
    // the 23:45 contest's last candle ends at midnight: it is the next day's
    const books = records.filter((r) => r.k === 'book')
    assert.equal(books.length, 8 * 15 - 1)
    assert.ok(books.every((r) => r.t % MINUTE === 0))
  })

  it('says in one line what it wrote and what it asked for, and draws no progress bar off a terminal', () => {
    assert.match(
      first.stdout,
      /^history import kalshi KXBTC15M into .+: 2 days written, 0 skipped \(already there\); 16 contests, 239 books, 5760 spot minutes, 0 gaps; \d+ requests, 0 retries\n$/,
    )
    assert.doesNotMatch(first.stderr, /\r|\[#/)
  })

  it('replays into a fresh store: every contest settled within the days (one across midnight) with the venue result, readings raised and scored', async () => {
    const db = path.join(tmp.dir, 'replay.db')
    const env = { DATABASE_URL: `sqlite:${db}` }
    const replay = await runCli(['replay', '--tape', out], env)
    assert.equal(replay.code, 0, replay.stderr)
    // the last contest settles after the last imported day: it stays open
    assert.match(replay.stdout, /16 contests opened, 15 settled \(0 void\)/)
    const store = createSqliteStore(db)
    try {
      const settled = await store.listSettled({ series: 'KXBTC15M', limit: 100 })
      assert.equal(settled.length, 15)
      for (const c of fixture.contests.slice(0, -1)) {
        const stored = settled.find((s) => s.ticker === c.ticker)
        assert.ok(stored, c.ticker)
        assert.equal(stored.settledSide, c.result === 'yes' ? 'up' : 'down', c.ticker)
        assert.equal(stored.strikePriceDollars, c.strike, c.ticker)
      }
    } finally {
      await store.close()
    }
    const evaluate = await runCli(['evaluate', '--series', 'KXBTC15M', '--json'], env)
    assert.equal(evaluate.code, 0, evaluate.stderr)
    const report = JSON.parse(evaluate.stdout)
    assert.ok(report.overall.readings >= 16 * 10, `readings ${report.overall.readings}`)
    // real history has no sandbox truth: a seed would price another world's path as if it were this one's
    const seeded = await runCli(['evaluate', '--series', 'KXBTC15M', '--sim-seed', '7'], env)
    assert.equal(seeded.code, 1, seeded.stderr)
    assert.match(
      seeded.stderr,
      /contest-signals evaluate: --sim-seed 7: the store's KXBTC15M contests are not the simulator's \(replayed from a tape whose origin is "imported from .*"\): the sandbox has no truth of them\n$/,
    )
  })

  it('a second run finds both days finished and sends no request', async () => {
    const before = fixture.requests.length
    const again = await runCli(kalshiImportArgs(out, '2026-06-10', '2026-06-12'), fixture.env)
    assert.equal(again.code, 0, again.stderr)
    assert.match(again.stdout, /: 0 days written, 2 skipped \(already there\); .* 0 requests, 0 retries\n$/)
    assert.equal(fixture.requests.length, before)
  })

  it("refuses to mix another venue's days into the directory, asking nothing", async () => {
    const before = fixture.requests.length
    const r = await runCli(polymarketImportArgs(out), fixture.env)
    assert.equal(r.code, 1)
    assert.match(
      r.stderr,
      /^contest-signals history import: .*tape-2026-06-10\.ndjson\.gz: already holds a kalshi KXBTC15M day; import polymarket btc-updown-15m into another --out\n$/,
    )
    assert.equal(fixture.requests.length, before)
  })
})

describe('history import → replay, Polymarket: closed events and the CLOB price path', () => {
  const tmp = tempDir()
  const out = path.join(tmp.dir, 'tapes')
  let fixture: HistoryFixture

  before(async () => {
    fixture = await startHistoryFixture({ days: [D1], contestHours: [10, 11], cutoff: D1 })
  })
  after(async () => {
    await fixture.close()
    tmp.remove()
  })

  it('writes each window open then resolved, a locked book per token per minute no later than its point, and replays', async () => {
    const r = await runCli(polymarketImportArgs(out), fixture.env)
    assert.equal(r.code, 0, r.stderr)
    assert.match(
      r.stdout,
      /^history import polymarket btc-updown-15m .*: 1 day written, .* 4 contests, 120 books, 2880 spot minutes, 0 gaps;/,
    )
    const { header, records } = await readTape(path.join(out, 'tape-2026-06-10.ndjson.gz'))
    assert.equal(header.venue, 'polymarket')
    assert.deepEqual(header.series, ['btc-updown-15m'])
    assert.equal(header.grain, '1m')
    const w = fixture.contests[0]!
    const bodies = records.filter((x) => x.k === 'market' && (x.m as { slug: string }).slug === w.slug)
    assert.deepEqual(
      bodies.map((x) => x.t),
      [w.opensAt, w.closesAt + MINUTE],
    )
    const [open, resolved] = bodies.map((x) => (x.k === 'market' ? (x.m as Record<string, unknown>) : {}))
    assert.equal(open!.closed, false)
    assert.equal(open!.eventMetadata, undefined)
    assert.equal(resolved!.closed, true)
    // the point a book shows is never stamped after the book's instant
    const books = records.filter((x) => x.k === 'book' && x.ticker === w.slug)
    assert.equal(books.length, 2 * 15)
    for (const b of books) {
      const ob = (b.k === 'book' ? b.ob : {}) as {
        timestamp: string
        bids: { price: string }[]
        asks: { price: string }[]
      }
      assert.ok(Number(ob.timestamp) <= b.t && Number(ob.timestamp) > b.t - 90_000)
      assert.equal(ob.bids[0]!.price, ob.asks[0]!.price)
    }

    const db = path.join(tmp.dir, 'replay.db')
    const replay = await runCli(['replay', '--tape', out], { DATABASE_URL: `sqlite:${db}` })
    assert.equal(replay.code, 0, replay.stderr)
    assert.match(replay.stdout, /4 contests opened, 4 settled \(0 void\)/)
    const store = createSqliteStore(db)
    try {
      const settled = await store.listSettled({ series: 'btc-updown-15m', limit: 10 })
      for (const c of fixture.contests) {
        const stored = settled.find((s) => s.ticker === c.slug)
        assert.ok(stored, c.slug)
        assert.equal(stored.settledSide, c.expiration >= c.strike ? 'up' : 'down', c.slug)
      }
    } finally {
      await store.close()
    }
    const evaluate = await runCli(['evaluate', '--series', 'btc-updown-15m', '--json'], {
      DATABASE_URL: `sqlite:${db}`,
    })
    assert.equal(evaluate.code, 0, evaluate.stderr)
    assert.ok(JSON.parse(evaluate.stdout).overall.readings >= 4 * 10, evaluate.stdout.slice(0, 200))
  })
})

// Gamma shows a window not resolved yet as open, or as closed with its resolution only proposed
// (venue facts §3.3.6): either way the day waits
for (const shown of ['open', 'proposed'] as const)
  describe(`history import, Polymarket: a window not resolved yet (${shown} on Gamma) holds its day for a later run`, () => {
    const tmp = tempDir()
    const out = path.join(tmp.dir, 'tapes')
    let fixture: HistoryFixture
    const importDay = () => runCli(polymarketImportArgs(out), fixture.env)

    // the 10:30 window ended long ago, but the venue has not resolved it yet
    const lateSlug = `btc-updown-15m-${(D1 + 10.5 * 3_600_000) / 1000}`

    before(async () => {
      fixture = await startHistoryFixture({
        days: [D1],
        contestHours: [10, 11],
        cutoff: D1,
        unresolved: [lateSlug],
        forms: { gammaUnresolved: shown },
      })
    })
    after(async () => {
      await fixture.close()
      tmp.remove()
    })

    it('writes no file for the day while a window is unresolved, says so, and writes it whole once resolved', async () => {
      const late = fixture.contests.find((c) => c.slug === lateSlug)!

      const first = await importDay()
      assert.equal(first.code, 0, first.stderr)
      assert.match(
        first.stderr,
        new RegExp(`2026-06-10 left for a later run: 1 window not resolved yet \\(${late.slug}\\)`),
      )
      assert.match(
        first.stdout,
        /: 0 days written, 0 skipped \(already there\), 1 left for a later run \(not resolved yet\);/,
      )
      assert.ok(!existsSync(path.join(out, 'tape-2026-06-10.ndjson.gz')))

      fixture.resolve(late.slug)
      const again = await importDay()
      assert.equal(again.code, 0, again.stderr)
      assert.match(again.stdout, /: 1 day written, 0 skipped \(already there\); 4 contests,/)
      const { records } = await readTape(path.join(out, 'tape-2026-06-10.ndjson.gz'))
      const opened = records.filter((x) => x.k === 'market' && (x.m as { slug: string }).slug === late.slug)
      assert.deepEqual(
        opened.map((x) => x.t),
        [late.opensAt, late.closesAt + MINUTE],
      )
    })
  })

describe('history import, Kalshi: a market not settled yet holds its day, and a late settlement is found', () => {
  const tmp = tempDir()
  const out = path.join(tmp.dir, 'tapes')
  let fixture: HistoryFixture
  const importDays = (until: string) => runCli(kalshiImportArgs(out, '2026-06-10', until), fixture.env)

  before(async () => {
    // every market after the cutoff (the live tier); the 22:15–22:30 one closed but is unsettled
    fixture = await startHistoryFixture({
      days: [D1],
      contestHours: [22, 23],
      cutoff: D1,
      kalshiUnsettled: ['KXBTC15M-26JUN101830-30'],
    })
  })
  after(async () => {
    await fixture.close()
    tmp.remove()
  })

  it('writes no file for the day while a market is unsettled, says so, and writes it once settled, its settlement in the day it came', async () => {
    const late = fixture.contests.find((c) => c.ticker === 'KXBTC15M-26JUN101830-30')
    assert.ok(late, `the fixture names its contests as the venue does: ${fixture.contests[1]?.ticker}`)
    assert.equal(late.closesAt, D1 + 22.5 * 3_600_000)

    const first = await importDays('2026-06-11')
    assert.equal(first.code, 0, first.stderr)
    assert.match(
      first.stderr,
      new RegExp(`2026-06-10 left for a later run: 1 window not resolved yet \\(${late.ticker}\\)`),
    )
    assert.ok(!existsSync(path.join(out, 'tape-2026-06-10.ndjson.gz')))

    // settled five hours after its day ended: outside the settled listing's range for either day
    const settledAt = D2 + 5 * 3_600_000
    fixture.settleKalshi(late.ticker, settledAt)
    const again = await importDays('2026-06-12')
    assert.equal(again.code, 0, again.stderr)
    assert.match(again.stdout, /: 2 days written, 0 skipped \(already there\); 4 contests,/)
    const day1 = await readTape(path.join(out, 'tape-2026-06-10.ndjson.gz'))
    const day2 = await readTape(path.join(out, 'tape-2026-06-11.ndjson.gz'))
    const marketRecords = (records: TapeRecord[]) =>
      records.flatMap((x) => {
        if (x.k !== 'market') return []
        const m = x.m as { ticker: string; status: string; result: string }
        return m.ticker === late.ticker ? [{ t: x.t, status: m.status, result: m.result }] : []
      })
    assert.deepEqual(marketRecords(day1.records), [
      { t: late.opensAt, status: 'active', result: '' },
      { t: late.closesAt, status: 'closed', result: '' },
    ])
    // the settlement record came with the day it was made in
    assert.deepEqual(marketRecords(day2.records), [
      { t: settledAt, status: 'finalized', result: late.result },
    ])
  })
})
