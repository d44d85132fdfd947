// The live steps of one tick: open the venue's current market, raise the current minute's reading,
// expire what has closed and settle what the venue has decided. Each step is idempotent: it reads
// the stored state and the store rejects duplicates, so a retried or doubled step changes nothing.
import { type Contest, MINUTE_MS, minuteOfContest, reviseContest } from '../domain/contest.ts'
import type { VenueMarket } from '../ports/venue.ts'
import { published, type StepContext } from './engine-context.ts'
import { FIRST_READING_MINUTE, isSkipped, LAST_READING_MINUTE, takeReading } from './reading.ts'

export function liveContestFor(market: VenueMarket): Contest {
  return {
    ticker: market.ticker,
    series: market.series,
    state: 'live',
    opensAt: market.opensAt,
    expiresAt: market.expiresAt,
    strikePriceDollars: market.strikePriceDollars,
    settledSide: null,
    settledPriceDollars: null,
    voided: false,
    venue: market.venue,
    signals: [],
  }
}

/**
 * Opens the market of `series` that is live at `now` unless the store already has it, and returns
 * the contest when this call opened it. `known` remembers tickers already in the store, so a steady
 * state costs no store read per tick.
 */
export async function openCurrentContest(
  ctx: StepContext,
  series: string,
  now: number,
  known: Set<string>,
): Promise<Contest | null> {
  const market = await ctx.venue.marketAt(series, now)
  if (!market || now < market.opensAt || now >= market.expiresAt) return null
  if (known.has(market.ticker)) return null
  let opened: Contest | null = null
  if (!(await ctx.store.getContest(market.ticker))) {
    const contest = liveContestFor(market)
    if (await published(ctx, await ctx.store.openContest(contest))) {
      ctx.logger.info({ ticker: market.ticker }, 'contest opened')
      opened = contest
    }
  }
  if (known.size > 1_000) known.clear()
  known.add(market.ticker)
  return opened
}

/**
 * Moves one unsettled contest along: follow the venue's changes to a live market, expire it when its
 * window has passed or the venue stopped trading it, else read the current minute; settle when decided.
 */
export async function advanceContest(ctx: StepContext, contest: Contest, now: number): Promise<void> {
  let current = contest
  let closedByVenue = false
  // an expired contest still follows its market: a strike published after the window (Polymarket's
  // price to beat, decisions §14) is recorded before, or at, its settlement
  if (current.state === 'live' || (current.state === 'expired' && current.strikePriceDollars === null)) {
    const market = await ctx.venue.market(current.ticker, now)
    if (market) {
      current = await followRevision(ctx, current, market)
      closedByVenue = market.phase === 'closed'
    }
  }
  let state = current.state
  if (state === 'live' && (current.expiresAt <= now || closedByVenue)) {
    await published(ctx, await ctx.store.expireContest(current.ticker))
    // null means another writer moved it on already; settling below is safe either way
    state = 'expired'
    // its last minute is read no more
    ctx.skips.flush(current.ticker)
  }
  if (state === 'live') await raiseCurrentReading(ctx, current, now)
  else if (state === 'expired') await settleIfDecided(ctx, current.ticker, now)
}

/**
 * A real venue sets the strike after the open and may move the close (decisions §8), or publishes
 * the strike only after the window (decisions §14): the stored contest follows, so later readings
 * and snapshots carry what the venue says now.
 */
async function followRevision(ctx: StepContext, contest: Contest, market: VenueMarket): Promise<Contest> {
  const revision = {
    strikePriceDollars: market.strikePriceDollars,
    opensAt: market.opensAt,
    expiresAt: market.expiresAt,
  }
  const revised = reviseContest(contest, revision)
  if (!revised) return contest
  if (!(await published(ctx, await ctx.store.reviseContest(contest.ticker, revision)))) return contest
  ctx.logger.info(
    {
      ticker: contest.ticker,
      strike: revised.strikePriceDollars,
      opensAt: new Date(revised.opensAt).toISOString(),
      expiresAt: new Date(revised.expiresAt).toISOString(),
    },
    'contest revised by the venue',
  )
  return revised
}

/**
 * Raises the reading of the minute `now` falls in, once. Only the current minute: a minute missed
 * while the engine was down or slow stays missed, because a signal is a live reading, not a replay.
 */
async function raiseCurrentReading(ctx: StepContext, contest: Contest, now: number): Promise<void> {
  const minute = minuteOfContest(contest, now)
  if (minute === null || minute < FIRST_READING_MINUTE || minute > LAST_READING_MINUTE) return
  if (contest.signals.some((s) => s.minute === minute)) return
  // The simulator answers for any instant: its reading observes at the minute's boundary, as its
  // backfill and a replay of its tape do, so the same seed gives the same signals however late the
  // tick fell (decisions §2); raised_at stays the tick's. A real venue is read when the tick reads it,
  // and a tick past READING_MAX_LATE_S is late on either.
  const boundary = contest.opensAt + minute * MINUTE_MS
  const atBoundary = ctx.venue.supportsHistory && now - boundary <= ctx.maxLateMs
  const taken = await takeReading(ctx, contest, minute, atBoundary ? boundary : now)
  const reading =
    atBoundary && !isSkipped(taken) ? { ...taken, raisedAt: Math.max(now, taken.raisedAt) } : taken
  if (isSkipped(reading)) {
    ctx.skips.record(contest.ticker, minute, reading.skipped)
    return
  }
  await published(ctx, await ctx.store.addSignal(reading))
  ctx.skips.raised(contest.ticker, minute)
}

async function settleIfDecided(ctx: StepContext, ticker: string, now: number): Promise<void> {
  const settlement = await ctx.venue.result(ticker, now)
  if (!settlement) return
  if (await published(ctx, await ctx.store.settleContest(ticker, settlement))) {
    ctx.logger.info(
      { ticker, result: settlement.kind === 'void' ? 'void' : settlement.side },
      'contest settled',
    )
  }
}
