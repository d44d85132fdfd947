// The adapter's view of the windows it follows, refreshed from Gamma by slug (venue facts §3.1.2,
// §3.2.3): each poll reads the current and next windows, the one just ended until its result and its
// prices are published, and any older window the engine still asks about. A resolution that takes
// many minutes is waited on (venue facts §3.1.3: up to ~30 min, then an alert, and polled more slowly
// after that). What a body says, and what is kept of it, is the market book's (market-book.ts).
import type { Clock } from '../../ports/clock.ts'
import type { Logger } from '../../ports/logger.ts'
import type { JsonClient } from '../venue-http/json-client.ts'
import { venueOutageLogs } from '../venue-http/venue-outage-log.ts'
import { lookUpEvent } from './event-lookup.ts'
import type { PolymarketBook } from './market-book.ts'
import type { GammaEndpoint } from './polymarket-client.ts'
import { slugsAround, startOfSlug, WINDOW_MS } from './window-slug.ts'

export type TrackerOptions = {
  gamma: JsonClient<GammaEndpoint>
  /** where the bodies go (market-book.ts: validation, merging, results) */
  book: PolymarketBook
  clock: Clock
  logger: Logger
  /** every event body received, as received (recording) */
  onEvent?: (raw: unknown) => void
  /** an ended window still unresolved this long after its end raises an alert; default 30 min */
  resolutionAlertMs?: number
  /** after the alert, such a window is polled this often; default 60 s */
  overduePollMs?: number
  /** windows ended this long ago are no longer followed or kept; default 24 h */
  forgetAfterMs?: number
}

export type PollOutcome = { ok: true } | { ok: false; status: string; message: string }

export type MarketTracker = {
  /** One poll; ok when the current window's lookup got an answer (found or not). */
  pollOnce(signal: AbortSignal): Promise<PollOutcome>
  /** The engine asked about `slug`: follow it until settled (or forgotten). */
  follow(slug: string): void
}

const FOLLOWED_MAX = 1_000

export function createMarketTracker(opts: TrackerOptions): MarketTracker {
  const { gamma, book, clock, logger } = opts
  const resolutionAlertMs = opts.resolutionAlertMs ?? 30 * 60_000
  const overduePollMs = opts.overduePollMs ?? 60_000
  const forgetAfterMs = opts.forgetAfterMs ?? 24 * 3_600_000
  const followed = new Set<string>()
  const lastPolledAt = new Map<string, number>()
  const alerted = new Set<string>()
  const absentWarned = new Set<string>()
  const done = (slug: string, now: number): boolean => book.done(slug, now)
  // an outage fails every lookup of every poll: logged as an outage per window, not per poll
  const lookupOutage = venueOutageLogs(clock, logger, {
    venue: 'polymarket',
    key: 'slug',
    what: (slug) => `polymarket event lookup of ${slug}`,
    started: 'polymarket event lookup failed',
  })

  /** Slugs to read this poll, the current window first. */
  function slugsToPoll(now: number): { current: string; rest: string[] } {
    const { previous, current, next } = slugsAround(now)
    const rest = new Set<string>([next])
    if (!done(previous, now)) rest.add(previous)
    for (const slug of [...followed, ...book.slugs()]) {
      const start = startOfSlug(slug)
      if (start === null) continue
      const end = start * 1000 + WINDOW_MS
      if (now - end > forgetAfterMs) {
        followed.delete(slug)
        book.forget(slug)
        lastPolledAt.delete(slug)
        continue
      }
      if (end > now + WINDOW_MS || done(slug, now)) {
        if (done(slug, now)) followed.delete(slug)
        continue
      }
      if (end <= now && now - end > resolutionAlertMs) {
        if (!alerted.has(slug)) {
          alerted.add(slug)
          logger.error(
            { venue: 'polymarket', slug, endedMinutesAgo: Math.round((now - end) / 60_000) },
            'polymarket result overdue; still waiting for it, polled less often',
          )
        }
        if (now - (lastPolledAt.get(slug) ?? Number.NEGATIVE_INFINITY) < overduePollMs) continue
      }
      rest.add(slug)
    }
    rest.delete(current)
    return { current, rest: [...rest] }
  }

  async function read(slug: string, signal: AbortSignal): Promise<PollOutcome> {
    const start = startOfSlug(slug)!
    const ended = clock.now() >= start * 1000 + WINDOW_MS
    lastPolledAt.set(slug, clock.now())
    const found = await lookUpEvent(gamma, slug, ended, signal)
    if (found.kind === 'found') {
      opts.onEvent?.(found.raw)
      book.ingest(found.raw, clock.now(), slug)
    } else if (found.kind === 'absent') {
      if (!absentWarned.has(slug)) {
        if (absentWarned.size >= 10_000) absentWarned.clear()
        absentWarned.add(slug)
        logger.warn({ venue: 'polymarket', slug }, 'polymarket event not found (yet); asking again next poll')
      }
    } else if (found.status !== 'aborted') {
      lookupOutage.failed(slug, found)
      return { ok: false, status: found.status, message: found.message }
    }
    if (found.kind !== 'failed') lookupOutage.succeeded(slug)
    return { ok: true }
  }

  return {
    async pollOnce(signal) {
      const { current, rest } = slugsToPoll(clock.now())
      const outcome = await read(current, signal)
      for (const slug of rest) {
        if (signal.aborted) break
        await read(slug, signal)
      }
      return outcome
    },
    follow(slug) {
      if (startOfSlug(slug) === null || followed.has(slug) || done(slug, clock.now())) return
      if (followed.size >= FOLLOWED_MAX) followed.delete(followed.values().next().value as string)
      followed.add(slug)
    },
  }
}
