// One model reading of a contest at one of its whole minutes: the same code raises live signals and
// rebuilds backfilled ones, so history looks exactly as the live engine would have made it.
import { CONTEST_MINUTES, type Contest, MINUTE_MS, type Signal } from '../domain/contest.ts'
import { EWMA_CLOSES, evaluateReading, MODEL_VERSION } from '../domain/model.ts'
import type { PriceFeed, Venue } from '../ports/venue.ts'

/** Readings are taken at minutes 1..14: minute 0 has no price history inside the window yet. */
export const FIRST_READING_MINUTE = 1
export const LAST_READING_MINUTE = CONTEST_MINUTES - 1

/** Why a minute raised no reading (decisions §8): each is counted in metrics and logged once per contest. */
export const SKIP_REASONS = ['no-strike', 'no-quote', 'no-spot', 'paused'] as const
export type SkipReason = (typeof SKIP_REASONS)[number]
export type SkippedReading = { skipped: SkipReason }

export function isSkipped(reading: Signal | SkippedReading): reading is SkippedReading {
  return 'skipped' in reading
}

/**
 * The reading for `minute`, evaluated at that whole minute (decisions §3), not at the moment the
 * tick happened to run: a late tick then raises the same numbers, and so does a backfill or a
 * restart with the same simulator seed. Skipped while the exchange has paused trading, when the
 * strike is unknown, neither side has an ask, or too few spot sources are fresh.
 */
export async function takeReading(
  deps: { venue: Venue; feed: PriceFeed },
  contest: Contest,
  minute: number,
  raisedAt: number,
): Promise<Signal | SkippedReading> {
  const at = contest.opensAt + minute * MINUTE_MS
  // the exchange's own word, whatever the market statuses say (decisions §8, the weekly pause)
  if (deps.venue.tradingPaused?.(at)) return { skipped: 'paused' }
  const strike = contest.strikePriceDollars
  if (strike === null) return { skipped: 'no-strike' }
  const quote = await deps.venue.quote(contest.ticker, at)
  if (!quote || (quote.upAskCents === null && quote.downAskCents === null)) return { skipped: 'no-quote' }
  const [spot, closes] = await Promise.all([
    deps.feed.spotAt(at),
    deps.feed.minuteClosesBefore(at, EWMA_CLOSES),
  ])
  if (spot === null) return { skipped: 'no-spot' }
  const reading = evaluateReading({
    spot,
    strike,
    closes,
    minutesLeft: (contest.expiresAt - at) / MINUTE_MS,
    quote,
  })
  return {
    ticker: contest.ticker,
    minute,
    raisedAt,
    side: reading.side,
    confidence: reading.confidence,
    entryPriceCents: reading.entryPriceCents,
    edgeCents: reading.edgeCents,
    outcome: 'pending',
    modelVersion: MODEL_VERSION,
  }
}
