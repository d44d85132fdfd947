// Where a contest trades and what the venue's own client needs to place an order on it without a
// second look-up (decisions §16): Kalshi's market and event tickers; Polymarket's event slug,
// condition id and the CLOB token of each outcome, paired by label (Up, Down), never by position.
import { type RealVenueName, VENUE_TITLES, venueOfSeries } from './venues.ts'

export type KalshiRefs = { marketTicker: string; eventTicker: string | null }

export type PolymarketRefs = {
  slug: string
  conditionId: string | null
  upTokenId: string
  downTokenId: string
}

/** The venue and its references; refs are null on contests stored before they were recorded. */
export type ContestVenue =
  | { name: 'kalshi'; refs: KalshiRefs | null }
  | { name: 'polymarket'; refs: PolymarketRefs | null }

/** The public shape of the references (snake_case, as the API sends them). */
export type KalshiRefsView = { market_ticker: string; event_ticker: string | null }
export type PolymarketRefsView = {
  slug: string
  condition_id: string | null
  up_token_id: string
  down_token_id: string
}
export type VenueRefsView = KalshiRefsView | PolymarketRefsView

export function toVenueRefsView(venue: ContestVenue | null): VenueRefsView | null {
  if (!venue?.refs) return null
  if (venue.name === 'kalshi')
    return { market_ticker: venue.refs.marketTicker, event_ticker: venue.refs.eventTicker }
  const r = venue.refs
  return {
    slug: r.slug,
    condition_id: r.conditionId,
    up_token_id: r.upTokenId,
    down_token_id: r.downTokenId,
  }
}

/** The refs as one JSON text, the way both stores keep them beside the contest. */
export function encodeVenueRefs(venue: ContestVenue | null): string | null {
  return venue?.refs ? JSON.stringify(venue.refs) : null
}

/**
 * The stored venue read back. A contest stored before the venue was recorded (name null) takes the
 * venue its series names, with no refs: the service never invents an identifier it did not see.
 * Throws on a stored value that is not one this module wrote (schema drift fails loudly).
 */
export function decodeContestVenue(
  name: string | null,
  refsJson: string | null,
  series: string,
): ContestVenue | null {
  if (name === null) {
    const derived = venueOfSeries(series)
    return derived === null ? null : venueWithoutRefs(derived)
  }
  if (name !== 'kalshi' && name !== 'polymarket') throw new TypeError(`venue: unexpected value ${name}`)
  if (refsJson === null) return venueWithoutRefs(name)
  const refs: unknown = JSON.parse(refsJson)
  if (name === 'kalshi' && isKalshiRefs(refs)) return { name, refs }
  if (name === 'polymarket' && isPolymarketRefs(refs)) return { name, refs }
  throw new TypeError(`venue_refs: not ${name} references`)
}

function venueWithoutRefs(name: RealVenueName): ContestVenue {
  // either member allows null refs; the cast only joins the two
  return { name, refs: null } as ContestVenue
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
const isStringOrNull = (v: unknown): boolean => v === null || typeof v === 'string'

function isKalshiRefs(v: unknown): v is KalshiRefs {
  return isRecord(v) && typeof v.marketTicker === 'string' && isStringOrNull(v.eventTicker)
}

function isPolymarketRefs(v: unknown): v is PolymarketRefs {
  return (
    isRecord(v) &&
    typeof v.slug === 'string' &&
    isStringOrNull(v.conditionId) &&
    typeof v.upTokenId === 'string' &&
    typeof v.downTokenId === 'string'
  )
}

/**
 * One line naming the venue and every reference in full (a person copies them into a bot), as the
 * dashboard shows it under a contest.
 */
export function venueRefsLine(venue: RealVenueName | null, refs: VenueRefsView | null): string {
  if (venue === null) return 'venue not recorded'
  const title = VENUE_TITLES[venue]
  if (refs === null) return `${title} · references not recorded`
  const parts =
    'market_ticker' in refs
      ? [`market ${refs.market_ticker}`, `event ${refs.event_ticker ?? 'unknown'}`]
      : [
          `condition ${refs.condition_id ?? 'unknown'}`,
          `Up token ${refs.up_token_id}`,
          `Down token ${refs.down_token_id}`,
        ]
  return [title, ...parts].join(' · ')
}
