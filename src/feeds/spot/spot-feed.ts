// The live spot price feed (decisions §8): the median of the fresh exchanges' mids, one-minute closes
// merged across exchanges, and each exchange's health, behind the PriceFeed port.
import { MINUTE_MS, round2 } from '../../domain/contest.ts'
import type { MinuteClose } from '../../domain/price-history.ts'
import type { Clock } from '../../ports/clock.ts'
import type { Logger } from '../../ports/logger.ts'
import type { PriceFeed, SpotObservation, SpotSourceStatus, SpotTelemetry } from '../../ports/venue.ts'
import { bitstampAdapter } from './bitstamp.ts'
import { coinbaseAdapter } from './coinbase.ts'
import { krakenAdapter } from './kraken.ts'
import { median, mergedWholeMinute } from './median.ts'
import type { ExchangeAdapter, SpotEndpoints, SpotExchange } from './spot-exchange.ts'
import {
  createSpotSource,
  type SpotSource,
  type SpotSourceOptions,
  type SpotSourceSnapshot,
  type SpotSourceTiming,
} from './spot-source.ts'

const ADAPTERS: Readonly<Record<SpotExchange, ExchangeAdapter>> = {
  coinbase: coinbaseAdapter,
  kraken: krakenAdapter,
  bitstamp: bitstampAdapter,
}

export const DEFAULT_DOWN_AFTER_MS = 60_000

export type SpotFeedOptions = {
  sources: readonly SpotExchange[]
  urls: Readonly<Record<SpotExchange, Readonly<SpotEndpoints>>>
  /**
   * SPOT_MAX_AGE_S × 1000: an older mid is not fresh and stays out of the median. Its age runs from
   * the exchange's own timestamp where it sends one (a backlogged socket still delivers "new" frames),
   * else from receipt.
   */
  maxAgeMs: number
  /**
   * fewer fresh sources than this give no spot (decisions §8: a median of one has no outlier
   * protection); default 2, or every source of a feed that has fewer (as the reading's `few-sources`)
   */
  minFreshSources?: number
  wallClock: Clock
  logger: Logger
  /** a source silent this long (or never heard from this long after start) is `down`; default 60 s */
  downAfterMs?: number
  /** per-source timers; quietAfterMs defaults to half of maxAgeMs so a quiet socket is topped up by REST in time */
  timing?: Partial<SpotSourceTiming>
  random?: () => number
  /** told every price a source accepted, and the warm-up closes it loaded (RECORD_DIR, decisions §12) */
  onPrice?: SpotSourceOptions['onPrice']
  onCloses?: SpotSourceOptions['onCloses']
  /** each source's metrics, labelled with its name (engine roles) */
  telemetry?: (source: SpotExchange) => SpotTelemetry
}

/** What the median and the health checks read of a source: live exchanges, or a replayed tape's. */
export type FeedSource = Pick<
  SpotSource,
  'snapshot' | 'closeOf' | 'wholeMinuteOf' | 'stampOf' | 'start' | 'close'
> & {
  readonly name: string
}

/** Merged minutes kept at once: a few days of them, far more than any reading looks back at. */
const MERGED_MINUTES_KEPT = 8_192

export type SpotFeedCoreOptions = Pick<
  SpotFeedOptions,
  'maxAgeMs' | 'wallClock' | 'logger' | 'downAfterMs' | 'minFreshSources'
>

export function createSpotFeed(opts: SpotFeedOptions): PriceFeed {
  const { maxAgeMs, wallClock } = opts
  const names = [...new Set(opts.sources)]
  const sources: SpotSource[] = names.map((name) => {
    const telemetry = opts.telemetry?.(name)
    return createSpotSource({
      adapter: ADAPTERS[name],
      endpoints: opts.urls[name],
      wallClock,
      logger: opts.logger,
      timing: { quietAfterMs: maxAgeMs / 2, ...opts.timing },
      ...(opts.random ? { random: opts.random } : {}),
      ...(opts.onPrice ? { onPrice: opts.onPrice } : {}),
      ...(opts.onCloses ? { onCloses: opts.onCloses } : {}),
      ...(telemetry ? { telemetry } : {}),
    })
  })
  return spotFeedOver(sources, opts)
}

/**
 * The PriceFeed over a set of sources: the median of the fresh mids, minute closes merged across
 * sources, and each source's health. Live exchanges and a replayed tape (decisions §12) both go
 * through this one piece, so a replay judges freshness and takes medians exactly as live.
 */
