// What the development set's Polymarket top-of-book recordings say of the venue's own crowd, as a
// section of the real Polymarket card (model-card-real-polymarket.ts): the width of its books, how
// often a side had no ask, and the two-sided mid scored against the outcome. There is no spot in
// those recordings, so nothing here judges a model.
import { utcDayOf } from '../../src/domain/bootstrap.ts'
import { MINUTES_LEFT_BUCKETS } from '../../src/domain/evaluation.ts'
import type { DatedPoint } from '../../src/domain/paired-comparison.ts'
import { scoresOf } from '../../src/domain/scores.ts'
import { tailRatioText, tailTable } from '../../src/domain/tail-table.ts'
import { median } from '../../src/feeds/spot/median.ts'
import { f, pm } from '../card-text.ts'
import type { BookWindow } from './polymarket-book.ts'

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * The venue's own crowd on the book recordings: at each whole minute the book a reading would have
 * seen, its width as the engine reads it (up ask + down ask − 1), how often a side was missing, and
 * the two-sided mid, (up ask + 1 − down ask) / 2 as `evaluate` takes it, scored against the outcome.
 */
export function crowdLines(books: readonly BookWindow[]): string[] {
  const decided = books.filter((w) => w.up !== null)
  type Seen = DatedPoint & { minutesLeft: number; width: number | null }
  /** the one ask a one-sided book has, in dollars */
  const lone: number[] = []
  const seen: Seen[] = []
  for (const w of decided)
    for (const m of w.minutes) {
      const two = m.upAsk !== null && m.downAsk !== null
      if (!two && (m.upAsk ?? m.downAsk) !== null) lone.push((m.upAsk ?? m.downAsk) as number)
      seen.push({
        contest: String(w.opensAt),
        y: w.up ? 1 : 0,
        day: utcDayOf(w.opensAt),
        minutesLeft: 15 - m.minute,
        p: two ? ((m.upAsk as number) + 1 - (m.downAsk as number)) / 2 : Number.NaN,
        width: two ? (m.upAsk as number) + (m.downAsk as number) - 1 : null,
      })
    }
  const row = (label: string, pts: Seen[]) => {
    const two = pts.filter((x) => x.width !== null)
    const sc = scoresOf(two)
    const c = sc.calibration
    return `| ${label} | ${pts.length} | ${pts.length - two.length} (${f((100 * (pts.length - two.length)) / Math.max(1, pts.length), 1)} %) | ${f(100 * (median(two.map((x) => x.width as number)) ?? Number.NaN), 1)} | ${two.length} | ${pm(sc.logLoss)} | ${pm(c?.slope, 2)} | ${pm(c?.intercept, 2)} |`
  }
  const inBucket = (b: { from: number; to: number }) =>
    seen.filter((x) => x.minutesLeft >= b.from && x.minutesLeft <= b.to)
  const days = [...new Set(books.map((w) => iso(w.opensAt).slice(0, 10)))]
  const minutesMissing = decided.length * 14 - seen.length
  const two = seen.filter((x) => x.width !== null)
  const cheap = lone.filter((a) => a <= 0.5)
  const neither = seen.length - two.length - lone.length
  const tailsText = tailTable(two)
    .filter((r) => r.readings > 0)
    .map(
      (r) =>
        `${r.label} ${f(r.realised, 0)} / ${f(r.claimed, 2)} = ${tailRatioText(r)} (${r.readings} books)`,
    )
    .join('; ')
  return [
    '',
    `**The venue's own crowd.** The development set's top-of-book recordings (about one row a second, both tokens' best bid and ask): ${books.length} windows on ${days.length} UTC day${days.length === 1 ? '' : 's'} (${days.join(', ')}), ${decided.length} decided by their final bids (a side's ≥ 0.9 against the other's ≤ 0.1 in the window's last 10 s; the rest left out). No spot was recorded beside them, so they judge the crowd alone: at each whole minute the book a reading would have seen (the last row stamped a second or more before the boundary, at most 10 s old; ${minutesMissing} minutes had none), its width as the engine reads it (up ask + down ask − 1) and its two-sided mid, (up ask + 1 − down ask) / 2, against the outcome. The calibration slope and intercept are the logistic fit of the outcome on the mid's logit (1 and 0: calibrated; a slope above 1: the crowd less sure than the outcomes, long shots dear), ± one SE clustered by window.`,
    '',
    '| minutes left | books | one-sided | median width (¢) | two-sided | mid log loss | slope | intercept |',
    '|---|---|---|---|---|---|---|---|',
    row('all', seen),
    ...MINUTES_LEFT_BUCKETS.map((b) => row(b.label, inBucket(b))),
    '',
    `Of the one-sided books, ${cheap.length} had only the long shot's ask (at most 50¢; median ${f(100 * (median(cheap) ?? Number.NaN), 1)}¢), ${lone.length - cheap.length} only the favourite's, and ${neither} no ask at all. The mid's tails (realised / claimed wins of the long shot, by the mid's P(up)): ${tailsText || 'no book claimed a long shot'}.`,
  ]
}
