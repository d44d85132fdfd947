import assert from 'node:assert/strict'
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import type { Logger } from '../ports/logger.ts'
import type { TapeRecord } from './tape-format.ts'
import { openTape } from './tape-reader.ts'
import { createTapeRecorder, dayFileName } from './tape-recorder.ts'

const root = mkdtempSync(path.join(tmpdir(), 'cs-recorder-'))
after(() => rmSync(root, { recursive: true, force: true }))
const quiet: Logger = { info() {}, warn() {}, error() {}, debug() {} }
const DAY = 86_400_000
const D0 = Date.UTC(2026, 10, 20)

function recorderAt(dir: string, clock: { t: number }, keepDays = 30, closesKept?: number) {
  return createTapeRecorder({
    ...(closesKept === undefined ? {} : { closesKept }),
    dir,
    keepDays,
    venue: 'kalshi',
    series: ['KXBTC15M'],
    sources: ['coinbase', 'bitstamp'],
    clock: { now: () => clock.t },
    logger: quiet,
    origin: 'test',
    flushMs: 3_600_000,
  })
}

async function read(file: string): Promise<{ records: TapeRecord[]; notices: string[] }> {
  const notices: string[] = []
  const tape = await openTape(file, { onNotice: (m) => notices.push(m) })
  const records: TapeRecord[] = []
  for await (const r of tape.records()) records.push(r)
  return { records, notices }
}

const market = (status: string) => ({ ticker: 'KXBTC15M-26NOV201215-15', status, open_time: 'x' })

