// The Kalshi venue (decisions §8): a background poller keeps a cache of each series' markets, so the
// engine's calls on every tick read memory; only quote() goes to the network, throttled per ticker.
import { setTimeout as delay } from 'node:timers/promises'
import type { Settlement } from '../../domain/contest.ts'
import type { Clock } from '../../ports/clock.ts'
import type { Logger } from '../../ports/logger.ts'
import type { SourceStatus, Venue, VenueMarket, VenueQuote, VenueTelemetry } from '../../ports/venue.ts'
import { createKalshiClient, type KalshiClient } from './kalshi-client.ts'
import { createMarketBook, type MarketBook, toVenueMarket } from './market-book.ts'
import { createMarketPoller } from './market-poller.ts'
import { phaseForStatus } from './market-status.ts'
import { asksFromOrderbook } from './orderbook.ts'
import type { Sleep } from './request-pacer.ts'
import { createRequestSigner, type KalshiCredentials } from './request-signing.ts'
import type { BackoffOptions } from './retry-backoff.ts'
import { settlementOf } from './settlement.ts'

export type KalshiVenueOptions = {
  /** e.g. `https://external-api.kalshi.com/trade-api/v2` */
  baseUrl: string
  series: readonly string[]
  /** ms between the starts of two polls (KALSHI_POLL_S) */
  pollMs: number
  wallClock: Clock
  logger: Logger
  telemetry?: VenueTelemetry
  /** when set, every request is signed */
  credentials?: KalshiCredentials
  /** per attempt; default 5 s */
  requestTimeoutMs?: number
  /** across the whole adapter; default 5 (see KalshiClientOptions) */
  maxRequestsPerSec?: number
  /** at most one order-book request per ticker this often; default 2 s */
  orderbookMinIntervalMs?: number
  /** status() turns `down` after this long without a clean poll; default 60 s */
  downAfterMs?: number
  /** a followed market that keeps answering 404 is dropped after this long; default 1 h */
  notFoundGiveUpMs?: number
  /** markets the venue has not shown for this long are forgotten; default 24 h */
  forgetAfterMs?: number
  /** attempts per call and backoff, for tests; defaults 4 and 250 ms → 8 s */
  maxAttempts?: number
  backoff?: BackoffOptions
  random?: () => number
  /** told every market body and order-book body received, as received (RECORD_DIR, decisions §12) */
  tap?: KalshiTap
}

/** Where the raw bodies go when the engine records what it sees. */
export type KalshiTap = {
  market(raw: unknown): void
  book(ticker: string, body: unknown): void
}

/**
 * A quote serves one reading: a late one is worse than none, and the engine asks again on its next
 * tick, so the order book gets one retry rather than the listings' full schedule.
 */
const ORDERBOOK_ATTEMPTS = 2
const QUOTES_KEPT = 100

type CachedQuote = { fetchedAt: number; quote: Promise<VenueQuote | null> }

const sleepUnlessAborted: Sleep = (ms, signal) => delay(ms, undefined, { signal })

