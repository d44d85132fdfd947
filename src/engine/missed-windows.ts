// Windows that opened and closed while no engine led (every engine killed or stopped for a while):
// the venue held them and settled them, so history records them too, settled with no signals (the
// engine read none of them live, and a signal is a live reading: none is made up afterwards). Only a
// venue that can answer for past windows (the simulator) is asked; a real venue's adapter knows the
// markets it has polled, so its missed windows stay out (docs/operating.md).
import { type Contest, settleContest } from '../domain/contest.ts'
import { QUARTER_MS, quarterStart } from '../domain/ticker.ts'
import { replayUndecided } from './backfill.ts'
import { liveContestFor } from './contest-steps.ts'
import { notifyCommitted, type StepContext } from './engine-context.ts'

/** How far back a restart looks for missed windows: a week, as the default backfill. */
export const MISSED_WINDOWS_MAX_MS = 7 * 86_400_000

/** The newest window of `series` the store holds, settled or not; null when it holds none. */
async function newestOpensAt(ctx: StepContext, series: string): Promise<number | null> {
  const settled = (await ctx.store.listSettled({ series, limit: 1 }))[0]?.opensAt ?? null
  const unsettled = (await ctx.store.listUnsettled()).filter((c) => c.series === series).map((c) => c.opensAt)
  const all = settled === null ? unsettled : [settled, ...unsettled]
  return all.length === 0 ? null : Math.max(...all)
}

/**
 * Records every window of each series after the newest stored one and before the current quarter
 * (at most MISSED_WINDOWS_MAX_MS back): settled with no signals, or, whose result is not out yet,
 * opened and expired for the ticks to settle. Returns how many windows it recorded.
 */
export async function recordMissedWindows(
  ctx: StepContext,
  series: readonly string[],
  now: number,
): Promise<number> {
  const current = quarterStart(now)
  let recorded = 0
  for (const s of series) {
    const newest = await newestOpensAt(ctx, s)
    if (newest === null) continue
    const settled: Contest[] = []
    for (
      let opensAt = Math.max(newest + QUARTER_MS, current - MISSED_WINDOWS_MAX_MS);
      opensAt < current;
      opensAt += QUARTER_MS
    ) {
      const market = await ctx.venue.marketAt(s, opensAt)
      if (!market || market.opensAt !== opensAt) continue
      const contest = liveContestFor(market)
      const settlement = await ctx.venue.result(market.ticker, now)
      if (settlement) settled.push(settleContest(contest, settlement))
      else {
        await replayUndecided(ctx, contest)
        recorded++
      }
    }
    if (settled.length > 0) {
      recorded += await ctx.store.importHistory(settled)
      await notifyCommitted(ctx, await ctx.store.latestSeq())
    }
  }
  return recorded
}
