// Contests and signals as the engine and the store see them. Times are epoch milliseconds on the
// service clock (virtual when SIM_SPEED > 1); prices are plain numbers with at most 2 decimals.
import type { ContestVenue } from './venue-refs.ts'

export const CONTEST_STATES = ['live', 'expired', 'settled'] as const
export type ContestState = (typeof CONTEST_STATES)[number]

export const SIDES = ['up', 'down'] as const
export type Side = (typeof SIDES)[number]

export const OUTCOMES = ['pending', 'win', 'loss', 'void'] as const
export type Outcome = (typeof OUTCOMES)[number]

export const CONTEST_MINUTES = 15
export const MINUTE_MS = 60_000
export const CONTEST_MS = CONTEST_MINUTES * MINUTE_MS

export type Signal = {
  ticker: string
  /** whole minute of the contest window the reading belongs to: 1..14 */
  minute: number
  raisedAt: number
  side: Side
  confidence: number
  entryPriceCents: number
  edgeCents: number
  outcome: Outcome
  modelVersion: string | null
  /** what produced the reading (decisions §11): stored, never published; absent on older rows */
  inputs?: ReadingInputs
}

/** The inputs of one reading as the store keeps them beside it (decisions §11), internal only. */
export type ReadingInputs = {
  /** service ms the spot and the book were observed at */
  spotObservedAt: number
  bookObservedAt: number
  spotDollars: number
  freshSources: number
  upAskCents: number | null
  downAskCents: number | null
  /** the per-minute σ and the effective minutes left the model priced with */
  sigmaPerMinute: number
  effectiveMinutes: number
  /** P(up) before bounding and rounding */
  probabilityUp: number
  /** P(up) before any pooling with the venue's mid (ModelOutput.modelAloneUp); null on older rows */
  modelAloneUp: number | null
}

export type Contest = {
  ticker: string
  series: string
  state: ContestState
  opensAt: number
  expiresAt: number
  strikePriceDollars: number | null
  settledSide: Side | null
  settledPriceDollars: number | null
  /** true when the venue voided the contest: settled, no side, every signal void */
  voided: boolean
  /** where it trades and the venue's references (decisions §16); null when neither is known */
  venue: ContestVenue | null
  /** oldest first */
  signals: Signal[]
}

/** What the venue reports once a contest's result is known. */
export type Settlement =
  | { kind: 'settled'; side: Side; priceDollars: number | null }
  | { kind: 'void'; priceDollars: number | null }

/** `up` when the settlement price is at or above the strike: a tie goes up, as on the venue. */
export function sideForPrice(priceDollars: number, strikeDollars: number): Side {
  return priceDollars >= strikeDollars ? 'up' : 'down'
}

export function gradeSignal(signal: Signal, settlement: Settlement): Outcome {
  if (settlement.kind === 'void') return 'void'
  return signal.side === settlement.side ? 'win' : 'loss'
}

/** Settles a contest and grades all its signals in one step; graded signals never change again. */
export function settleContest(contest: Contest, settlement: Settlement): Contest {
  if (contest.state === 'settled') return contest
  return {
    ...contest,
    state: 'settled',
    settledSide: settlement.kind === 'void' ? null : settlement.side,
    settledPriceDollars: settlement.priceDollars,
    voided: settlement.kind === 'void',
    signals: contest.signals.map((s) => ({ ...s, outcome: gradeSignal(s, settlement) })),
  }
}

/** What a venue may change on a market while it trades: its window, and its strike once set. */
export type MarketRevision = { strikePriceDollars: number | null; opensAt: number; expiresAt: number }

/**
 * A live contest brought in line with the venue's latest view of its market, or null when nothing
 * changes (or the contest is settled). A strike once known is never replaced: the venue sets it
 * once, and signals already graded against it must keep meaning what they meant. An expired
 * contest takes only a strike it lacked (Polymarket publishes its price to beat after the window,
 * decisions §14); its window is history.
 */
export function reviseContest(contest: Contest, revision: MarketRevision): Contest | null {
  if (contest.state === 'expired') {
    if (contest.strikePriceDollars !== null || revision.strikePriceDollars === null) return null
    return { ...contest, strikePriceDollars: revision.strikePriceDollars }
  }
  if (contest.state !== 'live') return null
  const strikePriceDollars = contest.strikePriceDollars ?? revision.strikePriceDollars
  if (
    strikePriceDollars === contest.strikePriceDollars &&
    revision.opensAt === contest.opensAt &&
    revision.expiresAt === contest.expiresAt
  )
    return null
  return { ...contest, strikePriceDollars, opensAt: revision.opensAt, expiresAt: revision.expiresAt }
}

/**
 * Whether a contest is live at `now` on the service clock (decisions §3: opens_at ≤ now <
 * expires_at): one stored live stops being live at its expires_at, before the engine writes it.
 */
export function isLiveAt(contest: Pick<Contest, 'state' | 'expiresAt'>, now: number): boolean {
  return contest.state === 'live' && now < contest.expiresAt
}

/** The whole minute of the window at `now` (0 at open, 14 in the last minute), or null outside it. */
export function minuteOfContest(contest: Pick<Contest, 'opensAt' | 'expiresAt'>, now: number): number | null {
  if (now < contest.opensAt || now >= contest.expiresAt) return null
  return Math.floor((now - contest.opensAt) / MINUTE_MS)
}

/** Rounds to 2 decimals, the precision of every published number. */
export function round2(x: number): number {
  return Math.round(x * 100) / 100
}
