// What the engine reports about its upstream sources, for the health check of every api replica
// (decisions §8): kept in the store as a setting, because the api and the engine may be different
// processes and only the engine talks to the venue and the exchanges.

export const FEED_STATUS_SETTING = 'feed-status'

/** What health says of the venue (the ports' VenueCheck, repeated here: the domain imports no port). */
export type VenueCheck = 'ok' | 'paused' | 'unreachable' | 'malformed'

/** One source as the adapters report it (the ports' SourceStatus, of which only these fields travel). */
export type SourceState = {
  name: string
  state: 'ok' | 'down'
  /** a networked venue's own verdict; absent for the simulator and the spot sources */
  check?: VenueCheck
  /** inside a pause the venue scheduled */
  scheduledPause?: boolean
}

export type FeedStatus = { venue: SourceState; spot: SourceState[] }

export type FeedChecks = {
  venue: VenueCheck
  spot: 'ok' | 'unreachable'
  /** whether the venue's check turns health `degraded`: not for a pause the venue scheduled */
  venueDegraded: boolean
}

export function encodeFeedStatus(venue: SourceState, spot: readonly SourceState[]): string {
  const status: FeedStatus = {
    venue: {
      name: venue.name,
      state: venue.state,
      ...(venue.check ? { check: venue.check } : {}),
      ...(venue.scheduledPause ? { scheduledPause: true } : {}),
    },
    spot: spot.map((s) => ({ name: s.name, state: s.state })),
  }
  return JSON.stringify(status)
}

const VENUE_CHECKS: readonly string[] = ['ok', 'paused', 'unreachable', 'malformed']

/**
 * The venue's check is its adapter's verdict (or `unreachable` when an adapter without one says it
 * is down). A pause the venue scheduled (the weekly Thursday maintenance) reads `paused` and keeps
 * health `ok`; an unscheduled pause or outage, or quotes that all fail to parse, degrade it (decisions
 * §8). The spot is unreachable only when every source is. An unreadable or missing report checks as
 * ok: the engine's own staleness check already covers an engine that stopped writing.
 */
export function feedChecks(raw: string | null): FeedChecks {
  let status: FeedStatus | null = null
  try {
    status = raw === null ? null : (JSON.parse(raw) as FeedStatus)
  } catch {
    status = null
  }
  if (!status || !Array.isArray(status.spot)) return { venue: 'ok', spot: 'ok', venueDegraded: false }
  const reported = status.venue?.check
  const venue: VenueCheck =
    typeof reported === 'string' && VENUE_CHECKS.includes(reported)
      ? reported
      : status.venue?.state === 'down'
        ? 'unreachable'
        : 'ok'
  return {
    venue,
    spot: status.spot.length > 0 && status.spot.every((s) => s.state === 'down') ? 'unreachable' : 'ok',
    venueDegraded: venue !== 'ok' && !(venue === 'paused' && status.venue?.scheduledPause === true),
  }
}
