// The history importers against the history fixture serving, where the reference is uncertain [U],
// each form it allows (test/fixtures/history-fixtures.ts `forms`): a day read from any of them gives
// the same tape as the documented form — no form is dropped, and none is read as another.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createHistoryHost } from '../src/history/history-http.ts'
import { createKalshiHistory } from '../src/history/kalshi-history.ts'
import { createPolymarketHistory } from '../src/history/polymarket-history.ts'
import { createSpotHistory } from '../src/history/spot-history.ts'
import type { DayRecords } from '../src/history/venue-history.ts'
import type { Logger } from '../src/ports/logger.ts'
import { type HistoryForms, startHistoryFixture } from './fixtures/history-fixtures.ts'
import { within } from './support/wait.ts'

const DAY = Date.UTC(2026, 5, 10)
const MONTH = 30 * 86_400_000
const quiet: Logger = { info() {}, warn() {}, error() {}, debug() {} }

function hostFor(env: Record<string, string>, key: string, name: string) {
  return createHistoryHost({
    name,
    baseUrl: env[key] as string,
    perSecond: 1_000,
    counts: { requests: 0, retries: 0 },
    logger: quiet,
    clock: { now: () => Date.now() },
  })
}

/** One day of `venue` from a fixture serving `forms`, with every contest of that day (10:00–12:00: two listing pages). */
async function importDay(
  venue: 'kalshi' | 'polymarket',
  cutoff: number,
  forms: HistoryForms,
): Promise<DayRecords> {
  const fixture = await startHistoryFixture({ days: [DAY], contestHours: [10, 12], cutoff, forms })
  try {
    const history =
      venue === 'kalshi'
        ? createKalshiHistory({
            host: hostFor(fixture.env, 'KALSHI_BASE_URL', 'kalshi'),
            series: 'KXBTC15M',
            now: () => Date.now(),
          })
        : createPolymarketHistory({
            gamma: hostFor(fixture.env, 'POLYMARKET_GAMMA_URL', 'gamma'),
            clob: hostFor(fixture.env, 'POLYMARKET_CLOB_URL', 'clob'),
            series: 'btc-updown-15m',
          })
    return await history.day(DAY)
  } finally {
    await fixture.close()
  }
}

describe('history import › uncertain facts, every form', () => {
  for (const [tier, cutoff] of [
    ['historical', DAY + MONTH],
    ['live', DAY - MONTH],
  ] as const) {
    it(`reads Kalshi's ${tier} tier alike whatever the last cursor, the candle order and a quiet candle's price`, async () => {
      const documented = await importDay('kalshi', cutoff, {})
      assert.equal(documented.contests, 8)
      assert.equal(documented.gaps, 0)
      for (const forms of [
        { kalshiLastCursor: null },
        { kalshiLastCursor: 'absent' },
        { kalshiCandleOrder: 'descending' },
        { kalshiCandlePrice: 'null' },
      ] satisfies HistoryForms[])
        assert.deepEqual(await importDay('kalshi', cutoff, forms), documented, JSON.stringify(forms))
    })
  }

  it("ends Kalshi's live listing when its cursors go round in a cycle, with every contest once", async () => {
    const documented = await importDay('kalshi', DAY - MONTH, {})
    const cycled = await within(importDay('kalshi', DAY - MONTH, { kalshiCursorCycle: true }), 'the import')
    assert.deepEqual(cycled, documented)
  })

  it('finds every window of the ET hour repeated when DST ends in the historical tier, however the venue names them', async () => {
    // 2026-11-01 04:00–08:00Z: closes 06:00–06:45Z are the second pass of 01:00–01:59 ET
    const fallBack = Date.UTC(2026, 10, 1)
    const day = async (kalshiRepeatedHourSuffix?: string) => {
      const fixture = await startHistoryFixture({
        days: [fallBack],
        contestHours: [4, 8],
        cutoff: fallBack + MONTH,
        forms: kalshiRepeatedHourSuffix === undefined ? {} : { kalshiRepeatedHourSuffix },
      })
      try {
        const history = createKalshiHistory({
          host: hostFor(fixture.env, 'KALSHI_BASE_URL', 'kalshi'),
          series: 'KXBTC15M',
          now: () => Date.now(),
        })
        const records = await history.day(fallBack)
        return { records, tickers: fixture.contests.map((c) => c.ticker) }
      } finally {
        await fixture.close()
      }
    }
    for (const suffix of [undefined, 'Z']) {
      const { records, tickers } = await day(suffix)
      assert.equal(records.contests, 16, `second pass named ${tickers.find((t) => !/-\d{2}$/.test(t))}`)
      assert.equal(records.gaps, 0)
    }
  })

  it('imports a resolved Polymarket window whose eventMetadata is null or absent, graded on its outcome prices', async () => {
    const documented = await importDay('polymarket', DAY + MONTH, {})
    assert.equal(documented.contests, 8)
    for (const gammaEventMetadata of ['null', 'absent'] as const) {
      const day = await importDay('polymarket', DAY + MONTH, { gammaEventMetadata })
      assert.deepEqual(
        [day.contests, day.books, day.gaps, day.pending],
        [documented.contests, documented.books, documented.gaps, documented.pending],
        gammaEventMetadata,
      )
      // the resolved events are on the tape as served, their outcome prices there to grade on
      const resolved = day.records.filter(
        (r) => r.k === 'market' && (r.m as { closed?: boolean }).closed === true,
      )
      assert.ok(resolved.length >= 8, gammaEventMetadata)
    }
  })

  it('reads each exchange’s spot candles alike in the documented order or reversed', async () => {
    const to = Math.floor(Date.now() / 60_000) * 60_000 - 5 * 60_000
    const from = to - 120 * 60_000
    const closes = async (spotOrder: HistoryForms['spotOrder']) => {
      const fixture = await startHistoryFixture({
        days: [],
        contestHours: [0, 0],
        cutoff: DAY,
        forms: { spotOrder },
      })
      try {
        const out: Record<string, Array<[number, number]>> = {}
        for (const [name, key] of [
          ['coinbase', 'COINBASE_REST_URL'],
          ['bitstamp', 'BITSTAMP_REST_URL'],
          ['kraken', 'KRAKEN_REST_URL'],
        ] as const) {
          const spot = createSpotHistory({
            name,
            host: hostFor(fixture.env, key, name),
            now: () => Date.now(),
            warn: () => {},
          })
          out[name] = [...(await spot.closes(from, to)).entries()].sort((a, b) => a[0] - b[0])
        }
        // requests without a User-Agent have been reported to fail (Coinbase, §2.1 [U]): always one
        assert.ok(fixture.requests.every((r) => r.userAgent?.startsWith('contest-signals/')))
        return out
      } finally {
        await fixture.close()
      }
    }
    const documented = await closes('documented')
    for (const rows of Object.values(documented)) assert.equal(rows.length, 120)
    assert.deepEqual(await closes('reversed'), documented)
  })
})
