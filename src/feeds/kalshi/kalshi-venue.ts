// The Kalshi venue (decisions §8): a background poller keeps a cache of each series' markets, so the
// engine's calls on every tick read memory; only quote() goes to the network, throttled per ticker.
import type { Settlement } from '../../domain/contest.ts'
import type { Clock } from '../../ports/clock.ts'
import type { Logger } from '../../ports/logger.ts'
import type {
  SourceStatus,
  Venue,
  VenueCheck,
  VenueMarket,
  VenueQuote,
  VenueTelemetry,
} from '../../ports/venue.ts'
import { livenessOf, pollEvery } from '../venue-http/poll-loop.ts'
import { createQuoteThrottle } from '../venue-http/quote-throttle.ts'
import type { BackoffOptions } from '../venue-http/retry-backoff.ts'
import {
  type ExchangeSchedule,
  type ExchangeStatus,
  isScheduledPause,
  parseExchangeStatus,
  parseSchedule,
} from './exchange-status.ts'
import { parseDollarsMillionths } from './fixed-point.ts'
import { createKalshiClient, describeFailure, type KalshiClient } from './kalshi-client.ts'
import type { KalshiSocket, LifecycleEvent } from './kalshi-socket.ts'
import { createMarketBook, type MarketBook, toVenueMarket } from './market-book.ts'
import { createMarketPoller } from './market-poller.ts'
import { phaseForStatus } from './market-status.ts'
import { asksFromOrderbook } from './orderbook.ts'
import { createRequestSigner, type KalshiCredentials } from './request-signing.ts'
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
}

/** Where the raw bodies go when the engine records what it sees. */
export type KalshiTap = {
  market(raw: unknown): void
  book(ticker: string, body: unknown): void
  /** the exchange-status body, each one the adapter could read (a replay pauses on it as live does) */
  exchange?(body: unknown): void
}

/**
 * A quote serves one reading: a late one is worse than none, and the engine asks again on its next
 * tick, so the order book gets one retry rather than the listings' full schedule.
 */
const ORDERBOOK_ATTEMPTS = 2
/** results the WebSocket announced, kept for at most this many markets */
const ANNOUNCED_KEPT = 100
/** An exchange status older than this says nothing about now (several missed polls). */
const EXCHANGE_STATUS_TTL_MS = 60_000

