// Simulator backfill (decisions §2, SIM_BACKFILL_DAYS): on a first start, rebuild the settled
// history of the last days exactly as the live engine would have produced it, so the history
// endpoint is useful from the first request.
import { setImmediate as yieldTurn } from 'node:timers/promises'
import { type Contest, MINUTE_MS, type Signal, settleContest } from '../domain/contest.ts'
import { QUARTER_MS, quarterStart } from '../domain/ticker.ts'
import { liveContestFor } from './contest-steps.ts'
import { notifyCommitted, published, type StepContext } from './engine-context.ts'
import { FIRST_READING_MINUTE, isSkipped, LAST_READING_MINUTE, takeReading } from './reading.ts'

const DAY_MS = 86_400_000
/** Contests per importHistory call: one transaction each, small enough not to hold the writer long. */
export const BACKFILL_CHUNK = 1_000

export class LeadershipLostError extends Error {
  constructor() {
    super('engine lease lost during backfill')
    this.name = 'LeadershipLostError'
  }
}

export class BackfillStopped extends Error {
  constructor() {
    super('backfill stopped by a stop asked for while starting')
    this.name = 'BackfillStopped'
  }
}

export type BackfillOptions = {
  series: readonly string[]
  now: number
  days: number
  /** Renews the lease between chunks; false when it was lost, which aborts the backfill. */
  keepLease: () => Promise<boolean>
  chunkSize?: number
  /** aborted: stop at the next window with BackfillStopped (what was written stays) */
  stopping?: AbortSignal
}

export type BackfillResult = { imported: number; unsettled: number }

/**
 * Every quarter hour from the start of the quarter `days` before `now` up to (not including) the
 * current quarter, per series: 96 contests per day and series. A window whose result the venue has
 * not published yet (it closed less than the settlement delay ago) goes through the live path
 * instead (opened, read, expired) and the next ticks settle it like any other.
 */
export async function backfillHistory(ctx: StepContext, opts: BackfillOptions): Promise<BackfillResult> {
  const chunkSize = opts.chunkSize ?? BACKFILL_CHUNK
  const first = quarterStart(opts.now - opts.days * DAY_MS)
  const end = quarterStart(opts.now)
  let imported = 0
  const undecided: Contest[] = []

  const flush = async (chunk: Contest[]): Promise<void> => {
    if (chunk.length === 0) return
    if (!(await opts.keepLease())) throw new LeadershipLostError()
    imported += await ctx.store.importHistory(chunk)
    await notifyCommitted(ctx, await ctx.store.latestSeq())
    chunk.length = 0
  }

  for (const series of opts.series) {
    const chunk: Contest[] = []
    for (let opensAt = first; opensAt < end; opensAt += QUARTER_MS) {
      // the simulator answers without I/O, so a window's work never yields: give the loop a turn,
      // or a SIGTERM is heard only once the whole backfill is done
      if (opts.stopping) {
        await yieldTurn()
        if (opts.stopping.aborted) throw new BackfillStopped()
      }
      const market = await ctx.venue.marketAt(series, opensAt)
      if (!market || market.opensAt !== opensAt) continue
      const live = liveContestFor(market)
      const signals = await historicReadings(ctx, live)
      const settlement = await ctx.venue.result(market.ticker, opts.now)
      if (settlement) {
        chunk.push(settleContest({ ...live, signals }, settlement))
        if (chunk.length >= chunkSize) await flush(chunk)
      } else {
        undecided.push({ ...live, signals })
      }
    }
    await flush(chunk)
  }

  for (const contest of undecided) {
    if (!(await opts.keepLease())) throw new LeadershipLostError()
    await replayUndecided(ctx, contest)
  }
  return { imported, unsettled: undecided.length }
}

async function historicReadings(ctx: StepContext, contest: Contest): Promise<Signal[]> {
  const signals: Signal[] = []
  for (let minute = FIRST_READING_MINUTE; minute <= LAST_READING_MINUTE; minute++) {
    const at = contest.opensAt + minute * MINUTE_MS
    // observed at the boundary, as a replay on a virtual clock observes it (decisions §11, §12):
    // only raised_at carries the latency stand-in, so a rebuilt history and a replay of the same
    // world give the model the same spot instant and the same time left
    const reading = await takeReading(ctx, contest, minute, at)
    if (!isSkipped(reading))
      signals.push({ ...reading, raisedAt: at + readingLatencyMs(contest.ticker, minute) })
  }
  return signals
}

/**
 * Open, read and expire a closed window whose result is still pending; the live ticks settle it.
 * A window already stored (a backfill gone on with after a kill) is left as it stands.
 */
export async function replayUndecided(ctx: StepContext, contest: Contest): Promise<void> {
  const { signals, ...rest } = contest
  const opened = await ctx.store.openContest({ ...rest, signals: [] })
  if (opened === null) return
  await published(ctx, opened)
  for (const signal of signals) await published(ctx, await ctx.store.addSignal(signal))
  await published(ctx, await ctx.store.expireContest(contest.ticker))
}

/**
 * A live reading is raised a little after its whole minute (the tick's latency). Backfilled ones,
 * observed at the boundary, are raised a deterministic 100–899 ms stand-in after it, derived from the
 * ticker and minute, so a rebuilt history is the same on every run and its readings look like live ones.
 */
export function readingLatencyMs(ticker: string, minute: number): number {
  let h = 0x811c9dc5 // FNV-1a, 32 bit
  const key = `${ticker}#${minute}`
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193)
  return 100 + ((h >>> 0) % 800)
}
