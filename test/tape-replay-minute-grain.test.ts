// Replay of a minute-grained tape (decisions §12, §15): built here with the shared placement rules
// (src/tape/minute-grain.ts) from constructed minute history, it gives each reading the source's close
// of the minute ending at its boundary and the candle quote standing at the boundary, never a later
// one; a gap in the history stays a skipped minute; a spot needs min(2, sources named) fresh sources.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import { MINUTE_GRAIN_NOTICE, runReplay } from '../src/main/replay.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import {
  kalshiCandleBookRecord,
  kalshiSettledMarketRecords,
  minuteCloseRecord,
} from '../src/tape/minute-grain.ts'
import type { TapeHeader, TapeRecord } from '../src/tape/tape-format.ts'
import { replayOptions } from './support/replay-options.ts'
import { tempDir } from './support/service-process.ts'

const MINUTE = 60_000
const SERIES = 'KXBTC15M'
const OPENS = Date.UTC(2026, 10, 20, 17, 0)
const CLOSES = OPENS + 15 * MINUTE
const TICKER = 'KXBTC15M-26NOV201215-15'
const boundary = (minute: number): number => OPENS + minute * MINUTE
/** every minute's close differs, so a reading shows which minute's close it saw */
const closeOf = (minuteStart: number): number => 99_000 + (minuteStart - OPENS) / MINUTE
/** candle m (ending at boundary m) quotes YES at (40 + m)¢ bid, (41 + m)¢ ask */
const candle = (m: number): [number, number] => [(40 + m) / 100, (41 + m) / 100]

const settled = {
  ticker: TICKER,
  event_ticker: 'KXBTC15M-26NOV201215',
  status: 'finalized',
  result: 'no',
  open_time: new Date(OPENS).toISOString(),
  close_time: new Date(CLOSES).toISOString(),
  floor_strike: 99_050,
  expiration_value: '99012.34',
}

/** Closes from 90 minutes before the open (the model's minimum history) to the close, per source, minus the gaps. */
function minuteTape(
  sources: string[],
  gaps: { src: string; minuteStart: number }[],
  missingCandles: number[],
) {
  const records: TapeRecord[] = [...kalshiSettledMarketRecords(settled)]
  for (let m = OPENS - 90 * MINUTE; m < CLOSES; m += MINUTE)
    for (const src of sources)
      if (!gaps.some((g) => g.src === src && g.minuteStart === m))
        records.push(minuteCloseRecord(src, m, closeOf(m)))
  for (let m = 1; m <= 15; m++)
    if (!missingCandles.includes(m)) records.push(kalshiCandleBookRecord(TICKER, boundary(m), ...candle(m)))
  const header: TapeHeader = {
    tape: 1,
    venue: 'kalshi',
    series: [SERIES],
    sources,
    from: new Date(OPENS - 90 * MINUTE).toISOString(),
    to: new Date(CLOSES + 5 * MINUTE).toISOString(),
    origin: 'constructed minute history',
    grain: '1m',
  }
  return [header, ...records.sort((a, b) => a.t - b.t)]
}

const tmp = tempDir('cs-minute-grain-')
after(() => tmp.remove())
let files = 0

async function replay(lines: object[]) {
  const file = path.join(tmp.dir, `tape-${++files}.ndjson`)
  writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(''))
  const store = createSqliteStore(path.join(tmp.dir, `store-${files}.db`))
  await store.migrate()
  const notices: string[] = []
  try {
    const summary = await runReplay(replayOptions(file, store, { onNotice: (m) => notices.push(m) }))
    const readings = await store.listGradedReadings({ series: SERIES })
    return { summary, notices, readings, contest: await store.getContest(TICKER) }
  } finally {
    await store.close()
  }
}

describe('replay of a minute-grained tape', () => {
  it('prices a keyed recording from its recorded index prints (BRTI is the settlement index)', async () => {
    const [header, ...rest] = minuteTape(['coinbase', 'kraken'], [], []) as [TapeHeader, ...TapeRecord[]]
    const records = rest as TapeRecord[]
    const indexOf = (m: number): number => 98_000 + m
    // a print half a second before each boundary, as a keyed socket relays them
    for (let m = 1; m <= 14; m++)
      records.push({ t: boundary(m) - 500, k: 'index', id: 'BRTI', v: indexOf(m) } as TapeRecord)
    const { summary, readings } = await replay([header, ...records.sort((a, b) => a.t - b.t)])
    assert.equal(summary.stopped, null)
    assert.equal(readings.length, 14)
    for (const r of readings) {
      assert.equal(r.inputs?.spotDollars, indexOf(r.minute), `minute ${r.minute}`)
      assert.equal(r.inputs?.spotObservedAt, boundary(r.minute) - 500)
      assert.equal(r.inputs?.freshSources, 1, 'the index alone')
    }
    // the same tape without the prints prices from the exchanges' closes
    const proxy = await replay(minuteTape(['coinbase', 'kraken'], [], []))
    assert.deepEqual(
      proxy.readings.map((r) => r.inputs?.spotDollars),
      proxy.readings.map((r) => closeOf(boundary(r.minute) - MINUTE)),
    )
  })

  it('reads the close and the candle standing at each boundary, never a later one; a gap stays a skipped minute', async () => {
    const { summary, notices, readings, contest } = await replay(
      minuteTape(['coinbase'], [{ src: 'coinbase', minuteStart: boundary(5) - MINUTE }], [8]),
    )
    assert.equal(summary.stopped, null)
    assert.equal(summary.grain, '1m')
    assert.deepEqual(notices, [MINUTE_GRAIN_NOTICE])
    assert.deepEqual(
      readings.map((r) => r.minute),
      [1, 2, 3, 4, 6, 7, 9, 10, 11, 12, 13, 14],
    )
    // minute 5 lacks its close (the last one is a minute old: no fresh spot); minute 8 its candle,
    // so its book request is never answered and the minute is late, as after a venue timeout
    assert.deepEqual(summary.skipped, { 'no-spot': 1, late: 1 })
    for (const r of readings) {
      const b = boundary(r.minute)
      const [bid, ask] = candle(r.minute)
      assert.deepEqual(
        r.inputs && {
          spotObservedAt: r.inputs.spotObservedAt,
          bookObservedAt: r.inputs.bookObservedAt,
          spotDollars: r.inputs.spotDollars,
          freshSources: r.inputs.freshSources,
          upAskCents: r.inputs.upAskCents,
          downAskCents: r.inputs.downAskCents,
        },
        {
          spotObservedAt: b,
          bookObservedAt: b,
          spotDollars: closeOf(b - MINUTE),
          // the header names one source: that one is enough
          freshSources: 1,
          upAskCents: Math.round(ask * 100),
          downAskCents: Math.round((1 - bid) * 100),
        },
        `minute ${r.minute}`,
      )
    }
    assert.equal(contest?.strikePriceDollars, 99_050)
    assert.equal(contest?.settledSide, 'down')
    assert.equal(contest?.settledPriceDollars, 99_012.34)
  })

  it('needs 2 fresh sources when the header names two: one source’s missing close skips the minute', async () => {
    const { readings, summary } = await replay(
      minuteTape(['coinbase', 'bitstamp'], [{ src: 'bitstamp', minuteStart: boundary(3) - MINUTE }], []),
    )
    assert.deepEqual(summary.skipped, { 'few-sources': 1 })
    assert.equal(readings.length, 13)
    assert.ok(readings.every((r) => r.inputs?.freshSources === 2))
  })
})