export function createKalshiVenue(opts: KalshiVenueOptions): Venue {
  const clock = opts.wallClock
  const { logger } = opts
  const orderbookMinIntervalMs = opts.orderbookMinIntervalMs ?? 2_000
  const downAfterMs = opts.downAfterMs ?? 60_000
  const forgetAfterMs = opts.forgetAfterMs ?? 24 * 3_600_000
  const client: KalshiClient = createKalshiClient({
    baseUrl: opts.baseUrl,
    clock,
    logger,
    telemetry: opts.telemetry,
    signer: opts.credentials ? createRequestSigner(opts.credentials) : undefined,
    timeoutMs: opts.requestTimeoutMs,
    maxRequestsPerSec: opts.maxRequestsPerSec,
    maxAttempts: opts.maxAttempts,
    backoff: opts.backoff,
    random: opts.random,
  })
  const book: MarketBook = createMarketBook({ series: opts.series, logger })
  const { tap } = opts
  const poller = createMarketPoller({
    client,
    book: tap
      ? {
          ...book,
          ingest(raw, series, now) {
            tap.market(raw)
            return book.ingest(raw, series, now)
          },
        }
      : book,
    series: opts.series,
    logger,
    clock,
    notFoundGiveUpMs: opts.notFoundGiveUpMs ?? 3_600_000,
  })
  const stop = new AbortController()
  const quotes = new Map<string, CachedQuote>()
  let startedAt: number | null = null
  let lastOkAt: number | null = null
  let loop: Promise<void> | null = null

  async function pollAndRecord(): Promise<void> {
    const began = clock.now()
    try {
      if (await poller.pollOnce(stop.signal)) lastOkAt = clock.now()
      book.prune(clock.now(), forgetAfterMs)
    } catch (err) {
      logger.error({ venue: 'kalshi', err }, 'kalshi poll failed')
    }
    logger.debug({ venue: 'kalshi', ms: clock.now() - began }, 'kalshi poll done')
  }

  async function pollForever(firstPollAt: number): Promise<void> {
    let nextAt = firstPollAt + opts.pollMs
    while (!stop.signal.aborted) {
      try {
        await sleepUnlessAborted(Math.max(0, nextAt - clock.now()), stop.signal)
      } catch {
        return
      }
      nextAt = clock.now() + opts.pollMs
      await pollAndRecord()
    }
  }

  async function fetchQuote(ticker: string): Promise<VenueQuote | null> {
    const reply = await client.get(
      'orderbook',
      `/markets/${encodeURIComponent(ticker)}/orderbook`,
      {},
      {
        signal: stop.signal,
        maxAttempts: ORDERBOOK_ATTEMPTS,
      },
    )
    if (!reply.ok) {
      if (reply.status !== 'aborted')
        logger.warn(
          { venue: 'kalshi', ticker, status: reply.status, error: reply.message },
          'kalshi order book failed',
        )
      return null
    }
    tap?.book(ticker, reply.body)
    const asks = asksFromOrderbook(reply.body)
    if (!asks.ok) {
      logger.warn({ venue: 'kalshi', ticker, field: asks.field }, 'kalshi order book malformed; skipped')
      return null
    }
    const { upAskCents, downAskCents } = asks.value
    return upAskCents === null && downAskCents === null ? null : asks.value
  }

  /** The cached view, noting the ticker for follow-up until its result is known. */
  function viewOf(ticker: string) {
    const entry = book.get(ticker)
    if (!entry || settlementOf(entry.market) === null) poller.noteAsked(ticker)
    return entry
  }

  return {
    name: 'kalshi',
    supportsHistory: false,
    async marketAt(series: string, at: number): Promise<VenueMarket | null> {
      const entry = book.liveIn(series, at)
      return entry ? toVenueMarket(entry) : null
    },
    async market(ticker: string): Promise<VenueMarket | null> {
      const entry = viewOf(ticker)
      return entry ? toVenueMarket(entry) : null
    },
    async result(ticker: string): Promise<Settlement | null> {
      const entry = viewOf(ticker)
      return entry ? settlementOf(entry.market) : null
    },
    async quote(ticker: string): Promise<VenueQuote | null> {
      const entry = book.get(ticker)
      const now = clock.now()
      // quotes after the close are stale, then an empty book (reference §2.6): never use one
      if (!entry || phaseForStatus(entry.market.status) !== 'trading' || now >= entry.market.closeTime)
        return null
      const cached = quotes.get(ticker)
      if (cached && now - cached.fetchedAt < orderbookMinIntervalMs) return cached.quote
      if (quotes.size >= QUOTES_KEPT) {
        for (const [t, q] of quotes) if (now - q.fetchedAt >= orderbookMinIntervalMs) quotes.delete(t)
      }
      const quote = fetchQuote(ticker)
      quotes.set(ticker, { fetchedAt: now, quote })
      return quote
    },
    status(): SourceStatus {
      const now = clock.now()
      const since = lastOkAt ?? startedAt ?? now
      return { name: 'kalshi', state: now - since > downAfterMs ? 'down' : 'ok', lastOkAt }
    },
    async start() {
      if (startedAt !== null) return
      startedAt = clock.now()
      logger.info(
        {
          venue: 'kalshi',
          baseUrl: opts.baseUrl,
          series: opts.series,
          pollMs: opts.pollMs,
          signed: !!opts.credentials,
        },
        'kalshi venue starting',
      )
      await pollAndRecord()
      loop = pollForever(startedAt)
    },
    async close() {
      stop.abort()
      await loop
    },
  }
}
