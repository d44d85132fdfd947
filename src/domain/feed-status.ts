// What the engine reports about its upstream sources, for the health check of every api replica
// (decisions §8): kept in the store as a setting, because the api and the engine may be different
// processes and only the engine talks to the venue and the exchanges.

export const FEED_STATUS_SETTING = 'feed-status'

/** One source as the adapters report it (the ports' SourceStatus, of which only these fields travel). */
export type SourceState = { name: string; state: 'ok' | 'down' }

export type FeedStatus = { venue: SourceState; spot: SourceState[] }

export type FeedChecks = { venue: 'ok' | 'unreachable'; spot: 'ok' | 'unreachable' }

export function encodeFeedStatus(venue: SourceState, spot: readonly SourceState[]): string {
  const status: FeedStatus = {
    venue: { name: venue.name, state: venue.state },
    spot: spot.map((s) => ({ name: s.name, state: s.state })),
  }
  return JSON.stringify(status)
}

/**
 * The venue is unreachable when its adapter says so; the spot is unreachable only when every source
 * is (one live exchange still gives a median). An unreadable or missing report checks as ok: the
 * engine's own staleness check already covers an engine that stopped writing.
 */
export function feedChecks(raw: string | null): FeedChecks {
  let status: FeedStatus | null = null
  try {
    status = raw === null ? null : (JSON.parse(raw) as FeedStatus)
  } catch {
    status = null
  }
  if (!status || !Array.isArray(status.spot)) return { venue: 'ok', spot: 'ok' }
  return {
    venue: status.venue?.state === 'down' ? 'unreachable' : 'ok',
    spot: status.spot.length > 0 && status.spot.every((s) => s.state === 'down') ? 'unreachable' : 'ok',
  }
}
