// The adapter's view of the windows it follows, refreshed from Gamma by slug (venue facts §3.1.2,
// §3.2.3): each poll reads the current and next windows, the one just ended until its result and its
// prices are published, and any older window the engine still asks about. A resolution that takes
// many minutes is waited on (venue facts §3.1.3: up to ~30 min, then an alert, and polled more slowly
// after that); a body that fails validation is counted by field and never replaces a good view; a
// Gamma answer older than what is known (its cache) never takes a result or a price back.
import type { Settlement } from '../../domain/contest.ts'
import type { Clock } from '../../ports/clock.ts'
import type { Logger } from '../../ports/logger.ts'
import type { JsonClient } from '../venue-http/json-client.ts'
import { lookUpEvent } from './event-lookup.ts'
import { type PolymarketMarket, parseGammaEvent, phaseAt } from './gamma-event.ts'
import { resolutionOf } from './gamma-resolution.ts'
import type { GammaEndpoint } from './polymarket-client.ts'
import { settlementOf } from './venue-mapping.ts'
import { slugForStart, slugsAround, startOfSlug, WINDOW_MS, windowStartS } from './window-slug.ts'

export type Tracked = {
  market: PolymarketMarket
  /** wall ms of the last good body */
  seenAt: number
  /** wall ms the resolution was first seen, null before */
  resolvedSeenAt: number | null
}

export type TrackerOptions = {
  gamma: JsonClient<GammaEndpoint>
  clock: Clock
  logger: Logger
  /** a body rejected, with the field that was wrong */
  onRejected?: (endpoint: string, field: string) => void
  /** every event body received, as received (recording) */
  onEvent?: (raw: unknown) => void
  /** an ended window still unresolved this long after its end raises an alert; default 30 min */
  resolutionAlertMs?: number
  /** after the alert, such a window is polled this often; default 60 s */
  overduePollMs?: number
  /**
   * a resolved window whose price to beat or final price is not published yet is held this long
   * after the resolution was first seen, so the contest settles with them; default 10 min
   */
  metadataGraceMs?: number
  /** windows ended this long ago are no longer followed or kept; default 24 h */
  forgetAfterMs?: number
}

export type PollOutcome = { ok: true } | { ok: false; status: string; message: string }

export type MarketTracker = {
  /** One poll; ok when the current window's lookup got an answer (found or not). */
  pollOnce(signal: AbortSignal): Promise<PollOutcome>
  get(slug: string): Tracked | undefined
  /** The engine asked about `slug`: follow it until settled (or forgotten). */
  follow(slug: string): void
  /** The trading or paused window whose span contains `at`. */
  liveAt(at: number): Tracked | null
  /** The result once the venue resolved it and its prices are in (or the grace has passed), else null. */
  settlement(slug: string, now: number): Settlement | null
}

const FOLLOWED_MAX = 1_000

