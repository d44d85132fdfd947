// What the engine reports about its upstream sources, for the health check of every api replica
// (decisions §8): kept in the store as a setting, because the api and the engine may be different
// processes and only the engine talks to the venue and the exchanges.

export const FEED_STATUS_SETTING = 'feed-status'

/** What health says of the venue (the ports' VenueCheck, repeated here: the domain imports no port). */
export type VenueCheck = 'ok' | 'paused' | 'unreachable' | 'malformed'

/**
 * The settlement index's own verdict: `ok` while its prints are fresh (the model's spot), `refused`
 * when the venue said the account lacks the entitlement, `stale` otherwise (the exchange median is
 * the spot meanwhile).
 */
export type IndexCheck = 'ok' | 'stale' | 'refused'

/** One source as the adapters report it (the ports' SourceStatus, of which only these fields travel). */
export type SourceState = {
  name: string
  state: 'ok' | 'down'
  /** a networked venue's own verdict; absent for the simulator and the spot sources */
  check?: VenueCheck
  /** inside a pause the venue scheduled */
  scheduledPause?: boolean
  /** only on the settlement index's own source (BRTI with a Kalshi key) */
  index?: IndexCheck
}

/** `venues` only when the engine follows several (decisions §14); `venue` is then the worst of them. */
export type FeedStatus = { venue: SourceState; venues?: SourceState[]; spot: SourceState[] }

export type FeedChecks = {
  /** the venue's check, or with several venues the one that says most (a fault before a scheduled pause) */
  venue: VenueCheck
  /** each venue's own check by name, when the engine follows several; null with one */
  venues: Readonly<Record<string, VenueCheck>> | null
  spot: 'ok' | 'unreachable'
  /** whether a venue's check turns health `degraded`: not for a pause the venue scheduled */
  venueDegraded: boolean
  /** whether the settlement index flows, when the engine follows it; null when it does not */
  index: IndexCheck | null
}

/** What health reads when the engine has said nothing (yet): every check ok, no index followed. */
export const FEEDS_OK: FeedChecks = {
  venue: 'ok',
  venues: null,
  spot: 'ok',
  venueDegraded: false,
  index: null,
}

const VENUE_CHECKS: readonly string[] = ['ok', 'paused', 'unreachable', 'malformed']
const INDEX_CHECKS: readonly string[] = ['ok', 'stale', 'refused']

export function encodeFeedStatus(
  venues: SourceState | readonly SourceState[],
  spot: readonly SourceState[],
): string {
  const all = (Array.isArray(venues) ? venues : [venues]) as readonly SourceState[]
  const slim = (venue: SourceState): SourceState => ({
    name: venue.name,
    state: venue.state,
    ...(venue.check ? { check: venue.check } : {}),
    ...(venue.scheduledPause ? { scheduledPause: true } : {}),
  })
  const judged = all.map((v) => ({ v, ...judgeVenue(v) }))
  // an api of the previous version reads `venue` alone: give it the venue that says most
  const worst = judged.reduce((w, j) => (rank(j) > rank(w) ? j : w))
  const status: FeedStatus = {
    venue: slim(worst.v),
    ...(all.length > 1 ? { venues: all.map(slim) } : {}),
    spot: spot.map((s) => ({ name: s.name, state: s.state, ...(s.index ? { index: s.index } : {}) })),
  }
  return JSON.stringify(status)
}

/**
 * A venue's check is its adapter's verdict (or `unreachable` when an adapter without one says it is
 * down). A pause the venue scheduled (the weekly Thursday maintenance) reads `paused` and keeps
 * health `ok`; an unscheduled pause or outage, or quotes that all fail to parse, degrade it (decisions
 * §8).
 */
function judgeVenue(venue: Partial<SourceState> | undefined): { check: VenueCheck; degraded: boolean } {
  const reported = venue?.check
  const check: VenueCheck =
    typeof reported === 'string' && VENUE_CHECKS.includes(reported)
      ? reported
      : venue?.state === 'down'
        ? 'unreachable'
        : 'ok'
  return { check, degraded: check !== 'ok' && !(check === 'paused' && venue?.scheduledPause === true) }
}

const CHECK_RANK: Readonly<Record<VenueCheck, number>> = { ok: 0, paused: 1, malformed: 2, unreachable: 3 }
/** A degrading check outranks any that does not; among equals, the graver check. */
const rank = (j: { check: VenueCheck; degraded: boolean }) => (j.degraded ? 10 : 0) + CHECK_RANK[j.check]

/**
 * Health's view of the engine's report: each venue judged on its own (`judgeVenue`), with several
 * venues the one that says most as `venue` and each by name in `venues`; degraded when any venue's
 * check degrades. The spot is unreachable only when every source is. An unreadable or missing report
 * checks as ok: the engine's own staleness check already covers an engine that stopped writing.
 */
export function feedChecks(raw: string | null): FeedChecks {
  let status: FeedStatus | null = null
  try {
    status = raw === null ? null : (JSON.parse(raw) as FeedStatus)
  } catch {
    status = null
  }
  if (!status || !Array.isArray(status.spot)) return FEEDS_OK
  const several = Array.isArray(status.venues) && status.venues.length > 1 ? status.venues : null
  const judged = (several ?? [status.venue]).map((v) => ({ name: String(v?.name ?? ''), ...judgeVenue(v) }))
  const worst = judged.reduce((w, j) => (rank(j) > rank(w) ? j : w))
  return {
    venue: worst.check,
    venues: several ? Object.fromEntries(judged.map((j) => [j.name, j.check])) : null,
    spot: status.spot.length > 0 && status.spot.every((s) => s.state === 'down') ? 'unreachable' : 'ok',
    venueDegraded: judged.some((j) => j.degraded),
    index: indexCheck(status.spot),
  }
}

/** The index's verdict; an unknown word reads `stale`, since only fresh prints make it the spot. */
function indexCheck(spot: readonly Partial<SourceState>[]): IndexCheck | null {
  const source = spot.find((s) => s?.index !== undefined)
  if (!source) return null
  return INDEX_CHECKS.includes(String(source.index)) ? (source.index as IndexCheck) : 'stale'
}
