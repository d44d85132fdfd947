// The Polymarket venue (decisions §14, venue facts §3) on the shared polled-venue core
// (venue-http/polled-venue.ts): a background poller keeps the followed windows' events from Gamma
// (market-tracker.ts into market-book.ts), so the engine's calls on every tick read memory; only
// quote() goes to the network: the CLOB book of each side's own token, at most once per interval per
// market. Polymarket's own parts: the CLOB's books and its weekly restart.
import { inWeeklyWindow, type WeeklyWindow } from '../../domain/weekly-window.ts'
import type { Clock } from '../../ports/clock.ts'
import type { Logger } from '../../ports/logger.ts'
import { NO_ANSWER, type Venue, type VenueTelemetry } from '../../ports/venue.ts'
import { describeFailure } from '../venue-http/json-client.ts'
import { createPolledVenue } from '../venue-http/polled-venue.ts'
import type { QuoteHealth } from '../venue-http/quote-health.ts'
import type { Sleep } from '../venue-http/request-pacer.ts'
import type { BackoffOptions } from '../venue-http/retry-backoff.ts'
import { venueOutageLogs } from '../venue-http/venue-outage-log.ts'
import { bookTop } from './clob-book.ts'
import type { OutcomeLabel } from './gamma-event.ts'
import { createPolymarketBook, polymarketBoundaries } from './market-book.ts'
import { createMarketTracker } from './market-tracker.ts'
import { createPolymarketClients, type PolymarketClients } from './polymarket-client.ts'
import { POLYMARKET_BTC_15M } from './window-slug.ts'

export type PolymarketVenueOptions = {
  /** `https://gamma-api.polymarket.com` */
  gammaUrl: string
  /** `https://clob.polymarket.com` */
  clobUrl: string
  /** ms between the starts of two polls of Gamma (POLYMARKET_POLL_S) */
  pollMs: number
  /**
   * The CLOB's weekly matching-engine restart (POLYMARKET_WEEKLY_RESTART; venue facts §3.4.7): about
   * 90 s of HTTP 425, then 2 minutes post-only, so the books' asks cannot be taken. No readings in
   * it (a scheduled pause); null: none configured.
   */
  weeklyRestart?: WeeklyWindow | null
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
  /** how the poll loop waits between polls; default a timer (a test moves its own clock instead) */
  pollSleep?: Sleep
}

/** Where the raw bodies go when the engine records what it sees. */
export type PolymarketTap = {
  event(raw: unknown): void
  /** a `/book` body of one token of the market `ticker` (its slug), received at `at` */
  book(ticker: string, tokenId: string, body: unknown, at: number): void
  /** the CLOB's 404 "no book" for one token, received at `at`: an answer, recorded as one */
  noBook(ticker: string, tokenId: string, at: number): void
}

const MINUTE_MS = 60_000
/** A quote serves one reading: one retry, then the engine asks again on a later tick. */
const BOOK_ATTEMPTS = 2

/**
 * One token's best ask; `answered` false when its book was not had (an error, a 425, an unreadable
 * body); `read` true when a book body came back and parsed; `failure`: why the book got no usable
 * answer, as the venue gave it.
 */
type SideAsk = {
  ask: number | null
  malformed: string | null
  answered: boolean
  read?: boolean
  /** when the book body or its 404 came (the instant a recording keeps), for a side answered */
  cameAt?: number
  failure: string | null
  /** the request got no answer from the venue (an error, a timeout, a 5xx…): its status and words */
  unreachable?: { status: string; message: string }
  /** the caller gave up (the venue closing) */
  aborted?: boolean
}

