// Exchange minute closes over a run: pages sized to each exchange's limit, a minute it has no candle
// for left missing, the next day's warm-up served from what the run already holds, and Kraken's
// 12-hour reach said once.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { HistoryHost } from './history-http.ts'
import { createSpotHistory } from './spot-history.ts'

const MINUTE = 60_000
const DAY = 86_400_000
const D = Date.UTC(2026, 5, 10)
const NOW = D + 10 * DAY

/** A Coinbase host answering newest-first rows for [start, end] inclusive, minus the missing minutes. */
function coinbaseHost(missing: number[] = []) {
  const calls: { start: number; end: number }[] = []
  const host: HistoryHost = {
    async get(_path, query = {}) {
      const start = Date.parse(query.start as string)
      const end = Date.parse(query.end as string)
      calls.push({ start, end })
      assert.ok((end - start) / MINUTE + 1 <= 300, 'at most 300 candles a request')
      const rows: number[][] = []
      for (let m = start; m <= end; m += MINUTE)
        if (!missing.includes(m)) rows.push([m / 1000, 1, 2, 3, m / MINUTE, 5])
      return rows.reverse()
    },
  }
  return { host, calls }
}

describe('createSpotHistory', () => {
  it('pages Coinbase by 300 minutes and leaves a minute without a candle missing', async () => {
    const { host, calls } = coinbaseHost([D + 7 * MINUTE])
    const spot = createSpotHistory({
      name: 'coinbase',
      host,
      now: () => NOW,
      warn: () => assert.fail('no warning'),
    })
    const closes = await spot.closes(D, D + 1000 * MINUTE)
    assert.equal(calls.length, 4)
    assert.equal(closes.size, 999)
    assert.equal(closes.has(D + 7 * MINUTE), false)
    assert.equal(closes.get(D + 8 * MINUTE), (D + 8 * MINUTE) / MINUTE)
  })

  it('asks only for the minutes a run does not already hold', async () => {
    const { host, calls } = coinbaseHost()
    const spot = createSpotHistory({ name: 'coinbase', host, now: () => NOW, warn: () => {} })
    await spot.closes(D - 1445 * MINUTE, D + DAY)
    const before = calls.length
    // the next day's warm-up is this day's minutes: only the new day is fetched
    const next = await spot.closes(D + DAY - 1445 * MINUTE, D + 2 * DAY)
    assert.equal(next.size, 1445 + 1440)
    assert.ok(calls.slice(before).every((c) => c.start >= D + DAY))
  })

  it('says once that Kraken holds only its last 12 hours, and never takes its forming row', async () => {
    const warnings: string[] = []
    const host: HistoryHost = {
      async get() {
        const rows = []
        for (let m = NOW - 720 * MINUTE; m <= NOW; m += MINUTE)
          rows.push([m / 1000, '1', '1', '1', String(m / MINUTE), '1', '1', 3])
        return { error: [], result: { XXBTZUSD: rows, last: NOW / 1000 } }
      },
    }
    const spot = createSpotHistory({
      name: 'kraken',
      host,
      now: () => NOW + 30_000,
      warn: (w) => warnings.push(w),
    })
    const closes = await spot.closes(NOW - DAY, NOW + MINUTE)
    await spot.closes(NOW - DAY, NOW + MINUTE)
    assert.equal(warnings.length, 1)
    assert.match(warnings[0]!, /kraken keeps only its last 12 h/)
    assert.equal(closes.size, 720)
    assert.equal(closes.has(NOW), false)
  })
})
