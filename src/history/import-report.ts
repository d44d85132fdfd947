// The words of `history import`: a progress bar for a terminal and the one summary line at the end.

export type ImportTotals = {
  daysWritten: number
  daysSkipped: number
  /** days not written because a window in them is not resolved yet (a later run takes them) */
  daysPending: number
  contests: number
  books: number
  spotMinutes: number
  /** venue boundaries without a quote plus spot minutes without a close, left empty */
  gaps: number
  requests: number
  retries: number
}

export const emptyTotals = (): ImportTotals => ({
  daysWritten: 0,
  daysSkipped: 0,
  daysPending: 0,
  contests: 0,
  books: 0,
  spotMinutes: 0,
  gaps: 0,
  requests: 0,
  retries: 0,
})

const BAR_WIDTH = 24

/** `[#########---------------] 3/8 days, 2026-06-12, 412 requests` (drawn over itself with \r). */
export function progressBar(done: number, total: number, day: string, requests: number): string {
  const filled = total > 0 ? Math.round((BAR_WIDTH * done) / total) : BAR_WIDTH
  return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${done}/${total} days, ${day}, ${requests} requests`
}

export function summaryLine(venue: string, series: string, out: string, t: ImportTotals): string {
  return (
    `history import ${venue} ${series} into ${out}: ${t.daysWritten} ${t.daysWritten === 1 ? 'day' : 'days'} written, ${t.daysSkipped} skipped (already there)` +
    `${t.daysPending > 0 ? `, ${t.daysPending} left for a later run (not resolved yet)` : ''}; ` +
    `${t.contests} contests, ${t.books} books, ${t.spotMinutes} spot minutes, ${t.gaps} gaps; ` +
    `${t.requests} requests, ${t.retries} retries`
  )
}