export function createPolymarketVenue(opts: PolymarketVenueOptions): Venue {
  const clock = opts.wallClock
  const { logger } = opts
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
  const book = createPolymarketBook({
    logger,
    onRejected: rejected,
    ...(opts.metadataGraceMs !== undefined ? { metadataGraceMs: opts.metadataGraceMs } : {}),
  })
  const tracker = createMarketTracker({
    gamma: clients.gamma,
    book,
    clock,
    logger,
    ...(opts.tap ? { onEvent: opts.tap.event } : {}),
    ...(opts.resolutionAlertMs !== undefined ? { resolutionAlertMs: opts.resolutionAlertMs } : {}),
  })
  // minutes in which the CLOB answered 425 (its engine restarting): the last few are enough
  const tooEarlyMinutes = new Set<number>()
  const minuteOf = (at: number): number => Math.floor(at / MINUTE_MS)
  const inRestart = (at: number): boolean =>
    (opts.weeklyRestart != null && inWeeklyWindow(opts.weeklyRestart, at)) ||
    tooEarlyMinutes.has(minuteOf(at))

  /** The lowest ask of one token's own book; a 404 is "no book" (new or settling, venue facts §3.4.2). */
  async function askOf(ticker: string, tokenId: string, signal: AbortSignal): Promise<SideAsk> {
    const query = { token_id: tokenId }
    const reply = await clients.clob.get('book', '/book', query, { signal, maxAttempts: BOOK_ATTEMPTS })
    if (!reply.ok && reply.status === 'invalid_json') {
      // a 2xx body that is not JSON is as unreadable as a malformed one
      rejected('book', 'json')
      return {
        ask: null,
        malformed: 'json',
        answered: false,
        failure: describeFailure(reply.status, reply.message),
      }
    }
    if (!reply.ok && reply.status === '425') {
      // the matching engine is restarting (HTTP 425 Too Early): this minute's readings pause
      if (tooEarlyMinutes.size >= 10) tooEarlyMinutes.delete(tooEarlyMinutes.values().next().value as number)
      tooEarlyMinutes.add(minuteOf(clock.now()))
      return {
        ask: null,
        malformed: null,
        answered: false,
        failure: describeFailure(reply.status, reply.message),
      }
    }
    if (!reply.ok && reply.status === '404') {
      // a 404 is an answer: the token has no book, so that side has no ask
      const cameAt = clock.now()
      opts.tap?.noBook(ticker, tokenId, cameAt)
      return { ask: null, malformed: null, answered: true, cameAt, failure: null }
    }
    if (!reply.ok) {
      const aborted = reply.status === 'aborted'
      return {
        ask: null,
        malformed: null,
        answered: false,
        failure: describeFailure(reply.status, reply.message),
        ...(aborted ? { aborted } : { unreachable: reply }),
      }
    }
    const cameAt = clock.now()
    opts.tap?.book(ticker, tokenId, reply.body, cameAt)
    const top = bookTop(reply.body, tokenId)
    if (!top.ok) {
      rejected('book', top.field)
      return { ask: null, malformed: top.field, answered: false, failure: `malformed: ${top.field}` }
    }
    return { ask: top.value.bestAskCents, malformed: null, answered: true, read: true, cameAt, failure: null }
  }

  // the engine asks for books every few seconds of each reading minute: a venue that keeps failing
  // or garbling them is logged as an outage per market (the side and field named first), not per attempt
  const bookUnanswered = venueOutageLogs(clock, logger, {
    venue: 'polymarket',
    key: 'ticker',
    what: (ticker) => `polymarket book of ${ticker}`,
    started: 'polymarket book failed',
  })
  const bookMalformed = venueOutageLogs(clock, logger, {
    venue: 'polymarket',
    key: 'ticker',
    what: (ticker) => `polymarket book of ${ticker} (malformed)`,
    started: 'polymarket book malformed; skipped',
  })

  function logBooks(ticker: string, sides: Array<SideAsk & { side: OutcomeLabel }>): void {
    const unreachable = sides.find((s) => s.unreachable)
    if (unreachable?.unreachable)
      bookUnanswered.failed(ticker, { side: unreachable.side, ...unreachable.unreachable })
    else if (!sides.some((s) => s.aborted)) bookUnanswered.succeeded(ticker)
    const malformed = sides.find((s) => s.malformed !== null)
    if (malformed?.malformed)
      bookMalformed.failed(ticker, { side: malformed.side, field: malformed.malformed })
    else if (sides.some((s) => s.read)) bookMalformed.succeeded(ticker)
  }

  async function fetchQuote(ticker: string, signal: AbortSignal, health: QuoteHealth) {
    const market = book.get(ticker)?.market
    if (!market) return null
    const [up, down] = await Promise.all([
      askOf(ticker, market.tokenIds.up, signal),
      askOf(ticker, market.tokenIds.down, signal),
    ])
    logBooks(ticker, [
      { side: 'up', ...up },
      { side: 'down', ...down },
    ])
    const now = clock.now()
    // as on Kalshi: a garbled book counts toward `malformed`, a book read ends the run, and a request
    // with no body to read (an HTTP failure, a 425, a 404 "no book") is neutral — an unreachable
    // venue is `unreachable`, and no proof its books parse
    if (up.malformed !== null || down.malformed !== null) health.failed(now)
    else if (up.read || down.read) health.parsed()
    // an answer that arrives after the end is no quote: trading has stopped (venue facts §3.1.3)
    if (now >= market.expiresAt) return null
    // one side's book not had is no one-sided book: what the other side says alone would be read
    // as a bound the venue never showed
    if (!up.answered || !down.answered) {
      const failure = up.failure ?? down.failure
      // an aborted request (the venue closing) is no failure of the venue's
      if (failure !== null && !failure.startsWith('aborted')) health.unanswered(failure)
      return NO_ANSWER
    }
    if (up.ask === null && down.ask === null) return null
    // seen when its last book came, the instant a replay of the recording is at (decisions §12)
    const came = [up.cameAt, down.cameAt].filter((at) => at !== undefined)
    return {
      upAskCents: up.ask,
      downAskCents: down.ask,
      observedAt: came.length > 0 ? Math.max(...came) : now,
    }
  }

  const venue = createPolledVenue({
    name: 'polymarket',
    clock,
    logger,
    pollMs: opts.pollMs,
    quoteMinIntervalMs: opts.bookMinIntervalMs ?? 2_000,
    ...(opts.downAfterMs !== undefined ? { downAfterMs: opts.downAfterMs } : {}),
    ...(opts.malformedAfterMs !== undefined ? { malformedAfterMs: opts.malformedAfterMs } : {}),
    startFields: { gammaUrl: opts.gammaUrl, clobUrl: opts.clobUrl },
    view: book.view([POLYMARKET_BTC_15M]),
    // polled again just after each window's start and end, as Kalshi (venue-http/boundary-polls.ts)
    boundaries: polymarketBoundaries(book),
    ...(opts.pollSleep ? { pollSleep: opts.pollSleep } : {}),
    // the ticker is followed until its result is known
    follow: (ticker) => tracker.follow(ticker),
    async poll(signal) {
      const outcome = await tracker.pollOnce(signal)
      if (!outcome.ok) venue.failed(describeFailure(outcome.status, outcome.message))
      return outcome.ok
    },
    fetchQuote,
    // the weekly restart is announced, and a 425 is the venue saying it restarts: neither is an outage
    tradingPaused: inRestart,
    scheduledPause: (now) => inRestart(now),
  })
  return venue
}
