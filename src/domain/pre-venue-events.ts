// Events appended before contests carried their venue (store migration 3) hold contest snapshots
// without `venue` and `venue_refs`, which the API document requires on every contest: a client typed
// by it (clients/typescript) reads `venue_refs` as an object or null, and an absent member would
// break its check. Read back, such a snapshot gains what the contest itself reads back with (the
// venue its series names, no references: decodeContestVenue), so the stream and REST agree.
import type { EventType } from './events.ts'
import { decodeContestVenue } from './venue-refs.ts'

/** Every snapshot written since carries this member; one without it predates the venue columns. */
const RECORDED = '"venue_refs":'

/** `data` with both venue members on its contest snapshot, unchanged when it has them or holds none. */
export function withVenueMembers(type: EventType, series: string, data: string): string {
  if (data.includes(RECORDED) || (type !== 'signal.emitted' && !type.startsWith('contest.'))) return data
  const parsed = JSON.parse(data) as Record<string, unknown>
  const venue = decodeContestVenue(null, null, series)?.name ?? null
  const complete = (view: Record<string, unknown>): Record<string, unknown> => {
    const { signals, ...rest } = view
    return { ...rest, venue, venue_refs: null, signals }
  }
  const payload =
    type === 'signal.emitted'
      ? { ...parsed, contest: complete(parsed.contest as Record<string, unknown>) }
      : complete(parsed)
  return JSON.stringify(payload)
}
