// The Polymarket venue (decisions §14, venue facts §3): a background poller keeps the followed windows'
// events from Gamma (market-tracker.ts), so the engine's calls on every tick read memory; only quote()
// goes to the network: the CLOB book of each side's own token, at most once per interval per market.
// An outage delays openings, readings and results; it never invents one.
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
import { describeFailure } from '../venue-http/json-client.ts'
import { livenessOf, pollEvery } from '../venue-http/poll-loop.ts'
import { createQuoteThrottle } from '../venue-http/quote-throttle.ts'
import type { BackoffOptions } from '../venue-http/retry-backoff.ts'
import { bookTop } from './clob-book.ts'
import { type OutcomeLabel, phaseAt } from './gamma-event.ts'
import { createMarketTracker, type TrackerOptions } from './market-tracker.ts'
import { createPolymarketClients, type PolymarketClients } from './polymarket-client.ts'
import { toVenueMarket } from './venue-mapping.ts'
import { POLYMARKET_BTC_15M } from './window-slug.ts'

export type PolymarketVenueOptions = {
  /** `https://gamma-api.polymarket.com` */
  gammaUrl: string
  /** `https://clob.polymarket.com` */
  clobUrl: string
  /** ms between the starts of two polls of Gamma (POLYMARKET_POLL_S) */
  pollMs: number
  wallClock: Clock
  logger: Logger
  telemetry?: VenueTelemetry
  /** per attempt; default 5 s */
  requestTimeoutMs?: number
  maxAttempts?: number
  backoff?: BackoffOptions
  random?: () => number
  /** pacing ceilings per host (see polymarket-client.ts) */
  gammaRequestsPerSec?: number
  clobRequestsPerSec?: number
  /** at most one pair of book requests per market this often; default 2 s */
  bookMinIntervalMs?: number
  /** status() turns `down` after this long without a clean poll; default 60 s */
  downAfterMs?: number
  /** health says `malformed` once every quote this long failed to parse; default 3 min */
  malformedAfterMs?: number
  /** see TrackerOptions */
  resolutionAlertMs?: number
  metadataGraceMs?: number
  /** told every event and book body received, as received (recording) */
  tap?: PolymarketTap
}

/** Where the raw bodies go when the engine records what it sees. */
export type PolymarketTap = {
  event(raw: unknown): void
  /** a `/book` body of one token of the market `ticker` (its slug); a 404 "no book" is not passed on */
  book(ticker: string, tokenId: string, body: unknown): void
}

/** A quote serves one reading: one retry, then the engine asks again on a later tick. */
const BOOK_ATTEMPTS = 2

type SideAsk = { ask: number | null; malformed: string | null }

