// The Kalshi venue (decisions §8) on the shared polled-venue core (venue-http/polled-venue.ts): a
// background poller keeps a cache of each series' markets (market-book.ts), so the engine's calls on
// every tick read memory; only quote() goes to the network, throttled per ticker. Kalshi's own parts:
// its exchange status (exchange-watch.ts), its WebSocket's lifecycle events (socket-lifecycle.ts)
// and its order-book body.

import type { Clock } from '../../ports/clock.ts'
import type { Logger } from '../../ports/logger.ts'
import { NO_ANSWER, type Venue, type VenueTelemetry } from '../../ports/venue.ts'
import { createPolledVenue } from '../venue-http/polled-venue.ts'
import type { QuoteHealth } from '../venue-http/quote-health.ts'
import type { Sleep } from '../venue-http/request-pacer.ts'
import type { BackoffOptions } from '../venue-http/retry-backoff.ts'
import { venueOutageLogs } from '../venue-http/venue-outage-log.ts'
import { createExchangeWatch } from './exchange-watch.ts'
import { createKalshiClient, describeFailure, type KalshiClient } from './kalshi-client.ts'
import type { KalshiSocket } from './kalshi-socket.ts'
import { createMarketBook, kalshiBoundaries, kalshiMarketView, type MarketBook } from './market-book.ts'
import { createMarketPoller } from './market-poller.ts'
import { asksFromOrderbook } from './orderbook.ts'
import { createRequestSigner, type KalshiCredentials } from './request-signing.ts'
import { settlementOf } from './settlement.ts'
import { createLifecycleApplier } from './socket-lifecycle.ts'

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
  /** the venue's WebSocket (with a key): lifecycle events applied as they happen, on top of REST */
  socket?: KalshiSocket
  /** per attempt; default 5 s */
  requestTimeoutMs?: number
  /** across the whole adapter; default 5 (see KalshiClientOptions) */
  maxRequestsPerSec?: number
  /** at most one order-book request per ticker this often; default 2 s */
  orderbookMinIntervalMs?: number
  /** status() turns `down` after this long without a clean poll; default 60 s */
  downAfterMs?: number
  /** health says `malformed` once every quote this long failed to parse; default 3 min */
  malformedAfterMs?: number
  /** the exchange schedule is re-read this often; default 1 h */
  scheduleEveryMs?: number
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
  /** how the poll loop waits between polls; default a timer (a test moves its own clock instead) */
  pollSleep?: Sleep
}

/** Where the raw bodies go when the engine records what it sees. */
export type KalshiTap = {
  market(raw: unknown): void
  /** an order-book body, received at `at` */
  book(ticker: string, body: unknown, at: number): void
  /** the exchange-status body, each one the adapter could read (a replay pauses on it as live does) */
  exchange?(body: unknown): void
}

/**
 * A quote serves one reading: a late one is worse than none, and the engine asks again on its next
 * tick, so the order book gets one retry rather than the listings' full schedule.
 */
const ORDERBOOK_ATTEMPTS = 2

