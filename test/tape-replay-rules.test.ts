// Replay semantics (decisions §12) on hand-built tapes, and the answers the real CLI gives to bad
// tapes: one line naming the line and what is wrong, a non-zero exit, and a store left valid.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import { gzipSync } from 'node:zlib'
import type { Contest } from '../src/domain/contest.ts'
import { runReplay } from '../src/main/replay.ts'
import type { Store } from '../src/ports/store.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import type { TapeHeader, TapeRecord } from '../src/tape/tape-format.ts'
import { dropSchema, uniqueSchemaUrl } from './support/postgres.ts'
import { replayOptions } from './support/replay-options.ts'
import { runCli, tempDir } from './support/service-process.ts'
import {
  CLOSES,
  MINUTE,
  OPENS,
  STRIKE,
  TAPE_BOOK,
  TICKER,
  tapeMarket,
} from './support/tape-kalshi-contest.ts'

const SERIES = 'KXBTC15M'
const SOURCES = ['coinbase', 'kraken', 'bitstamp']
const at = (minute: number, ms = 0): number => OPENS + minute * MINUTE + ms

const header: TapeHeader = {
  tape: 1,
  venue: 'kalshi',
  series: [SERIES],
  sources: SOURCES,
  from: new Date(OPENS).toISOString(),
  to: new Date(CLOSES + 2 * MINUTE).toISOString(),
  origin: 'hand-built test tape',
}

/**
 * One contest: spot 1 % under the strike (a clear `down`) from 70 minutes before the open, every
 * source once a second; the market listed, opened, closed and finalized; books only where `books` says.
 */
function contestTape(books: number[], extra: TapeRecord[] = []): TapeRecord[] {
  const records: TapeRecord[] = [{ t: OPENS - 70 * MINUTE, k: 'exchange', status: { trading_active: true } }]
  for (let t = OPENS - 70 * MINUTE; t <= CLOSES + MINUTE; t += 1000) {
    const px = 99_000 + ((t / 1000) % 2 === 0 ? 3 : -3)
    for (const src of SOURCES) records.push({ t, k: 'spot', src, px })
  }
  records.push({ t: OPENS - 15 * MINUTE, k: 'market', m: tapeMarket('initialized') })
  records.push({ t: OPENS, k: 'market', m: tapeMarket('active') })
  records.push({ t: CLOSES, k: 'market', m: tapeMarket('closed') })
  records.push({
    t: CLOSES + 10_000,
    k: 'market',
    m: tapeMarket('finalized', { result: 'no', expiration_value: '98,990.12' }),
  })
  for (const t of books) records.push({ t, k: 'book', ticker: TICKER, ob: TAPE_BOOK })
  records.push(...extra)
  // stable: records of one instant keep the order they were pushed in
  return records.sort((a, b) => a.t - b.t)
}

const tmp = tempDir('cs-tape-rules-')
after(() => tmp.remove())
let files = 0
function writeTape(lines: string[], gz = false): string {
  const file = path.join(tmp.dir, `tape-${++files}.ndjson${gz ? '.gz' : ''}`)
  const text = lines.map((l) => `${l}\n`).join('')
  writeFileSync(file, gz ? gzipSync(text) : text)
  return file
}
const tapeLines = (records: TapeRecord[], h: object = header): string[] => [
  JSON.stringify(h),
  ...records.map((r) => JSON.stringify(r)),
]

async function replayInto(
  file: string,
  readingMaxLateMs = 10_000,
): Promise<{ store: Store; contest: Contest | null; skipped: Record<string, number> }> {
  const store = createSqliteStore(path.join(tmp.dir, `store-${++files}.db`))
  await store.migrate()
  const summary = await runReplay(replayOptions(file, store, { readingMaxLateMs }))
  assert.equal(summary.stopped, null)
  return { store, contest: await store.getContest(TICKER), skipped: summary.skipped }
}

