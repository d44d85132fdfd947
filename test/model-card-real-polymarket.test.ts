// The real Polymarket card (tools/model-card-real-polymarket.ts) on constructed files in the layout
// of ../shared/real-data (never the real files, which have no licence): a seeded walk of Binance
// klines and windows resolved by it. The card must read each window at its own open and close, judge
// only resolved windows, and refuse a malformed file in one line.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import { gzipSync } from 'node:zlib'
import { createSeededRandom } from '../src/feeds/sim/seeded-random.ts'
import { HistoryInputError } from '../tools/real-data/kalshi-minute-history.ts'
import { polymarketBookWindows } from '../tools/real-data/polymarket-book.ts'
import { binanceMinutes, polymarketWindows } from '../tools/real-data/polymarket-week.ts'
import { tempDir } from './support/service-process.ts'

const ROOT = path.join(import.meta.dirname, '..')
const TOOL = path.join(ROOT, 'tools', 'model-card-real-polymarket.ts')
const MINUTE = 60_000
const START = Date.UTC(2026, 1, 21, 0, 0)
/** two days of klines; windows from the third hour (the models' history) to the end */
const MINUTES = 2 * 24 * 60
const FIRST_WINDOW = START + 3 * 60 * MINUTE
const naive = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ')
const withOffset = (ms: number) => `${naive(ms)}+00:00`

const tmp = tempDir('cs-real-polymarket-')
after(() => tmp.remove())
let dirs = 0

/**
 * A data folder: a seeded random walk of closes (about bitcoin's volatility), each window resolved
 * by the walk's close at its end against its close at the open — except `flipped` windows, resolved
 * the other way (an oracle the proxy disagrees with) — and one window not yet resolved.
 */
function dataDir(opts: { flipped?: number[]; outcomesText?: string; bookText?: string } = {}): {
  dir: string
  windows: number
} {
  const dir = path.join(tmp.dir, `data-${++dirs}`)
  mkdirSync(path.join(dir, 'polymarket'), { recursive: true })
  mkdirSync(path.join(dir, 'spot'), { recursive: true })
  const random = createSeededRandom(7).sequence(1, 0)
  const closes: number[] = []
  let price = 68_000
  for (let i = 0; i < MINUTES; i++) {
    // a sum of uniforms: near-normal steps of about 0.08 % a minute
    const z = (random() + random() + random() - 1.5) * 2
    price *= Math.exp(0.0008 * z)
    closes.push(Math.round(price * 100) / 100)
  }
  const closeAt = (ms: number) => closes[(ms - START) / MINUTE - 1] as number
  const rows: string[] = []
  let windows = 0
  for (let opens = FIRST_WINDOW; opens + 15 * MINUTE <= START + MINUTES * MINUTE; opens += 15 * MINUTE) {
    const up = closeAt(opens + 15 * MINUTE) >= closeAt(opens)
    const flip = opts.flipped?.includes(windows) ?? false
    rows.push(`${withOffset(opens)},btc-updown-15m-${opens / 1000},${up !== flip ? '1.0' : '0.0'},123`)
    windows++
  }
  const late = START + MINUTES * MINUTE
  rows.push(`${withOffset(late)},btc-updown-15m-${late / 1000},0.885,456`)
  writeFileSync(
    path.join(dir, 'polymarket', 'polymarket_btc_updown_15m_outcomes_test.csv'),
    opts.outcomesText ?? `timestamp,slug,yes_price,clob_token_id\n${rows.join('\n')}\n`,
  )
  const klines = closes.map((c, i) => `${naive(START + i * MINUTE)},${c},${c},${c},${c},1.0`)
  writeFileSync(
    path.join(dir, 'polymarket', 'polymarket_btc15m_book_1s_test.csv.gz'),
    gzipSync(opts.bookText ?? bookText()),
  )
  writeFileSync(
    path.join(dir, 'spot', 'binance_btcusdt_1m_test.csv.gz'),
    gzipSync(`open_time,open,high,low,close,volume\n${klines.join('\n')}\n`),
  )
  return { dir, windows }
}

