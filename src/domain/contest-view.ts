// The public JSON shape of contests and signals (spec section 2), built once per change and shared by
// the HTTP responses and the stream's event data so both always say the same thing.
import type { Contest, Signal } from './contest.ts'
import { toVenueRefsView, type VenueRefsView } from './venue-refs.ts'
import type { RealVenueName } from './venues.ts'

export type SignalView = {
  ticker: string
  raised_at: string
  side: Signal['side']
  confidence: number
  entry_price_cents: number
  edge_cents: number
  outcome: Signal['outcome']
  model_version: string | null
}

export type ContestView = {
  ticker: string
  state: Contest['state']
  window: { opens_at: string; expires_at: string }
  strike_price_dollars: number | null
  settled_side: Contest['settledSide']
  settled_price_dollars: number | null
  venue: RealVenueName | null
  venue_refs: VenueRefsView | null
  signals: SignalView[]
}

/** RFC 3339 in UTC with `Z`, whole seconds (window bounds are whole quarter-hours). */
export function formatInstant(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
}

/** RFC 3339 in UTC with `Z` and milliseconds, for `raised_at`. */
export function formatInstantMs(ms: number): string {
  return new Date(ms).toISOString()
}

export function toSignalView(s: Signal): SignalView {
  return {
    ticker: s.ticker,
    raised_at: formatInstantMs(s.raisedAt),
    side: s.side,
    confidence: s.confidence,
    entry_price_cents: s.entryPriceCents,
    edge_cents: s.edgeCents,
    outcome: s.outcome,
    model_version: s.modelVersion,
  }
}

export function toContestView(c: Contest): ContestView {
  return {
    ticker: c.ticker,
    state: c.state,
    window: { opens_at: formatInstant(c.opensAt), expires_at: formatInstant(c.expiresAt) },
    strike_price_dollars: c.strikePriceDollars,
    settled_side: c.settledSide,
    settled_price_dollars: c.settledPriceDollars,
    venue: c.venue?.name ?? null,
    venue_refs: toVenueRefsView(c.venue),
    signals: c.signals.map(toSignalView),
  }
}
