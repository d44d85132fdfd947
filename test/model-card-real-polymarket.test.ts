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
function dataDir(opts: { flipped?: number[]; outcomesText?: string } = {}): { dir: string; windows: number } {
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
    path.join(dir, 'spot', 'binance_btcusdt_1m_test.csv.gz'),
    gzipSync(`open_time,open,high,low,close,volume\n${klines.join('\n')}\n`),
  )
  return { dir, windows }
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

  it('refuses a price outside [0, 1], a window off the quarter-hour and a missing column', () => {
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
  })

  it('reads a naive kline start as UTC and refuses a close that is not a price', () => {
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
  })
})