export function spotFeedOver(sources: readonly FeedSource[], opts: SpotFeedCoreOptions): PriceFeed {
  const downAfterMs = opts.downAfterMs ?? DEFAULT_DOWN_AFTER_MS
  const { maxAgeMs, wallClock } = opts
  const names = sources.map((s) => s.name)

  const minFresh = opts.minFreshSources ?? Math.min(2, sources.length)
  const isFresh = (snap: SpotSourceSnapshot, now: number): boolean =>
    snap.midAt !== null &&
    !snap.maintenance &&
    now - Math.min(snap.midAt, snap.exchangeAt ?? snap.midAt) <= maxAgeMs

  const status = (s: FeedSource, now: number): SpotSourceStatus => {
    const snap = s.snapshot()
    const silentFor =
      snap.lastOkAt !== null ? now - snap.lastOkAt : snap.startedAt !== null ? now - snap.startedAt : null
    return {
      name: s.name,
      // a source never started has not answered either
      state: silentFor === null || silentFor > downAfterMs ? 'down' : 'ok',
      lastOkAt: snap.lastOkAt,
      midDollars: snap.mid === null ? null : round2(snap.mid),
      midAt: snap.midAt,
      fresh: isFresh(snap, now),
      lagMs:
        snap.midAt === null || snap.exchangeAt === null ? null : Math.round(snap.midAt - snap.exchangeAt),
      maintenance: snap.maintenance,
    }
  }

  // each source's price as it stood at `at`, judged fresh at `at`: a reading made when its book came
  // back sees what a replay of the recording sees at that instant (decisions §12)
  const observe = (at: number): SpotObservation | null => {
    const mids = sources
      .map((s) => s.snapshot(at))
      .filter((snap) => isFresh(snap, at))
      .map((snap) => snap.mid as number)
    const m = median(mids)
    return m === null ? null : { priceDollars: round2(m), observedAt: at, freshSources: mids.length }
  }

  // Each reading asks for a day of minutes, nearly all of them the ones the last reading merged: a
  // merged minute is kept with its sources' stamps and used again while every stamp is the same.
  const merged = new Map<number, { stamps: (number | undefined)[]; close: MinuteClose | null }>()
  const unchanged = (stamps: readonly (number | undefined)[], m: number): boolean => {
    for (let i = 0; i < sources.length; i++)
      if ((sources[i] as FeedSource).stampOf(m) !== stamps[i]) return false
    return true
  }
  const mergeMinute = (m: number): MinuteClose | null => {
    const close = median(sources.map((s) => s.closeOf(m)).filter((c): c is number => c !== undefined))
    if (close === null) return null
    const wholes = sources.map((s) => s.wholeMinuteOf(m)).filter((r) => r !== undefined)
    const made = { at: m + MINUTE_MS, priceDollars: round2(close), ...mergedWholeMinute(wholes) }
    // shared by every reading that asks for the minute: nobody may change it
    if (made.seconds) Object.freeze(made.seconds)
    return Object.freeze(made)
  }

  // closes stamped with their minute's end; a minute no source closed is left out, never closed up
  const stampedCloses = (at: number, count: number): MinuteClose[] => {
    const last = Math.floor(at / MINUTE_MS) * MINUTE_MS - MINUTE_MS
    if (merged.size > MERGED_MINUTES_KEPT) merged.clear()
    const out: MinuteClose[] = []
    for (let m = last - (count - 1) * MINUTE_MS; m <= last; m += MINUTE_MS) {
      let kept = merged.get(m)
      if (!kept || !unchanged(kept.stamps, m)) {
        kept = { stamps: sources.map((s) => s.stampOf(m)), close: mergeMinute(m) }
        merged.set(m, kept)
      }
      if (kept.close) out.push(kept.close)
    }
    return out
  }

  return {
    name: 'spot',
    // A live feed only knows the present: `at` is the engine's reading instant, which is now give or
    // take a tick, so freshness is judged against the wall clock (decisions §8, SPOT_MAX_AGE_S).
    // a spot needs 2 fresh sources (decisions §8, §11): a median of one has no outlier protection
    spotAt: async () => {
      const o = observe(wallClock.now())
      return o === null || o.freshSources < minFresh ? null : o.priceDollars
    },
    // the median at the reading's instant (never after now), with the number of fresh sources in it:
    // the reading judges their count (`few-sources`) by the same rule, so it can say why it raised nothing
    observeSpot: async (at) => observe(Math.min(at, wallClock.now())),
    stampedClosesBefore: async (at, count) => stampedCloses(at, count),
    // the last whole minute ending at or before `at` is the bucket starting one minute before the
    // minute boundary at or below it
    minuteClosesBefore: async (at, count) => stampedCloses(at, count).map((c) => c.priceDollars),
    sources: () => {
      const now = wallClock.now()
      return sources.map((s) => status(s, now))
    },
    start: async () => {
      await Promise.all(sources.map((s) => s.start()))
      const fresh = sources.filter((s) => status(s, wallClock.now()).fresh).map((s) => s.name)
      opts.logger.info({ sources: names, fresh }, 'spot feed started')
    },
    close: async () => {
      await Promise.all(sources.map((s) => s.close()))
    },
  }
}