describe('the tape recorder', () => {
  it('writes what it is told, an unchanged market body or exchange status once, stamped with its clock', async () => {
    const dir = mkdtempSync(path.join(root, 'a-'))
    const clock = { t: D0 + 1000 }
    const rec = recorderAt(dir, clock)
    await rec.start()
    rec.market(market('active'))
    clock.t += 500
    rec.market(market('active'))
    rec.spot('coinbase', { mid: 100.5, bid: 100, ask: 101, exchangeAt: D0 + 900 })
    rec.spot('bitstamp', { mid: 100.4, exchangeAt: null })
    rec.book('KXBTC15M-26NOV201215-15', { orderbook_fp: { yes_dollars: [] } })
    rec.closes('coinbase', [{ minuteStart: D0 - 60_000, close: 99 }])
    const open = { exchange_active: true, trading_active: true }
    const paused = { exchange_active: true, trading_active: false }
    rec.exchange(open)
    rec.exchange({ ...open })
    rec.exchange(paused)
    rec.index({ id: 'BRTI', value: 100.45, at: D0 + 1200, receivedAt: D0 + 1500 })
    await rec.close()
    const { records } = await read(path.join(dir, dayFileName(D0)))
    assert.deepEqual(records, [
      { t: D0 + 1000, k: 'market', m: market('active') },
      { t: D0 + 1500, k: 'spot', src: 'coinbase', bid: 100, ask: 101, xt: D0 + 900 },
      { t: D0 + 1500, k: 'spot', src: 'bitstamp', px: 100.4 },
      {
        t: D0 + 1500,
        k: 'book',
        ticker: 'KXBTC15M-26NOV201215-15',
        ob: { orderbook_fp: { yes_dollars: [] } },
      },
      { t: D0 + 1500, k: 'closes', src: 'coinbase', c: [[D0 - 60_000, 99]] },
      { t: D0 + 1500, k: 'exchange', status: open },
      { t: D0 + 1500, k: 'exchange', status: paused },
      { t: D0 + 1500, k: 'index', id: 'BRTI', v: 100.45, xt: D0 + 1200 },
    ])
  })

  it('records a crossed spot quote (bid over ask) the live feed took, and the tape reads it back', async () => {
    const dir = mkdtempSync(path.join(root, 'crossed-'))
    const clock = { t: D0 + 1000 }
    const rec = recorderAt(dir, clock)
    await rec.start()
    rec.spot('kraken', { mid: 100_000.015, bid: 100_000.02, ask: 100_000.01, exchangeAt: D0 + 990 })
    await rec.close()
    const { records } = await read(path.join(dir, dayFileName(D0)))
    assert.deepEqual(records, [
      { t: D0 + 1000, k: 'spot', src: 'kraken', bid: 100_000.02, ask: 100_000.01, xt: D0 + 990 },
    ])
  })

  it('stamps a book with the instant its adapter had it, the instant its quote is stamped with', async () => {
    const dir = mkdtempSync(path.join(root, 'book-'))
    const came = D0 + 2_000
    const clock = { t: came + 3 }
    const rec = recorderAt(dir, clock)
    await rec.start()
    rec.book('btc-updown-15m-1', { bids: [], asks: [] }, 'UP', came)
    await rec.close()
    const { records } = await read(path.join(dir, dayFileName(D0)))
    assert.deepEqual(records, [
      { t: came, k: 'book', ticker: 'btc-updown-15m-1', token: 'UP', ob: { bids: [], asks: [] } },
    ])
  })

  it('keeps a venue’s 404 "no book" as a book record `st: 404` at the instant it came', async () => {
    const dir = mkdtempSync(path.join(root, 'no-book-'))
    const came = D0 + 2_000
    const rec = recorderAt(dir, { t: came + 3 })
    await rec.start()
    rec.noBook('btc-updown-15m-1', 'DOWN', came)
    await rec.close()
    const { records } = await read(path.join(dir, dayFileName(D0)))
    assert.deepEqual(records, [
      { t: came, k: 'book', ticker: 'btc-updown-15m-1', token: 'DOWN', ob: null, st: 404 },
    ])
  })

  it('stamps a spot price with the instant its feed took it, not a later reading of the clock, and files its minute close there', async () => {
    const dir = mkdtempSync(path.join(root, 'at-'))
    // the feed took the price in the last millisecond of a minute; the clock has moved on since
    const taken = D0 + 60_000 - 1
    const clock = { t: taken + 1 }
    const rec = recorderAt(dir, clock)
    await rec.start()
    rec.spot('coinbase', { mid: 100.5, exchangeAt: null }, taken)
    // the next day's file opens with the closes last seen: the price is the close of its own minute
    clock.t = D0 + DAY
    rec.spot('coinbase', { mid: 101, exchangeAt: null })
    await rec.close()
    const first = (await read(path.join(dir, dayFileName(D0)))).records
    assert.deepEqual(first, [{ t: taken, k: 'spot', src: 'coinbase', px: 100.5 }])
    const next = (await read(path.join(dir, dayFileName(D0 + DAY)))).records
    const closes = next.find((r) => r.k === 'closes' && r.src === 'coinbase')
    assert.deepEqual(closes && 'c' in closes ? closes.c : null, [[D0, 100.5]])
  })

  it('after a kill mid-write, cuts the day file back to its last complete line and appends after it', async () => {
    const dir = mkdtempSync(path.join(root, 'b-'))
    const clock = { t: D0 + 10_000 }
    const first = recorderAt(dir, clock)
    await first.start()
    first.spot('coinbase', { mid: 1, exchangeAt: null })
    await first.flush()
    const file = path.join(dir, dayFileName(D0))
    const whole = statSync(file).size
    clock.t += 1000
    first.spot('coinbase', { mid: 2, exchangeAt: null })
    await first.flush()
    // the process dies inside the second member's write
    const cutAt = Math.floor((whole + statSync(file).size) / 2)
    await first.close()
    truncateSync(file, cutAt)
    assert.equal((await read(file)).notices.length, 1, 'the cut file reads with a notice')

    clock.t += 5000
    const second = recorderAt(dir, clock)
    await second.start()
    second.spot('coinbase', { mid: 3, exchangeAt: null })
    await second.close()
    const { records, notices } = await read(file)
    assert.deepEqual(notices, [])
    assert.deepEqual(
      records.map((r) => (r.k === 'spot' ? r.px : r.k)),
      [1, 3],
    )
  })

  it('starts a new file at UTC midnight, opening with the markets, status and spot closes last seen', async () => {
    const dir = mkdtempSync(path.join(root, 'c-'))
    const clock = { t: D0 + DAY - 120_000 }
    const rec = recorderAt(dir, clock)
    await rec.start()
    rec.exchange({ trading_active: true })
    rec.market(market('active'))
    rec.spot('coinbase', { mid: 7, exchangeAt: null })
    clock.t = D0 + DAY + 2_000
    rec.spot('coinbase', { mid: 8, exchangeAt: null })
    await rec.close()
    assert.deepEqual(readdirSync(dir).sort(), [dayFileName(D0), dayFileName(D0 + DAY)])
    const day2 = await openTape(path.join(dir, dayFileName(D0 + DAY)))
    assert.equal(day2.header.from, new Date(D0 + DAY).toISOString())
    day2.close()
    const { records } = await read(path.join(dir, dayFileName(D0 + DAY)))
    assert.deepEqual(records, [
      { t: D0 + DAY, k: 'exchange', status: { trading_active: true } },
      { t: D0 + DAY, k: 'market', m: market('active') },
      { t: D0 + DAY, k: 'closes', src: 'coinbase', c: [[D0 + DAY - 120_000, 7]] },
      { t: D0 + DAY + 2_000, k: 'spot', src: 'coinbase', px: 8 },
    ])
  })

  it('carries into a new day the whole warm-up the model reads, not just an hour', async () => {
    const dir = mkdtempSync(path.join(root, 'w-'))
    const clock = { t: D0 + DAY - 1_000 }
    // a day and a bit of warm-up closes, as the default model's live engine loads them
    const warmup = Array.from({ length: 1_500 }, (_, i) => ({
      minuteStart: D0 + DAY - (1_500 - i) * 60_000,
      close: 100 + i,
    }))
    const rec = recorderAt(dir, clock, 30, 1_450)
    await rec.start()
    rec.closes('coinbase', warmup)
    clock.t = D0 + DAY + 2_000
    rec.spot('coinbase', { mid: 8, exchangeAt: null })
    await rec.close()
    const { records } = await read(path.join(dir, dayFileName(D0 + DAY)))
    const carried = records.find((r) => r.k === 'closes')
    assert.ok(carried?.k === 'closes')
    // 1,450 kept per source; the new day's own first minute (its spot) holds one of the places
    assert.equal(carried.c.length, 1_449)
    assert.deepEqual(carried.c.at(-1), [D0 + DAY - 60_000, 1_599])
  })

  it('removes day files older than RECORD_KEEP_DAYS and nothing else', async () => {
    const dir = mkdtempSync(path.join(root, 'd-'))
    for (const d of [-5, -3, -2]) writeFileSync(path.join(dir, dayFileName(D0 + d * DAY)), '')
    writeFileSync(path.join(dir, 'notes.txt'), 'keep me')
    const rec = recorderAt(dir, { t: D0 + 1000 }, 3)
    await rec.start()
    await rec.close()
    assert.deepEqual(readdirSync(dir).sort(), [
      'notes.txt',
      dayFileName(D0 - 3 * DAY),
      dayFileName(D0 - 2 * DAY),
      dayFileName(D0),
    ])
    assert.equal(readFileSync(path.join(dir, 'notes.txt'), 'utf8'), 'keep me')
  })
})
