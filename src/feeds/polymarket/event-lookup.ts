// One window's event from Gamma by slug (venue facts §3.2.3): `GET /events/slug/{slug}`, and when that
// answers 404 or no object, the listing `GET /events?slug={slug}` (an array). List queries hide
// closed events unless asked (`closed=false` is their default since 2026-04-09, venue facts §3.2.2), so
// a window that has ended is listed with `closed=true` first; and since list filters have been seen
// ignored, only an element whose slug is the one asked counts.
import type { JsonClient } from '../venue-http/json-client.ts'
import type { GammaEndpoint } from './polymarket-client.ts'
import { isRecord } from './venue-values.ts'

export type EventLookup =
  /** the raw event body as the venue gave it, and where from */
  | { kind: 'found'; raw: unknown; via: 'slug' | 'listing' }
  /** the venue answered, and has no such event (yet) */
  | { kind: 'absent' }
  /** no usable answer: the status (HTTP code, `timeout`, `error`, `aborted`…) and the venue's words */
  | { kind: 'failed'; status: string; message: string }

export async function lookUpEvent(
  gamma: JsonClient<GammaEndpoint>,
  slug: string,
  windowEnded: boolean,
  signal?: AbortSignal,
): Promise<EventLookup> {
  const reply = await gamma.get('event', `/events/slug/${encodeURIComponent(slug)}`, {}, { signal })
  if (reply.ok && isRecord(reply.body)) return { kind: 'found', raw: reply.body, via: 'slug' }
  if (!reply.ok && reply.status !== '404')
    return { kind: 'failed', status: reply.status, message: reply.message }
  // 404, or a 2xx that is no event (null, a bare array): the listing may still know it
  for (const closed of windowEnded ? ['true', 'false'] : ['false']) {
    const listing = await gamma.get('events', '/events', { slug, closed }, { signal })
    if (!listing.ok) return { kind: 'failed', status: listing.status, message: listing.message }
    if (!Array.isArray(listing.body))
      return { kind: 'failed', status: 'malformed', message: 'the event listing is not an array' }
    const match = listing.body.find((e) => isRecord(e) && e.slug === slug)
    if (match !== undefined) return { kind: 'found', raw: match, via: 'listing' }
  }
  return { kind: 'absent' }
}