const BOOK_HEAD =
  'Timestamp,TargetTime,Expiration,UpBid,UpAsk,UpMid,UpSpread,UpBidLiquidity,UpAskLiquidity,DownBid,DownAsk,DownMid,DownSpread,DownBidLiquidity,DownAskLiquidity'
const BOOK_OPENS = Date.UTC(2025, 11, 26, 10, 30)
/** One book row at `ms` of the window opening at `opens` (other columns as the recorder wrote them). */
const bookRow = (ms: number, opens: number, up: [number, number], down: [number, number]) =>
  `${naive(ms)},${naive(opens)},${naive(opens + 15 * MINUTE)},${up[0]},${up[1]},0,0,1,1,${down[0]},${down[1]},0,0,1,1`

/**
 * Two recorded windows: the first a row every 5 s, a 2¢ book (up 40/42, down 58/60) until its last
 * two minutes, then one-sided (up bid 0.97, no up ask), decided up; the second stops after 3 minutes
 * (undecided, left out).
 */
function bookText(): string {
  const rows: string[] = []
  for (let t = BOOK_OPENS; t < BOOK_OPENS + 15 * MINUTE; t += 5000) {
    const late = t >= BOOK_OPENS + 12 * MINUTE
    rows.push(bookRow(t, BOOK_OPENS, late ? [0.97, 0] : [0.4, 0.42], late ? [0.02, 0.03] : [0.58, 0.6]))
  }
  const next = BOOK_OPENS + 15 * MINUTE
  for (let t = next; t < next + 3 * MINUTE; t += 5000) rows.push(bookRow(t, next, [0.5, 0.51], [0.49, 0.5]))
  return `${BOOK_HEAD}\n${rows.join('\n')}\n`
}

function cardFile(): string {
  const file = path.join(tmp.dir, `card-${++dirs}.md`)
  writeFileSync(
    file,
    'before\n<!-- model:card:real:polymarket start -->\nold\n<!-- model:card:real:polymarket end -->\nafter\n',
  )
  return file
}

const runTool = (...args: string[]) =>
  spawnSync(process.execPath, [TOOL, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 })

