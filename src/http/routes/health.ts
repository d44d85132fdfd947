// GET and HEAD /v1/health (decisions §4): no key, never rate limited, never cached. 503 with the
// health body when the store cannot be reached; "degraded" when the engine is stale or the shared
// rate-limit store is down.

import { Type } from 'typebox'
import { formatInstantMs } from '../../domain/contest-view.ts'
import type { BucketStore } from '../../ports/bucket-store.ts'
import type { Clock } from '../../ports/clock.ts'
import type { StoreProbe } from '../../store/store-probe.ts'
import { PATHS } from '../paths.ts'
import { PROBLEM_MEDIA_TYPE, PROBLEMS } from '../problems.ts'
import { JSON_MEDIA_TYPE, PROBLEM_RESPONSES, problemResponses } from '../schemas.ts'
import type { TypedApp } from '../typed-app.ts'

export type HealthRouteDeps = {
  probe: StoreProbe
  buckets: BucketStore
  clock: Clock
  wallClock: Clock
  version: string
}

/** An engine that has not written for this long (wall time) is reported stale. */
export const ENGINE_STALE_AFTER_MS = 2 * 60_000

export function registerHealthRoute(app: TypedApp, deps: HealthRouteDeps): void {
  app.get(
    PATHS.health,
    {
      // load balancers probe every few seconds: their requests are not worth an info line each (a
      // failure still logs at warn or error)
      logLevel: 'warn',
      schema: {
        operationId: 'getHealth',
        summary: 'Health check',
        description:
          'Needs no key and is not rate limited. 200 with status "ok", or "degraded" when the store refuses writes (checks.store "degraded": a full disk, an I/O error; ok again after a write succeeds) or has returned a damaged page (checks.store "corrupt": restore a backup), the engine is stale, the shared rate-limit store is unreachable, or (with a real venue) the venue or every spot source has been unreachable for over a minute, the venue paused trading outside its schedule, or every order book of the last 3 minutes failed to parse (checks.venue "unreachable", "paused" or "malformed"); during a pause the venue scheduled, checks.venue is "paused" and the status stays "ok". With several venues, checks.venues gives each venue’s own check and checks.venue the one that says most. With a Kalshi key, checks.index says whether BRTI, the settlement index itself, flows (ok, stale, refused); it never changes the status. 503 with status "unavailable" when the store cannot be reached. Also answers HEAD.',
        tags: ['health'],
        security: [],
        response: {
          200: {
            description: 'The service answers; see status and checks.',
            content: { [JSON_MEDIA_TYPE]: { schema: Type.Ref('Health') } },
          },
          ...problemResponses(431, 500),
          503: {
            description:
              'The store cannot be reached (health body, status "unavailable"), or the server is shutting down (problem).',
            headers: PROBLEM_RESPONSES[503].headers,
            content: {
              [JSON_MEDIA_TYPE]: { schema: Type.Ref('Health') },
              [PROBLEM_MEDIA_TYPE]: { schema: Type.Ref('Problem') },
            },
          },
        },
      },
    },
    async (_request, reply) => {
      const store = await deps.probe.read()
      const heartbeat = store.engineHeartbeat
      const engine = !store.reachable
        ? 'unknown'
        : heartbeat !== null && deps.wallClock.now() - heartbeat <= ENGINE_STALE_AFTER_MS
          ? 'ok'
          : 'stale'
      const rateLimitDegraded = deps.buckets.health() === 'degraded'
      const { venue, venues, spot, venueDegraded, index } = store.feeds
      const feedsDown = venueDegraded || spot !== 'ok'
      const status = !store.reachable
        ? 'unavailable'
        : store.condition !== 'ok' || engine !== 'ok' || rateLimitDegraded || feedsDown
          ? 'degraded'
          : 'ok'
      const body = {
        status,
        version: deps.version,
        time: formatInstantMs(deps.clock.now()),
        checks: {
          // "degraded" while the disk refuses writes, "corrupt" once a damaged page was read
          store: store.reachable ? store.condition : 'unavailable',
          engine,
          ...(rateLimitDegraded ? { rate_limit: 'degraded' } : {}),
          // present only when not ok, like rate_limit: a healthy deployment's body stays as decisions §4
          // shows it; `paused` during a pause the venue scheduled leaves the status ok (decisions §8)
          ...(venue !== 'ok' ? { venue } : {}),
          // with several venues each by name, ok included, so a probe sees which one (decisions §14)
          ...(venues ? { venues } : {}),
          ...(spot !== 'ok' ? { spot } : {}),
          // informational: without the index the exchange median is the spot, so it never degrades
          ...(index ? { index } : {}),
        },
      }
      reply.header('cache-control', 'no-store')
      if (!store.reachable) reply.code(503).header('retry-after', String(PROBLEMS.unavailable.retryAfterS))
      return reply.type(`${JSON_MEDIA_TYPE}; charset=utf-8`).send(JSON.stringify(body))
    },
  )
}