export function createKalshiVenue(opts: KalshiVenueOptions): Venue {
  const clock = opts.wallClock
  const { logger, tap } = opts
  const forgetAfterMs = opts.forgetAfterMs ?? 24 * 3_600_000
  const rejected = (endpoint: string, field: string): void => opts.telemetry?.rejected?.(endpoint, field)
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
  const book: MarketBook = createMarketBook({ series: opts.series, logger, onRejected: rejected })
  const poller = createMarketPoller({
    client,
    book: tap
      ? {
          ...book,
          ingest(raw, series, now, endpoint) {
            tap.market(raw)
            return book.ingest(raw, series, now, endpoint)
          },
        }
      : book,
    series: opts.series,
    logger,
    clock,
    notFoundGiveUpMs: opts.notFoundGiveUpMs ?? 3_600_000,
    onListingFailed: (status, message) => venue.failed(describeFailure(status, message)),
    // counted where a listing's other faults are, so it shows in metrics as well as the log
    onListingCutShort: () => rejected('markets', 'cursor'),
  })
  const exchange = createExchangeWatch({
    client,
    clock,
    logger,
    scheduleEveryMs: opts.scheduleEveryMs ?? 3_600_000,
    rejected,
    ...(tap?.exchange ? { onStatus: tap.exchange } : {}),
  })

  // the engine asks for a book every few seconds of each reading minute: a venue that keeps failing
  // or garbling it is logged as an outage per market (the field named first), not per attempt
  const bookUnanswered = venueOutageLogs(clock, logger, {
    venue: 'kalshi',
    key: 'ticker',
    what: (ticker) => `kalshi order book of ${ticker}`,
    started: 'kalshi order book failed',
  })
  const bookMalformed = venueOutageLogs(clock, logger, {
    venue: 'kalshi',
    key: 'ticker',
    what: (ticker) => `kalshi order book of ${ticker} (malformed)`,
    started: 'kalshi order book malformed; skipped',
  })

  async function fetchQuote(ticker: string, signal: AbortSignal, health: QuoteHealth) {
    const path = `/markets/${encodeURIComponent(ticker)}/orderbook`
    const reply = await client.get('orderbook', path, {}, { signal, maxAttempts: ORDERBOOK_ATTEMPTS })
    // the book is seen when it came, the instant its recording keeps and a replay is at (decisions §12)
    const cameAt = clock.now()
    // a 2xx body that is not JSON is as unreadable as a malformed one
    if (!reply.ok && reply.status !== 'invalid_json') {
      if (reply.status !== 'aborted') {
        bookUnanswered.failed(ticker, reply)
        health.unanswered(describeFailure(reply.status, reply.message))
      }
      return NO_ANSWER
    }
    bookUnanswered.succeeded(ticker)
    if (reply.ok) tap?.book(ticker, reply.body, cameAt)
    const asks = reply.ok ? asksFromOrderbook(reply.body) : ({ ok: false, field: 'json' } as const)
    if (!asks.ok) {
      rejected('orderbook', asks.field)
      health.failed(clock.now())
      health.unanswered(reply.ok ? `malformed: ${asks.field}` : describeFailure(reply.status, reply.message))
      bookMalformed.failed(ticker, { field: asks.field })
      return NO_ANSWER
    }
    bookMalformed.succeeded(ticker)
    health.parsed()
    const { upAskCents, downAskCents } = asks.value
    return upAskCents === null && downAskCents === null ? null : { ...asks.value, observedAt: cameAt }
  }

  const venue = createPolledVenue({
    name: 'kalshi',
    clock,
    logger,
    pollMs: opts.pollMs,
    quoteMinIntervalMs: opts.orderbookMinIntervalMs ?? 2_000,
    ...(opts.downAfterMs !== undefined ? { downAfterMs: opts.downAfterMs } : {}),
    ...(opts.malformedAfterMs !== undefined ? { malformedAfterMs: opts.malformedAfterMs } : {}),
    startFields: { baseUrl: opts.baseUrl, series: opts.series, signed: !!opts.credentials },
    view: kalshiMarketView(book),
    // polled again just after each known open and close, so a contest opens when the venue opens it
    boundaries: kalshiBoundaries(book),
    ...(opts.pollSleep ? { pollSleep: opts.pollSleep } : {}),
    // the ticker is followed until its result is known
    follow(ticker) {
      const entry = book.get(ticker)
      if (!entry || settlementOf(entry.market) === null) poller.noteAsked(ticker)
    },
    async poll(signal) {
      await exchange.read(signal)
      const clean = await poller.pollOnce(signal)
      book.prune(clock.now(), forgetAfterMs)
      return clean
    },
    fetchQuote,
    tradingPaused: () => exchange.tradingPaused(),
    scheduledPause: exchange.scheduledPause,
    ...(opts.socket ? { companion: opts.socket } : {}),
  })
  opts.socket?.onLifecycle(
    createLifecycleApplier({
      book,
      series: opts.series,
      clock,
      logger,
      refresh: (ticker) => poller.refresh(ticker, venue.signal),
    }),
  )
  return venue
}
