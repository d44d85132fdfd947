// The words `history import` prints.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { emptyTotals, progressBar, summaryLine } from './import-report.ts'

describe('the words of an import', () => {
  it('draws a bar of days done and ends with one summary line', () => {
    assert.equal(
      progressBar(1, 4, '2026-06-11', 37),
      '[######------------------] 1/4 days, 2026-06-11, 37 requests',
    )
    const totals = {
      ...emptyTotals(),
      daysWritten: 2,
      daysSkipped: 1,
      contests: 192,
      books: 2870,
      spotMinutes: 5760,
    }
    assert.equal(
      summaryLine('kalshi', 'KXBTC15M', 'tapes', { ...totals, gaps: 10, requests: 420, retries: 3 }),
      'history import kalshi KXBTC15M into tapes: 2 days written, 1 skipped (already there); 192 contests, 2870 books, 5760 spot minutes, 10 gaps; 420 requests, 3 retries',
    )
    // said only when a day waits for a window the venue has not resolved yet
    assert.match(
      summaryLine('polymarket', 'btc-updown-15m', 'tapes', { ...totals, daysPending: 1 }),
      /: 2 days written, 1 skipped \(already there\), 1 left for a later run \(not resolved yet\); 192 contests/,
    )
  })
})