export function createMarketTracker(opts: TrackerOptions): MarketTracker {
  const { gamma, clock, logger } = opts
  const resolutionAlertMs = opts.resolutionAlertMs ?? 30 * 60_000
  const overduePollMs = opts.overduePollMs ?? 60_000
  const metadataGraceMs = opts.metadataGraceMs ?? 10 * 60_000
  const forgetAfterMs = opts.forgetAfterMs ?? 24 * 3_600_000
  const bySlug = new Map<string, Tracked>()
  const followed = new Set<string>()
  const lastPolledAt = new Map<string, number>()
  const alerted = new Set<string>()
  const warned = new Set<string>()

  const warnOnce = (key: string, fields: object, message: string): void => {
    if (warned.has(key)) return
    if (warned.size >= 10_000) warned.clear()
    warned.add(key)
    logger.warn({ venue: 'polymarket', ...fields }, message)
  }

  /** Published prices in hand, or no longer worth waiting for. */
  function complete(t: Tracked, now: number): boolean {
    const { market } = t
    if (market.priceToBeat !== null && market.finalPrice !== null) return true
    return t.resolvedSeenAt !== null && now - t.resolvedSeenAt >= metadataGraceMs
  }

  function done(slug: string, now: number): boolean {
    const t = bySlug.get(slug)
    return t !== undefined && settlementOf(t.market) !== null && complete(t, now)
  }

  /** A newer body merged over what is known: a result or a published price is never taken back. */
  function merge(known: PolymarketMarket | undefined, fresh: PolymarketMarket): PolymarketMarket {
    if (!known) return fresh
    const knownSettled = settlementOf(known) !== null
    const base = knownSettled && settlementOf(fresh) === null ? { ...fresh, ...resolvedPart(known) } : fresh
    return {
      ...base,
      priceToBeat: fresh.priceToBeat ?? known.priceToBeat,
      finalPrice: fresh.finalPrice ?? known.finalPrice,
    }
  }

  function ingest(raw: unknown, slug: string, now: number): void {
    opts.onEvent?.(raw)
    const r = parseGammaEvent(raw, slug)
    if (!r.ok) {
      opts.onRejected?.('event', r.field)
      warnOnce(`${slug}\u0000${r.field}`, { slug, field: r.field }, 'polymarket event malformed; skipped')
      return
    }
    // an optional field read as null: counted and warned once per window and field, not every poll
    for (const field of r.unreadable) {
      const key = `${slug}\u0000lenient\u0000${field}`
      if (warned.has(key)) continue
      opts.onRejected?.('event', field)
      warnOnce(key, { slug, field }, 'polymarket event field unreadable; read as null')
    }
    const known = bySlug.get(slug)
    const market = merge(known?.market, r.market)
    const resolved = settlementOf(market) !== null
    const resolvedSeenAt = known?.resolvedSeenAt ?? (resolved ? now : null)
    if (resolved && known?.resolvedSeenAt == null) {
      const res = resolutionOf(market)
      logger.info(
        {
          venue: 'polymarket',
          slug,
          result: res.kind === 'settled' ? res.side : res.kind,
          afterEndMs: now - market.expiresAt,
        },
        'polymarket market resolved',
      )
      if (res.kind === 'void')
        logger.error({ venue: 'polymarket', slug }, 'polymarket market voided (outcome prices split)')
      if (res.kind === 'settled' && res.pricesDisagree)
        logger.warn(
          {
            venue: 'polymarket',
            slug,
            side: res.side,
            priceToBeat: market.priceToBeat,
            finalPrice: market.finalPrice,
          },
          "polymarket outcome disagrees with its published prices; the venue's outcome stands",
        )
    }
    bySlug.set(slug, { market, seenAt: now, resolvedSeenAt })
  }

  /** Slugs to read this poll, the current window first. */
  function slugsToPoll(now: number): { current: string; rest: string[] } {
    const { previous, current, next } = slugsAround(now)
    const rest = new Set<string>([next])
    if (!done(previous, now)) rest.add(previous)
    for (const slug of [...followed, ...bySlug.keys()]) {
      const start = startOfSlug(slug)
      if (start === null) continue
      const end = start * 1000 + WINDOW_MS
      if (now - end > forgetAfterMs) {
        followed.delete(slug)
        bySlug.delete(slug)
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
    if (found.kind === 'found') ingest(found.raw, slug, clock.now())
    else if (found.kind === 'absent')
      warnOnce(`${slug}\u0000absent`, { slug }, 'polymarket event not found (yet); asking again next poll')
    else if (found.status !== 'aborted') {
      logger.warn(
        { venue: 'polymarket', slug, status: found.status, error: found.message },
        'polymarket event lookup failed',
      )
      return { ok: false, status: found.status, message: found.message }
    }
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
    get: (slug) => bySlug.get(slug),
    follow(slug) {
      if (startOfSlug(slug) === null || followed.has(slug) || done(slug, clock.now())) return
      if (followed.size >= FOLLOWED_MAX) followed.delete(followed.values().next().value as string)
      followed.add(slug)
    },
    liveAt(at) {
      const slug = slugForStart(windowStartS(at))
      const t = bySlug.get(slug)
      if (!t) return null
      const phase = phaseAt(t.market, at)
      return phase === 'trading' || phase === 'paused' ? t : null
    },
    settlement(slug, now) {
      const t = bySlug.get(slug)
      if (!t) return null
      const s = settlementOf(t.market)
      if (s === null) return null
      if (!complete(t, now)) return null
      return s
    },
  }
}

function resolvedPart(m: PolymarketMarket): Partial<PolymarketMarket> {
  return {
    closed: m.closed,
    resolutionStatus: m.resolutionStatus,
    outcomePrices: m.outcomePrices,
    active: m.active,
    acceptingOrders: m.acceptingOrders,
  }
}
