// Polymarket btc-updown-15m top of book recorded about once a second (../shared/real-data/README.md):
// each window's book as a reading at each whole minute would have seen it, and the outcome its final
// bids show. Pure parsing: the files are read and scored by model-card-real-polymarket.ts. There is
// no spot in these files, so they say how the venue's own crowd priced its windows, nothing of a model.
import { CONTEST_MS, MINUTE_MS } from '../../src/domain/contest.ts'
import { csvRows, HistoryInputError, utcInstant } from './kalshi-minute-history.ts'

/** A book older than this at a minute's boundary is no reading (READING_MAX_LATE_S's default). */
const MAX_AGE_MS = 10_000
/** A final bid at least this high on one side and the other's at most 1 − it decides the window. */
const DECIDED_BID = 0.9

/** Both best asks in dollars at a minute's boundary; null: that side had no ask (the file writes 0). */
export type BookMinute = { minute: number; upAsk: number | null; downAsk: number | null }
export type BookWindow = { opensAt: number; minutes: BookMinute[]; up: boolean | null }

type Row = { t: number; upBid: number; upAsk: number; downBid: number; downAsk: number }

function price(file: string, line: number, column: string, text: string): number {
  const x = Number(text)
  if (text === '' || !(x >= 0 && x <= 1))
    throw new HistoryInputError(file, line, `"${column}" is not a price between 0 and 1: ${text}`)
  return x
}

/**
 * The windows of one book file, oldest first. A minute's book is the last row stamped a whole second
 * before its boundary (a row stamped at the boundary's own second may have been taken after it), and
 * none when that row is over 10 s old. The outcome is the side whose final bid is ≥ 0.9 while the
 * other's is ≤ 0.1 in the window's last 10 s; null otherwise (a window the recording left undecided).
 */
export function polymarketBookWindows(file: string, text: string): BookWindow[] {
  const rows = csvRows(file, text, ['Timestamp', 'TargetTime', 'UpBid', 'UpAsk', 'DownBid', 'DownAsk'])
  const byWindow = new Map<number, Row[]>()
  for (const row of rows) {
    const opensAt = utcInstant(file, row.line, 'TargetTime', row.get('TargetTime'), true)
    if (opensAt % CONTEST_MS !== 0)
      throw new HistoryInputError(file, row.line, `${row.get('TargetTime')} is not a quarter-hour`)
    const t = utcInstant(file, row.line, 'Timestamp', row.get('Timestamp'), true)
    if (t < opensAt || t >= opensAt + CONTEST_MS)
      throw new HistoryInputError(file, row.line, `${row.get('Timestamp')} is outside its window`)
    const p = (c: string) => price(file, row.line, c, row.get(c))
    const list = byWindow.get(opensAt) ?? []
    list.push({ t, upBid: p('UpBid'), upAsk: p('UpAsk'), downBid: p('DownBid'), downAsk: p('DownAsk') })
    byWindow.set(opensAt, list)
  }
  return [...byWindow.entries()]
    .sort(([a], [b]) => a - b)
    .map(([opensAt, list]) => {
      list.sort((a, b) => a.t - b.t)
      const minutes: BookMinute[] = []
      for (let minute = 1; minute <= 14; minute++) {
        const boundary = opensAt + minute * MINUTE_MS
        const seen = list.filter((r) => r.t <= boundary - 1000).at(-1)
        if (!seen || boundary - seen.t > MAX_AGE_MS) continue
        minutes.push({
          minute,
          upAsk: seen.upAsk > 0 ? seen.upAsk : null,
          downAsk: seen.downAsk > 0 ? seen.downAsk : null,
        })
      }
      const last = list.at(-1) as Row
      // a recording that stopped before the window's last seconds shows no final bids
      const final = last.t >= opensAt + CONTEST_MS - MAX_AGE_MS
      const up = !final
        ? null
        : last.upBid >= DECIDED_BID && last.downBid <= 1 - DECIDED_BID
          ? true
          : last.downBid >= DECIDED_BID && last.upBid <= 1 - DECIDED_BID
            ? false
            : null
      return { opensAt, minutes, up }
    })
}