export function createKalshiVenue(opts: KalshiVenueOptions): Venue {
  const clock = opts.wallClock
  const { logger } = opts
  const orderbookMinIntervalMs = opts.orderbookMinIntervalMs ?? 2_000
  const downAfterMs = opts.downAfterMs ?? 60_000
  const malformedAfterMs = opts.malformedAfterMs ?? 3 * 60_000
  const scheduleEveryMs = opts.scheduleEveryMs ?? 3_600_000
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
    onListingFailed: (status, message) => {
      lastFailure = describeFailure(status, message)
    },
  })
  let lastFailure: string | null = null
  const stop = new AbortController()
  const quotes = createQuoteThrottle(orderbookMinIntervalMs)
  let startedAt: number | null = null
  let lastOkAt: number | null = null
  let loop: Promise<void> | null = null
  let exchange: { status: ExchangeStatus; at: number } | null = null
  let schedule: ExchangeSchedule | null = null
  let scheduleAt = Number.NEGATIVE_INFINITY
  // quotes: the start of the current run of unparseable books (null after a good one), and the last
  let quotesFailingSince: number | null = null
  let lastQuoteFailureAt: number | null = null

  /**
   * `GET /exchange/status` once a poll (a few dozen bytes) and the schedule now and then. Optional:
   * a failure holds up nothing. The status is read from an error answer too (the venue sends it
   * with a 503 during maintenance, venue facts §1.13).
   */
  async function readExchange(): Promise<void> {
    const reply = await client.get(
      'exchange_status',
      '/exchange/status',
      {},
      { signal: stop.signal, maxAttempts: 1 },
    )
    const { body } = reply
    if (body !== undefined) {
      const status = parseExchangeStatus(body)
      if (status.ok) {
        if (exchange?.status.tradingActive !== status.value.tradingActive)
          logger.info(
            {
              venue: 'kalshi',
              tradingActive: status.value.tradingActive,
              exchangeActive: status.value.exchangeActive,
            },
            status.value.tradingActive ? 'kalshi trading active' : 'kalshi trading paused',
          )
        exchange = { status: status.value, at: clock.now() }
        tap?.exchange?.(body)
      } else if (reply.ok) rejected('exchange_status', status.field)
    }
    if (clock.now() - scheduleAt < scheduleEveryMs) return
    const answer = await client.get(
      'exchange_schedule',
      '/exchange/schedule',
      {},
      { signal: stop.signal, maxAttempts: 1 },
    )
    if (!answer.ok) return
    const parsedSchedule = parseSchedule(answer.body)
    if (!parsedSchedule.ok) return rejected('exchange_schedule', parsedSchedule.field)
    schedule = parsedSchedule.value
    scheduleAt = clock.now()
  }

  function tradingPaused(): boolean {
    return (
      exchange !== null &&
      clock.now() - exchange.at <= EXCHANGE_STATUS_TTL_MS &&
      !exchange.status.tradingActive
    )
  }

  function quotesMalformed(now: number): boolean {
    return (
      quotesFailingSince !== null &&
      lastQuoteFailureAt !== null &&
      now - quotesFailingSince >= malformedAfterMs &&
      now - lastQuoteFailureAt <= malformedAfterMs
    )
  }

  async function pollAndRecord(): Promise<void> {
    const began = clock.now()
    try {
      await readExchange()
      if (await poller.pollOnce(stop.signal)) {
        lastOkAt = clock.now()
        lastFailure = null
      }
      book.prune(clock.now(), forgetAfterMs)
    } catch (err) {
      logger.error({ venue: 'kalshi', err }, 'kalshi poll failed')
    }
    logger.debug({ venue: 'kalshi', ms: clock.now() - began }, 'kalshi poll done')
  }

  const pollForever = (firstPollAt: number): Promise<void> =>
    pollEvery({ clock, pollMs: opts.pollMs, firstPollAt, signal: stop.signal, poll: pollAndRecord })

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
    const now = clock.now()
    if (!asks.ok) {
      rejected('orderbook', asks.field)
      quotesFailingSince ??= now
      lastQuoteFailureAt = now
      logger.warn({ venue: 'kalshi', ticker, field: asks.field }, 'kalshi order book malformed; skipped')
      return null
    }
    quotesFailingSince = null
    const { upAskCents, downAskCents } = asks.value
    return upAskCents === null && downAskCents === null ? null : asks.value
  }

  // results the WebSocket announced (`determined`), kept apart so a REST page fetched meanwhile,
  // still showing `closed`, cannot make the later `settled` event lose them
  const announced = new Map<string, { result: string; settlementValueMillionths: number | null }>()

  /**
   * One `market_lifecycle_v2` event (venue facts §1.11): openings, strikes, moved closes, pauses and
   * results as they happen. Only markets of the configured series are taken; REST keeps the full view.
   */
  function applyLifecycle(event: LifecycleEvent): void {
    const now = clock.now()
    const { ticker } = event
    switch (event.eventType) {
      case 'created':
        if (book.get(ticker) || event.openAt === null || event.closeAt === null) return
        book.ingest(
          {
            ticker,
            event_ticker: event.eventTicker,
            status: 'initialized',
            open_time: new Date(event.openAt).toISOString(),
            close_time: new Date(event.closeAt).toISOString(),
            strike_type: event.strikeType,
            result: '',
            expiration_value: '',
          },
          null,
          now,
          'socket',
        )
        return
      case 'metadata_updated':
        if (event.floorStrike !== null) book.patch(ticker, { floorStrike: event.floorStrike }, now)
        return
      case 'close_date_updated':
        if (event.closeAt !== null) book.patch(ticker, { closeTime: event.closeAt }, now)
        return
      case 'deactivated':
      case 'activated':
        if (event.deactivated !== null)
          book.patch(ticker, { status: event.deactivated ? 'inactive' : 'active' }, now)
        return
      case 'determined': {
        if (event.result === null || !book.get(ticker)) return
        const settlementValueMillionths =
          event.settlementValue === null ? null : parseDollarsMillionths(event.settlementValue)
        announced.set(ticker, { result: event.result, settlementValueMillionths })
        if (announced.size > ANNOUNCED_KEPT) announced.delete(announced.keys().next().value as string)
        // provisional: a determined result can still be disputed, so it settles nothing yet
        book.patch(ticker, { status: 'determined', result: event.result, settlementValueMillionths }, now)
        return
      }
      case 'settled':
        void settleFromSocket(ticker)
        return
    }
  }

  /**
   * `settled` is final (paid out), about ten seconds before REST shows `finalized`: the market is
   * looked up once (for `expiration_value`, when REST has it already) and then taken as finalized with
   * the result the socket announced.
   */
  async function settleFromSocket(ticker: string): Promise<void> {
    if (!book.get(ticker)) return
    await poller.refresh(ticker, stop.signal)
    const result = announced.get(ticker)
    if (!result) return
    book.patch(ticker, { status: 'finalized', ...result }, clock.now())
    logger.info({ venue: 'kalshi', ticker, result: result.result }, 'kalshi result final by socket')
  }
  opts.socket?.onLifecycle(applyLifecycle)

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
    async marketOpenedAt(series: string, opensAt: number): Promise<VenueMarket | null> {
      const entry = book.openedAt(series, opensAt)
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
      // quotes after the close are stale, then an empty book (venue facts §2.6): never use one
      if (!entry || phaseForStatus(entry.market.status) !== 'trading' || now >= entry.market.closeTime)
        return null
      return quotes.get(ticker, now, () => fetchQuote(ticker))
    },
    status(): SourceStatus {
      const now = clock.now()
      const state = livenessOf(now, lastOkAt, startedAt, downAfterMs)
      // a venue never reached since start is a configuration fault (a 451, a wrong URL), whatever the day
      const scheduledPause = (lastOkAt !== null || schedule !== null) && isScheduledPause(schedule, now)
      const check: VenueCheck = quotesMalformed(now)
        ? 'malformed'
        : tradingPaused()
          ? 'paused'
          : state === 'down'
            ? scheduledPause
              ? 'paused'
              : 'unreachable'
            : 'ok'
      return { name: 'kalshi', state, lastOkAt, check, scheduledPause, failure: lastFailure }
    },
    tradingPaused,
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
      opts.socket?.start()
      await pollAndRecord()
      loop = pollForever(startedAt)
    },
    async close() {
      stop.abort()
      await Promise.all([loop, opts.socket?.close()])
    },
  }
}
