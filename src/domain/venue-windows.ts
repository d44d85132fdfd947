// The same quarter hour on several venues, side by side (decisions §14): contests of different series
// matched by their window, the instants `opens_at` and `expires_at`, and never by their tickers —
// Kalshi writes the close in Eastern time into its ticker, Polymarket the start in Unix seconds into
// its slug (venue facts §3.1.2), so only the instants say two contests are the same quarter hour.
import type { ContestView } from './contest-view.ts'

export type WindowRow = {
  /** the window's instants, ms */
  opensAt: number
  expiresAt: number
  /** one entry per series, in the order given: that series' contest of this window, or null */
  contests: (ContestView | null)[]
}

/**
 * Every window any of the series has a contest in, newest opening first, each with the contest of
 * each series (null where a series has none). A series with two contests of one window (a venue
 * that relisted it) shows the later-listed one: the one given last.
 */
export function alignByWindow(bySeries: readonly (readonly ContestView[])[]): WindowRow[] {
  const rows = new Map<string, WindowRow>()
  bySeries.forEach((contests, column) => {
    for (const contest of contests) {
      const opensAt = Date.parse(contest.window.opens_at)
      const expiresAt = Date.parse(contest.window.expires_at)
      if (!Number.isFinite(opensAt) || !Number.isFinite(expiresAt)) continue
      const key = `${opensAt}/${expiresAt}`
      let row = rows.get(key)
      if (!row) {
        row = { opensAt, expiresAt, contests: bySeries.map(() => null) }
        rows.set(key, row)
      }
      row.contests[column] = contest
    }
  })
  return [...rows.values()].sort((a, b) => b.opensAt - a.opensAt || b.expiresAt - a.expiresAt)
}

/** The contest's latest reading: the model's confidence on it now (or at its close). */
export function latestSignal(contest: ContestView): ContestView['signals'][number] | null {
  let latest: ContestView['signals'][number] | null = null
  for (const s of contest.signals) if (latest === null || s.raised_at >= latest.raised_at) latest = s
  return latest
}