export function createPolymarketVenue(opts: PolymarketVenueOptions): Venue {
  const clock = opts.wallClock
  const { logger } = opts
  const bookMinIntervalMs = opts.bookMinIntervalMs ?? 2_000
  const downAfterMs = opts.downAfterMs ?? 60_000
  const malformedAfterMs = opts.malformedAfterMs ?? 3 * 60_000
  const rejected = (endpoint: string, field: string): void => opts.telemetry?.rejected?.(endpoint, field)
  const clients: PolymarketClients = createPolymarketClients({
    gammaUrl: opts.gammaUrl,
    clobUrl: opts.clobUrl,
    clock,
    logger,
    ...(opts.telemetry ? { telemetry: opts.telemetry } : {}),
    ...(opts.requestTimeoutMs !== undefined ? { timeoutMs: opts.requestTimeoutMs } : {}),
    ...(opts.maxAttempts !== undefined ? { maxAttempts: opts.maxAttempts } : {}),
    ...(opts.backoff ? { backoff: opts.backoff } : {}),
    ...(opts.random ? { random: opts.random } : {}),
    ...(opts.gammaRequestsPerSec !== undefined ? { gammaRequestsPerSec: opts.gammaRequestsPerSec } : {}),
    ...(opts.clobRequestsPerSec !== undefined ? { clobRequestsPerSec: opts.clobRequestsPerSec } : {}),
  })
  const trackerOptions: TrackerOptions = {
    gamma: clients.gamma,
    clock,
    logger,
    onRejected: rejected,
    ...(opts.tap ? { onEvent: opts.tap.event } : {}),
    ...(opts.resolutionAlertMs !== undefined ? { resolutionAlertMs: opts.resolutionAlertMs } : {}),
    ...(opts.metadataGraceMs !== undefined ? { metadataGraceMs: opts.metadataGraceMs } : {}),
  }
  const tracker = createMarketTracker(trackerOptions)
  const stop = new AbortController()
  const quotes = createQuoteThrottle(bookMinIntervalMs)
  let startedAt: number | null = null
  let lastOkAt: number | null = null
  let lastFailure: string | null = null
  let loop: Promise<void> | null = null
  let quotesFailingSince: number | null = null
  let lastQuoteFailureAt: number | null = null

  async function pollAndRecord(): Promise<void> {
    try {
      const outcome = await tracker.pollOnce(stop.signal)
      if (outcome.ok) {
        lastOkAt = clock.now()
        lastFailure = null
      } else lastFailure = describeFailure(outcome.status, outcome.message)
    } catch (err) {
      logger.error({ venue: 'polymarket', err }, 'polymarket poll failed')
    }
  }

  const pollForever = (firstPollAt: number): Promise<void> =>
    pollEvery({ clock, pollMs: opts.pollMs, firstPollAt, signal: stop.signal, poll: pollAndRecord })

  /** The lowest ask of one token's own book; a 404 is "no book" (new or settling, venue facts §3.4.2). */
  async function askOf(ticker: string, side: OutcomeLabel, tokenId: string): Promise<SideAsk> {
    const reply = await clients.clob.get(
      'book',
      '/book',
      { token_id: tokenId },
      { signal: stop.signal, maxAttempts: BOOK_ATTEMPTS },
    )
    if (!reply.ok) {
      if (reply.status !== 'aborted' && reply.status !== '404')
        logger.warn(
          { venue: 'polymarket', ticker, side, status: reply.status, error: reply.message },
          'polymarket book failed',
        )
      return { ask: null, malformed: null }
    }
    opts.tap?.book(ticker, tokenId, reply.body)
    const top = bookTop(reply.body, tokenId)
    if (!top.ok) {
      rejected('book', top.field)
      logger.warn(
        { venue: 'polymarket', ticker, side, field: top.field },
        'polymarket book malformed; skipped',
      )
      return { ask: null, malformed: top.field }
    }
    return { ask: top.value.bestAskCents, malformed: null }
  }

  async function fetchQuote(ticker: string, tokenIds: Record<OutcomeLabel, string>, expiresAt: number) {
    const [up, down] = await Promise.all([
      askOf(ticker, 'up', tokenIds.up),
      askOf(ticker, 'down', tokenIds.down),
    ])
    const now = clock.now()
    if (up.malformed !== null || down.malformed !== null) {
      quotesFailingSince ??= now
      lastQuoteFailureAt = now
    } else quotesFailingSince = null
    // an answer that arrives after the end is no quote: trading has stopped (venue facts §3.1.3)
    if (now >= expiresAt || (up.ask === null && down.ask === null)) return null
    return { upAskCents: up.ask, downAskCents: down.ask }
  }

  function quotesMalformed(now: number): boolean {
    return (
      quotesFailingSince !== null &&
      lastQuoteFailureAt !== null &&
      now - quotesFailingSince >= malformedAfterMs &&
      now - lastQuoteFailureAt <= malformedAfterMs
    )
  }

  /** The cached view, following the ticker until its result is known. */
  function viewOf(ticker: string) {
    tracker.follow(ticker)
    return tracker.get(ticker)
  }

  return {
    name: 'polymarket',
    supportsHistory: false,
    async marketAt(series: string, at: number): Promise<VenueMarket | null> {
      if (series !== POLYMARKET_BTC_15M) return null
      const t = tracker.liveAt(at)
      return t ? toVenueMarket(t.market, at) : null
    },
    async market(ticker: string): Promise<VenueMarket | null> {
      const t = viewOf(ticker)
      return t ? toVenueMarket(t.market, clock.now()) : null
    },
    async result(ticker: string): Promise<Settlement | null> {
      viewOf(ticker)
      return tracker.settlement(ticker, clock.now())
    },
    async quote(ticker: string): Promise<VenueQuote | null> {
      const t = tracker.get(ticker)
      const now = clock.now()
      if (!t || phaseAt(t.market, now) !== 'trading') return null
      return quotes.get(ticker, now, () => fetchQuote(ticker, t.market.tokenIds, t.market.expiresAt))
    },
    status(): SourceStatus {
      const now = clock.now()
      const state = livenessOf(now, lastOkAt, startedAt, downAfterMs)
      const check: VenueCheck = quotesMalformed(now) ? 'malformed' : state === 'down' ? 'unreachable' : 'ok'
      return { name: 'polymarket', state, lastOkAt, check, failure: lastFailure }
    },
    async start() {
      if (startedAt !== null) return
      startedAt = clock.now()
      logger.info(
        { venue: 'polymarket', gammaUrl: opts.gammaUrl, clobUrl: opts.clobUrl, pollMs: opts.pollMs },
        'polymarket venue starting',
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