describe('replay: nothing after t is visible at t', () => {
  it('answers a book request from a book up to 5 s after it, retries as live, and raises when the book came', async () => {
    const { store, contest, skipped } = await replayInto(
      writeTape(tapeLines(contestTape([at(1, 5_000), at(2, 6_000), at(3), at(4, 10_500)]))),
    )
    try {
      assert.ok(contest)
      // minute 2's book is past the first request's 5 s and a retry a tick later has it; minute 4's
      // comes 10.5 s after its boundary, past READING_MAX_LATE_S
      assert.deepEqual(
        contest.signals.map((s) => s.minute),
        [1, 2, 3],
      )
      assert.deepEqual(
        contest.signals.map((s) => s.raisedAt),
        [at(1, 5_000), at(2, 6_000), at(3)],
        'a reading is made when its last input came, not at the boundary',
      )
      const [reading] = await store.listGradedReadings({ series: SERIES })
      assert.equal(reading?.inputs?.bookObservedAt, at(1, 5_000))
      assert.equal(reading?.inputs?.spotObservedAt, at(1, 5_000))
      assert.equal(contest.signals[0]?.entryPriceCents, 60)
      assert.deepEqual(skipped, { late: 11 })
      assert.equal(contest.settledSide, 'down')
      assert.equal(contest.settledPriceDollars, 98_990.12)
    } finally {
      await store.close()
    }
  })

  it('skips as late a minute whose book came within 5 s of its boundary but past READING_MAX_LATE_S', async () => {
    const { store, contest, skipped } = await replayInto(
      writeTape(tapeLines(contestTape([at(1, 4_000), at(2, 2_000)]))),
      3_000,
    )
    try {
      assert.deepEqual(
        contest?.signals.map((s) => [s.minute, s.raisedAt]),
        [[2, at(2, 2_000)]],
      )
      assert.deepEqual(skipped, { late: 13 })
    } finally {
      await store.close()
    }
  })

  it('does not let a spot record after t move the reading at t', async () => {
    // a print far above the strike 1 ms after minute 3's boundary (and its book) would turn the
    // reading to `up` if it were seen; the same print at the boundary itself does
    const spike = (t: number): TapeRecord[] => SOURCES.map((src) => ({ t, k: 'spot', src, px: 101_500 }))
    const after1ms = await replayInto(writeTape(tapeLines(contestTape([at(3)], spike(at(3, 1))))))
    const atBoundary = await replayInto(writeTape(tapeLines(contestTape([at(3)], spike(at(3))))))
    try {
      assert.equal(after1ms.contest?.signals[0]?.minute, 3)
      assert.equal(after1ms.contest?.signals[0]?.side, 'down')
      assert.equal(atBoundary.contest?.signals[0]?.side, 'up')
    } finally {
      await after1ms.store.close()
      await atBoundary.store.close()
    }
  })
})

describe('replay: a market record as another writer may record it', () => {
  it('reads `m` holding GET /markets/{ticker}’s whole body ({"market": {…}}) as the Market object inside it', async () => {
    const books = Array.from({ length: 14 }, (_, i) => at(i + 1))
    const wrapped = contestTape(books).map((r) => (r.k === 'market' ? { ...r, m: { market: r.m } } : r))
    const { store, contest } = await replayInto(writeTape(tapeLines(wrapped)))
    try {
      assert.ok(contest, 'the wrapped bodies make the contest')
      assert.equal(contest.strikePriceDollars, STRIKE)
      assert.equal(contest.signals.length, 14)
      assert.equal(contest.settledSide, 'down')
      assert.equal(contest.settledPriceDollars, 98_990.12)
    } finally {
      await store.close()
    }
  })
})

describe('replay: the recorded exchange status', () => {
  it('raises no reading while the recorded exchange says trading is paused, as live', async () => {
    const books = Array.from({ length: 14 }, (_, i) => at(i + 1))
    const status = (t: number, trading: boolean): TapeRecord => ({
      t,
      k: 'exchange',
      status: { exchange_active: true, trading_active: trading },
    })
    const { store, contest, skipped } = await replayInto(
      writeTape(tapeLines(contestTape(books, [status(at(2, 30_000), false), status(at(5, 30_000), true)]))),
    )
    try {
      assert.ok(contest)
      assert.deepEqual(
        contest.signals.map((s) => s.minute),
        [1, 2, 6, 7, 8, 9, 10, 11, 12, 13, 14],
      )
      assert.equal(skipped.paused, 3)
    } finally {
      await store.close()
    }
  })

  it('skips as paused, not as a book without asks, the minutes of a market the venue shows `inactive` (paused inside its window)', async () => {
    const books = Array.from({ length: 14 }, (_, i) => at(i + 1))
    const shown = (t: number, status: string): TapeRecord => ({ t, k: 'market', m: tapeMarket(status) })
    const { store, contest, skipped } = await replayInto(
      writeTape(
        tapeLines(contestTape(books, [shown(at(2, 30_000), 'inactive'), shown(at(5, 30_000), 'active')])),
      ),
    )
    try {
      assert.ok(contest)
      assert.deepEqual(
        contest.signals.map((s) => s.minute),
        [1, 2, 6, 7, 8, 9, 10, 11, 12, 13, 14],
      )
      assert.deepEqual(skipped, { paused: 3 })
    } finally {
      await store.close()
    }
  })
})