describe('the real Polymarket card', () => {
  it('judges every minute of every resolved window against its outcome, the proxy read at the open and the close', () => {
    const { dir, windows } = dataDir({ flipped: [3] })
    const card = cardFile()
    const r = runTool(dir, '--card', card)
    assert.equal(r.status, 0, r.stderr)
    const text = readFileSync(card, 'utf8')
    assert.match(text, /^before\n<!-- model:card:real:polymarket start -->\n/)
    assert.match(text, /\n<!-- model:card:real:polymarket end -->\nafter\n$/)
    assert.doesNotMatch(text, /\nold\n/)
    assert.match(text, new RegExp(`${windows + 1} windows in the file, 1 not resolved`))
    // 14 readings a window: every minute of every resolved window was priced
    assert.match(text, new RegExp(` ${windows * 14} readings of ${windows} windows over 2 UTC days`))
    assert.match(text, /no day-block bootstrap interval: 2 UTC days are too few blocks/)
    // the walk decides every window but the flipped one: read at the wrong minute, more would disagree
    assert.match(text, new RegExp(`disagreed with the venue's outcome on 1 of ${windows} windows`))
    const logLoss = (label: string) =>
      Number(new RegExp(`\\| ${label} \\| \\d+ \\| (\\d\\.\\d+) ±`).exec(text)?.[1])
    // a model that sees the walk beats a coin flip by far; both versions are judged on the same readings
    assert.ok(logLoss('v2 as shipped, the model alone') < 0.55, text)
    assert.ok(logLoss('v1') < 0.55, text)
    assert.equal(logLoss('even odds \\(50 %\\)'), Number(Math.LN2.toFixed(4)))
    assert.match(text, /\| 0\.5–2 % \| /)
    // the crowd: 2 windows recorded, 1 decided; its 14 minutes, the last two one-sided, 2¢ wide
    assert.match(text, /2 windows on 1 UTC day \(2025-12-26\), 1 decided by their final bids/)
    assert.match(text, /\| all \| 14 \| 2 \(14\.3 %\) \| 2\.0 \| 12 \| /)
    assert.match(text, /\| 1–2 \| 2 \| 2 \(100\.0 %\) \| – \| 0 \| /)
    assert.match(
      text,
      /Of the one-sided books, 2 had only the long shot's ask \(at most 50¢; median 3\.0¢\), 0 only the favourite's, and 0 no ask at all\./,
    )
    assert.match(text, /The mid's tails \(.*\): no book claimed a long shot\./)
  })

  it('refuses a malformed file in one line naming it, and leaves the card as it was', () => {
    const bad = `timestamp,slug,yes_price,clob_token_id\n${withOffset(FIRST_WINDOW)},btc-updown-15m-1,1.0,1\n`
    const { dir } = dataDir({ outcomesText: bad })
    const card = cardFile()
    const before = readFileSync(card, 'utf8')
    const r = runTool(dir, '--card', card)
    assert.equal(r.status, 1)
    assert.match(
      r.stderr,
      /^model:card:real:polymarket: polymarket_btc_updown_15m_outcomes_test\.csv, line 2: slug "btc-updown-15m-1" does not name the window/,
    )
    assert.equal(r.stderr.trim().split('\n').length, 1)
    assert.equal(readFileSync(card, 'utf8'), before)
  })

  it('says which folder is missing', () => {
    const r = runTool(path.join(tmp.dir, 'nowhere'), '--card', cardFile())
    assert.equal(r.status, 1)
    assert.match(r.stderr, /^model:card:real:polymarket: .*nowhere[\\/]polymarket: no such folder\n$/)
  })
})

describe('the Polymarket book recordings', () => {
  it('reads each minute’s book from the last row a second before its boundary, at most 10 s old', () => {
    const o = BOOK_OPENS
    const text = [
      BOOK_HEAD,
      bookRow(o + 50_000, o, [0.4, 0.42], [0.58, 0.6]), // minute 1: 10 s before its boundary
      bookRow(o + 60_000, o, [0.1, 0.11], [0.89, 0.9]), // at minute 1's boundary: too late for it
      bookRow(o + 115_000, o, [0.3, 0], [0.7, 0.71]), // minute 2: no up ask
      bookRow(o + 15 * MINUTE - 1000, o, [0.99, 0], [0, 0.01]),
    ].join('\n')
    const [w] = polymarketBookWindows('b.csv', text)
    assert.equal(w?.opensAt, o)
    assert.equal(w?.up, true)
    assert.deepEqual(w?.minutes.slice(0, 2), [
      { minute: 1, upAsk: 0.42, downAsk: 0.6 },
      { minute: 2, upAsk: null, downAsk: 0.71 },
    ])
    // minute 3's newest row is minute 2's, 65 s old: no reading; minute 14's is 59 s old: none either
    assert.deepEqual(
      w?.minutes.map((m) => m.minute),
      [1, 2],
    )
  })

  it('decides a window only by final bids in its last 10 s, and refuses a row outside its window', () => {
    const o = BOOK_OPENS
    const undecided = [BOOK_HEAD, bookRow(o + 15 * MINUTE - 1000, o, [0.6, 0.61], [0.39, 0.4])].join('\n')
    assert.equal(polymarketBookWindows('b.csv', undecided)[0]?.up, null)
    const early = [BOOK_HEAD, bookRow(o + 10 * MINUTE, o, [0.99, 0], [0, 0.01])].join('\n')
    assert.equal(
      polymarketBookWindows('b.csv', early)[0]?.up,
      null,
      'a recording that stopped early decides nothing',
    )
    const down = [BOOK_HEAD, bookRow(o + 15 * MINUTE - 2000, o, [0.01, 0.02], [0.98, 0.99])].join('\n')
    assert.equal(polymarketBookWindows('b.csv', down)[0]?.up, false)
    const outside = [BOOK_HEAD, bookRow(o + 15 * MINUTE, o, [0.5, 0.51], [0.49, 0.5])].join('\n')
    assert.throws(() => polymarketBookWindows('b.csv', outside), /line 2: .* is outside its window/)
    const bad = [BOOK_HEAD, bookRow(o, o, [0.5, 1.5], [0.49, 0.5])].join('\n')
    assert.throws(
      () => polymarketBookWindows('b.csv', bad),
      /line 2: "UpAsk" is not a price between 0 and 1: 1\.5/,
    )
  })
})

describe('the Polymarket week files', () => {
  const F = 'f.csv'
  it('reads a window start with its offset, its outcome, and an unresolved price as unresolved', () => {
    const text =
      'timestamp,slug,yes_price,clob_token_id\n' +
      '2026-02-21 14:30:00+00:00,btc-updown-15m-1771684200,1.0,1\n' +
      '2026-02-21 14:45:00+00:00,btc-updown-15m-1771685100,0.0,2\n' +
      '2026-02-21 15:00:00+00:00,btc-updown-15m-1771686000,0.0005,3\n'
    assert.deepEqual(polymarketWindows(F, text), [
      { slug: 'btc-updown-15m-1771684200', opensAt: 1_771_684_200_000, up: true },
      { slug: 'btc-updown-15m-1771685100', opensAt: 1_771_685_100_000, up: false },
      { slug: 'btc-updown-15m-1771686000', opensAt: 1_771_686_000_000, up: null },
    ])
  })

  it('refuses a price outside [0, 1], a window off the quarter-hour, a missing column and a window twice', () => {
    const head = 'timestamp,slug,yes_price,clob_token_id\n'
    assert.throws(
      () => polymarketWindows(F, `${head}2026-02-21 14:30:00+00:00,btc-updown-15m-1771684200,1.5,1\n`),
      (e: Error) => e instanceof HistoryInputError && /line 2: "yes_price" is not a price/.test(e.message),
    )
    assert.throws(
      () => polymarketWindows(F, `${head}2026-02-21 14:31:00+00:00,btc-updown-15m-1771684260,1.0,1\n`),
      /line 2: 2026-02-21 14:31:00\+00:00 is not a quarter-hour/,
    )
    assert.throws(() => polymarketWindows(F, 'timestamp,slug\n'), /line 1: no column "yes_price"/)
    const row = '2026-02-21 14:30:00+00:00,btc-updown-15m-1771684200,1.0,1\n'
    assert.throws(
      () => polymarketWindows(F, `${head}${row}${row}`),
      /line 3: the window starting at .* appears twice/,
    )
  })

  it('reads a naive kline start as UTC and refuses a close that is not a price, or a minute twice', () => {
    const head = 'open_time,open,high,low,close,volume\n'
    assert.deepEqual(binanceMinutes(F, `${head}2026-02-21 14:26:00,1,2,0.5,68484.35,7\n`), [
      { minuteStart: Date.UTC(2026, 1, 21, 14, 26), close: 68_484.35 },
    ])
    assert.throws(
      () => binanceMinutes(F, `${head}2026-02-21 14:26:00,1,2,0.5,,7\n`),
      /line 2: "close" is not a positive price/,
    )
    assert.throws(
      () => binanceMinutes(F, `${head}2026-02-21 14:26:30,1,2,0.5,1,7\n`),
      /is not a whole minute/,
    )
    assert.throws(
      () => binanceMinutes(F, `${head}21/02/2026 14:26,1,2,0.5,1,7\n`),
      /"open_time" is not a UTC date-time/,
    )
    const kline = '2026-02-21 14:26:00,1,2,0.5,1,7\n'
    assert.throws(
      () => binanceMinutes(F, `${head}${kline}${kline}`),
      /line 3: the minute 2026-02-21 14:26:00 appears twice/,
    )
  })
})