describe('replay: nothing after --to', () => {
  it('answers no book request from a book after --to: no signal is raised after it, and the clock stops there', async () => {
    const to = at(2, 1000)
    const store = createSqliteStore(path.join(tmp.dir, `store-${++files}.db`))
    await store.migrate()
    try {
      // minute 2's only book comes 3 s after its boundary: 2 s after --to
      const summary = await runReplay(
        replayOptions(writeTape(tapeLines(contestTape([at(1), at(2, 3000)]))), store, { to }),
      )
      assert.equal(summary.stopped, null)
      assert.ok(summary.reached <= to, new Date(summary.reached).toISOString())
      const contest = await store.getContest(TICKER)
      assert.deepEqual(
        contest?.signals.map((s) => s.minute),
        [1],
      )
      for (const s of contest?.signals ?? []) assert.ok(s.raisedAt <= to)
    } finally {
      await store.close()
    }
  })
})

describe('contest-signals replay (the CLI) on bad tapes', () => {
  const good = contestTape([at(1), at(2)])
  const replay = async (file: string, db = path.join(tmp.dir, `cli-${++files}.db`), more: string[] = []) => {
    const r = await runCli(['replay', '--tape', file, ...more], { DATABASE_URL: `sqlite:${db}` })
    return { ...r, db }
  }
  const oneLine = (stderr: string): string => {
    const lines = stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('contest-signals replay:'))
    assert.equal(lines.length, 1, stderr)
    return lines[0] as string
  }

  const cases: [string, () => string, RegExp][] = [
    [
      'a missing header',
      () => writeTape(tapeLines(good).slice(1)),
      /line 1: the first line is not a tape header/,
    ],
    [
      'a wrong header',
      () => writeTape(tapeLines(good, { ...header, tape: 7 })),
      /line 1: unsupported tape version 7/,
    ],
    [
      'a t that goes back',
      () => {
        const lines = tapeLines(good)
        lines.splice(100, 0, JSON.stringify({ t: OPENS - 80 * MINUTE, k: 'spot', src: 'kraken', px: 1 }))
        return writeTape(lines)
      },
      /line 101: "t" goes back in time/,
    ],
    [
      'a line that is not JSON',
      () => {
        const lines = tapeLines(good)
        lines.splice(5, 0, 'not json at all')
        return writeTape(lines)
      },
      /line 6: not JSON/,
    ],
    [
      'a truncated file',
      () => {
        const file = writeTape(tapeLines(good))
        const text = tapeLines(good).join('\n')
        writeFileSync(file, text.slice(0, text.length - 10))
        return file
      },
      new RegExp(`line ${good.length + 1}: the file ends inside this line`),
    ],
    [
      'an unknown venue',
      () => writeTape(tapeLines(good, { ...header, venue: 'nasdaq' })),
      /line 1: unknown venue "nasdaq"/,
    ],
    [
      // VENUE takes a list (decisions §14), so another writer may name both venues of one recording
      'a header naming several venues',
      () => writeTape(tapeLines(good, { ...header, venue: 'kalshi,polymarket' })),
      /line 1: a tape holds one venue's records, and "kalshi,polymarket" names 2: write one tape per venue and replay each into the same store$/,
    ],
    [
      // a series prefix names its venue (decisions §14): the wrong adapter would find no market of it
      'a header whose venue is not its series’ venue',
      () => writeTape(tapeLines(good, { ...header, venue: 'polymarket' })),
      /line 1: series KXBTC15M is a kalshi series, and the header says venue "polymarket"/,
    ],
    [
      'a header naming another venue’s series',
      () => writeTape(tapeLines(good, { ...header, series: ['KXBTC15M', 'btc-updown-15m'] })),
      /line 1: series btc-updown-15m is a polymarket series, and the header says venue "kalshi"/,
    ],
  ]
  for (const [what, make, message] of cases) {
    it(`refuses ${what} with one line naming it, and a non-zero exit`, async () => {
      const { code, stderr, db } = await replay(make())
      assert.equal(code, 1, stderr)
      assert.match(oneLine(stderr), message)
      // a header is judged before anything is written
      if (/line 1:/.test(message.source)) assert.equal(existsSync(db), false, 'no store was made for it')
    })
  }

  it('refuses a missing tape and a series not on it before making any store', async () => {
    const missing = await replay(path.join(tmp.dir, 'no-such-tape.ndjson'))
    assert.equal(missing.code, 1, missing.stderr)
    assert.match(oneLine(missing.stderr), /no-such-tape\.ndjson/)
    assert.equal(existsSync(missing.db), false, 'no store was made for it')
    const db = path.join(tmp.dir, `cli-${++files}.db`)
    const other = await runCli(['replay', '--tape', writeTape(tapeLines(good)), '--series', 'KXETH15M'], {
      DATABASE_URL: `sqlite:${db}`,
    })
    assert.equal(other.code, 1, other.stderr)
    assert.match(oneLine(other.stderr), /series KXETH15M is not on this tape \(it has KXBTC15M\)/)
    assert.equal(existsSync(db), false, 'no store was made for it')
  })

  it('reads a gzip tape whose last member is truncated, saying so, and replays what is whole', async () => {
    const full = gzipSync(
      tapeLines(good)
        .map((l) => `${l}\n`)
        .join(''),
    )
    const cut = gzipSync(`${JSON.stringify({ t: CLOSES + 5 * MINUTE, k: 'spot', src: 'kraken', px: 1 })}\n`)
    const file = path.join(tmp.dir, 'cut.ndjson.gz')
    writeFileSync(file, Buffer.concat([full, cut.subarray(0, cut.length - 12)]))
    const { code, stdout, stderr } = await replay(file)
    assert.equal(code, 0, stderr)
    assert.match(stderr, /the last gzip member is truncated; read up to line \d+, the last complete line/)
    assert.match(
      stdout,
      /replay KXBTC15M: 1 contests opened, 1 settled \(0 void\), 2 signals raised, minutes skipped: late 12;/,
    )
  })

  it('stops wherever a line is bad in a directory of gzip day files, naming the file and the line', async () => {
    // the contest's tape cut into two day files of several gzip members each, as the recorder writes them
    const lines = tapeLines(good)
    const records = lines.slice(1)
    const split = Math.floor(records.length / 2)
    const dayFile = (dir: string, name: string, body: string[]): string => {
      const file = path.join(dir, name)
      const members = [0, 1, 2].map((i) => {
        const part = body.slice(Math.floor((i * body.length) / 3), Math.floor(((i + 1) * body.length) / 3))
        return gzipSync(part.map((l) => `${l}\n`).join(''))
      })
      writeFileSync(file, Buffer.concat(members))
      return file
    }
    const settledAt = records.findIndex((l) => l.includes('"finalized"'))
    // in the first file's first member, the second file's middle member, and its last line
    for (const [fileIndex, at] of [
      [0, 3],
      [1, Math.floor((records.length - split) / 2)],
      [1, records.length - split],
    ] as const) {
      const dir = path.join(tmp.dir, `days-${fileIndex}-${at}`)
      mkdirSync(dir)
      const parts = [records.slice(0, split), records.slice(split)]
      const part = parts[fileIndex] as string[]
      part.splice(at, 0, 'not json at all')
      dayFile(dir, 'tape-2026-11-20.ndjson.gz', [lines[0] as string, ...(parts[0] as string[])])
      const bad = dayFile(dir, 'tape-2026-11-21.ndjson.gz', [lines[0] as string, ...(parts[1] as string[])])
      const badFile = fileIndex === 0 ? path.join(dir, 'tape-2026-11-20.ndjson.gz') : bad
      const { code, stderr, db } = await replay(dir)
      assert.equal(code, 1, stderr)
      const inLookBack =
        (JSON.parse(records[(fileIndex === 0 ? 0 : split) + at - 1]!) as TapeRecord).t < OPENS
      assert.match(
        oneLine(stderr),
        // a bad line after a record before the contest opens is in the replay's look-back
        new RegExp(
          `the tape ${badFile} is bad at line ${at + 2}: not JSON; ${inLookBack ? 'in the look-back before' : 'stopped at'}`,
        ),
      )
      // a replay that wrote nothing made no store
      assert.equal(existsSync(db), !inLookBack, `bad line ${at} of file ${fileIndex}`)
      if (inLookBack) continue
      // nothing after the bad line was played: the settlement comes after it in the second file
      const store = createSqliteStore(db)
      try {
        const contest = await store.getContest(TICKER)
        if (split + at <= settledAt)
          assert.notEqual(contest?.state, 'settled', `bad line ${at} of file ${fileIndex}`)
      } finally {
        await store.close()
      }
    }
  })

  it('refuses a gzip member cut short in the middle of a tape: only a cut last member is accepted', async () => {
    const body = tapeLines(good).map((l) => `${l}\n`)
    const third = Math.floor(body.length / 3)
    const cut = gzipSync(body.slice(third, 2 * third).join(''))
    const file = path.join(tmp.dir, 'cut-in-the-middle.ndjson.gz')
    writeFileSync(
      file,
      Buffer.concat([
        gzipSync(body.slice(0, third).join('')),
        cut.subarray(0, cut.length - 12),
        gzipSync(body.slice(2 * third).join('')),
      ]),
    )
    const { code, stderr } = await replay(file)
    assert.equal(code, 1, stderr)
    assert.match(oneLine(stderr), new RegExp(`${file}.* is bad at line \\d+|bad tape ${file}: line \\d+`))
  })

  it('refuses a store that already holds contests of the series', async () => {
    const file = writeTape(tapeLines(good))
    const first = await replay(file)
    assert.equal(first.code, 0, first.stderr)
    const again = await replay(file, first.db)
    assert.equal(again.code, 1)
    assert.match(oneLine(again.stderr), /the store already holds contests of KXBTC15M/)
  })

  it('stops at a bad line part-way, saying where, with everything before it committed', async () => {
    const lines = tapeLines(good)
    // the bad line comes after the contest settled
    const settledAt = lines.findIndex((l) => l.includes('"finalized"'))
    lines.splice(settledAt + 10, 0, '{"t":')
    const { code, stdout, stderr, db } = await replay(writeTape(lines))
    assert.equal(code, 1)
    assert.match(stdout, /1 contests opened, 1 settled/)
    assert.match(
      oneLine(stderr),
      new RegExp(
        `the tape \\S+\\.ndjson is bad at line ${settledAt + 11}: not JSON; stopped at 2026-11-20T17:15:`,
      ),
    )
    const store = createSqliteStore(db)
    try {
      const contest = await store.getContest(TICKER)
      assert.equal(contest?.state, 'settled')
      assert.equal(contest?.signals.length, 2)
    } finally {
      await store.close()
    }
  })

  it('names a bad line in the look-back before --from as such, with the time of the last good record', async () => {
    const lines = tapeLines(good)
    // after the last record of 16:30, half an hour before the open: spot history the model looks back on
    const lookBack = at(-30)
    const after = lines.findLastIndex((l, i) => i > 0 && (JSON.parse(l) as TapeRecord).t <= lookBack)
    lines.splice(after + 1, 0, 'not json at all')
    const from = new Date(at(5)).toISOString()
    const { code, stderr, db } = await replay(writeTape(lines), undefined, ['--from', from])
    assert.equal(code, 1, stderr)
    const said = oneLine(stderr)
    assert.match(
      said,
      new RegExp(
        `the tape \\S+\\.ndjson is bad at line ${after + 2}: not JSON; in the look-back before the replay's start ${from} \\(after the record at ${new Date(lookBack).toISOString()}\\): nothing was replayed$`,
      ),
    )
    assert.doesNotMatch(said, /stopped at/, 'it did not stop at --from: it never got there')
    assert.equal(existsSync(db), false, 'nothing was written: no store was made')
  })

  it('replays into PostgreSQL as into SQLite, and refuses it the second time', async () => {
    const url = uniqueSchemaUrl('replay')
    try {
      const file = writeTape(tapeLines(good))
      const first = await runCli(['replay', '--tape', file], { DATABASE_URL: url })
      assert.equal(first.code, 0, first.stderr)
      assert.match(first.stdout, /1 contests opened, 1 settled \(0 void\), 2 signals raised/)
      const again = await runCli(['replay', '--tape', file], { DATABASE_URL: url })
      assert.equal(again.code, 1)
      assert.match(oneLine(again.stderr), /the store already holds contests of KXBTC15M/)
    } finally {
      await dropSchema(url)
    }
  })

  it('skips a market body the adapter rejects, naming the field, exactly as live', async () => {
    const bad = good.map((r) =>
      r.k === 'market' && (r.m as { status: string }).status === 'closed'
        ? { ...r, m: { ...(r.m as object), close_time: 'soon' } }
        : r,
    )
    const file = writeTape(tapeLines(bad))
    const { code, stderr } = await replay(file)
    assert.equal(code, 0, stderr)
    const warning = stderr.split('\n').find((l) => l.includes('kalshi market malformed; skipped'))
    assert.ok(warning, stderr)
    // the first rejected body is the one warned of, named by its place on the tape (the header is line 1)
    const first = bad.findIndex(
      (r) => r.k === 'market' && (r.m as { close_time: string }).close_time === 'soon',
    )
    assert.deepEqual((({ field, tape, line }) => ({ field, tape, line }))(JSON.parse(warning)), {
      field: 'close_time',
      tape: file,
      line: first + 2,
    })
  })

  it('refuses a --to before the tape’s start as a usage error, in one line, making no store', async () => {
    const file = writeTape(tapeLines(good))
    for (const to of [new Date(OPENS - 30 * MINUTE).toISOString(), header.from]) {
      const { code, stdout, stderr, db } = await replay(file, undefined, ['--to', to])
      assert.equal(code, 2, stderr)
      assert.equal(stdout, '')
      assert.equal(
        oneLine(stderr),
        `contest-signals replay: --to ${to} is not after the replay's start ${header.from} (the tape's start): nothing would be replayed (see contest-signals replay --help)`,
      )
      assert.equal(existsSync(db), false, 'no store was made for it')
    }
  })

  it('refuses a header whose "from" is after its "to" as a bad header at line 1 of its file', async () => {
    const backwards = { ...header, from: header.to, to: header.from }
    const file = writeTape(tapeLines(good, backwards))
    const { code, stderr, db } = await replay(file)
    assert.equal(code, 1, stderr)
    assert.equal(
      oneLine(stderr),
      `contest-signals replay: bad tape ${file}: line 1: header "from" ${header.to} is after its "to" ${header.from}`,
    )
    assert.equal(existsSync(db), false, 'no store was made for it')
    // in a directory of day files, the file that holds it
    const dir = path.join(tmp.dir, `backwards-${++files}`)
    mkdirSync(dir)
    writeFileSync(path.join(dir, 'tape-2026-11-20.ndjson'), `${tapeLines(good).join('\n')}\n`)
    writeFileSync(path.join(dir, 'tape-2026-11-21.ndjson'), `${JSON.stringify(backwards)}\n`)
    const inDir = await replay(dir)
    assert.equal(inDir.code, 1, inDir.stderr)
    assert.match(
      oneLine(inDir.stderr),
      /bad tape \S+\/tape-2026-11-21\.ndjson: line 1: header "from" .* is after its "to"/,
    )
  })

  it('says plainly that the chosen period holds no records, with a non-zero exit', async () => {
    const headerOnly = await replay(writeTape(tapeLines([])))
    assert.equal(headerOnly.code, 1, headerOnly.stderr)
    assert.equal(
      oneLine(headerOnly.stderr),
      'contest-signals replay: the tape holds no records (a header alone): nothing to replay',
    )
    assert.equal(headerOnly.stdout, '')
    const file = writeTape(tapeLines(good))
    const past = new Date(CLOSES + 30 * MINUTE).toISOString()
    const afterEnd = await replay(file, undefined, ['--from', past])
    assert.equal(afterEnd.code, 1, afterEnd.stderr)
    assert.equal(
      oneLine(afterEnd.stderr),
      `contest-signals replay: the chosen period holds no records: --from ${past} is not before the tape's end ${header.to}; nothing was replayed`,
    )
    // after the last record, before the end the header gives: known once the tape is read
    const last = good.at(-1) as TapeRecord
    const between = new Date(last.t + 30_000).toISOString()
    const afterLast = await replay(file, undefined, ['--from', between])
    assert.equal(afterLast.code, 1, afterLast.stderr)
    assert.equal(
      oneLine(afterLast.stderr),
      `contest-signals replay: the chosen period from ${between} to ${header.to} holds no records (the last before it is at ${new Date(last.t).toISOString()}): nothing was replayed`,
    )
    for (const run of [headerOnly, afterEnd, afterLast])
      assert.equal(existsSync(run.db), false, 'nothing was written: no store was made')
  })
})
