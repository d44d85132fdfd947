// The one core of a polled live venue (decisions §8), so Kalshi's and Polymarket's adapters cannot
// drift: a background poll keeps the venue's market book, every port call but quote() reads that
// book in memory, quotes go to the network at most once per interval per market, and the health
// check (liveness, pause, malformed books) is judged the same way for both. A venue brings only its
// pure market book (as a MarketView), its poll and its book request; outages delay openings,
// readings and results, never invent one.
import type { Settlement } from '../../domain/contest.ts'
import { createOutageLog } from '../../platform/outage-log.ts'
import type { Clock } from '../../ports/clock.ts'
import type { Logger } from '../../ports/logger.ts'
import {
  NO_ANSWER,
  observedAt,
  type QuoteAnswer,
  type SourceStatus,
  type Venue,
  type VenueCheck,
  type VenueMarket,
} from '../../ports/venue.ts'
import type { BoundaryWatch } from './boundary-polls.ts'
import type { MarketView } from './market-view.ts'
import { livenessOf, pollEvery } from './poll-loop.ts'
import { createQuoteHealth, type QuoteHealth } from './quote-health.ts'
import { createQuoteThrottle } from './quote-throttle.ts'
import type { Sleep } from './request-pacer.ts'

export type PolledVenueSpec = {
  name: string
  clock: Clock
  logger: Logger
  /** ms between the starts of two polls */
  pollMs: number
  /** at most one book request per market this often */
  quoteMinIntervalMs: number
  /** status() turns `down` after this long without a clean poll; default 60 s */
  downAfterMs?: number
  /** health says `malformed` once every quote this long failed to parse; default 3 min */
  malformedAfterMs?: number
  /** what the start is logged with (where the venue is reached) */
  startFields: Record<string, unknown>
  /** the port's reads of the venue's market book */
  view: MarketView
  /** the engine asked about `ticker`: keep it polled until its result is known */
  follow(ticker: string): void
  /** one poll of the venue; true when it was clean (a failure is told through `failed`) */
  poll(signal: AbortSignal): Promise<boolean>
  /** the book request of a market the view says is quotable; `health` told of each body read */
  fetchQuote(ticker: string, signal: AbortSignal, health: QuoteHealth): Promise<QuoteAnswer>
  /** the exchange says trading is paused at `at` (a live venue answers for now) */
  tradingPaused(at: number): boolean
  /** inside a pause the venue scheduled at `now`, given the last clean poll: then an outage is no fault */
  scheduledPause(now: number, lastOkAt: number | null): boolean
  /** the boundaries of the markets the book knows: polled just after each (boundary-polls.ts) */
  boundaries?: BoundaryWatch
  /** how the poll loop waits between polls; default a timer (tests move a clock of their own) */
  pollSleep?: Sleep
  /** extra work started before the first poll and closed with the venue (a WebSocket) */
  companion?: { start(): void; close(): Promise<void> }
}

export type PolledVenue = Venue & {
  /** the last failure as the venue gave it (HTTP status and the first words of its body) */
  failed(failure: string): void
  readonly signal: AbortSignal
}

export function createPolledVenue(spec: PolledVenueSpec): PolledVenue {
  const { clock, logger, name, view } = spec
  const downAfterMs = spec.downAfterMs ?? 60_000
  const health = createQuoteHealth(spec.malformedAfterMs ?? 3 * 60_000)
  const quotes = createQuoteThrottle(spec.quoteMinIntervalMs)
  const stop = new AbortController()
  let startedAt: number | null = null
  let lastOkAt: number | null = null
  let lastFailure: string | null = null
  let loop: Promise<void> | null = null
  // a poll that throws (a bug, a shape nothing caught) throws again at every poll, every few
  // seconds: its start with the stack, a count a minute, its end — not a stack per poll
  const pollOutage = createOutageLog(clock, {
    what: `${name} poll`,
    started: `${name} poll failed`,
    fail: (fields, message) => logger.error(fields, message),
    recover: (fields, message) => logger.warn(fields, message),
    context: { venue: name },
  })

  async function pollAndRecord(): Promise<void> {
    const began = clock.now()
    try {
      if (await spec.poll(stop.signal)) {
        lastOkAt = clock.now()
        lastFailure = null
      }
      pollOutage.succeeded()
    } catch (err) {
      pollOutage.failed(err)
    }
    logger.debug({ venue: name, ms: clock.now() - began }, `${name} poll done`)
  }

  function status(): SourceStatus {
    const now = clock.now()
    const state = livenessOf(now, lastOkAt, startedAt, downAfterMs)
    const scheduledPause = spec.scheduledPause(now, lastOkAt)
    const check: VenueCheck = health.malformed(now)
      ? 'malformed'
      : spec.tradingPaused(now)
        ? 'paused'
        : state === 'down'
          ? scheduledPause
            ? 'paused'
            : 'unreachable'
          : 'ok'
    return {
      name,
      state,
      lastOkAt,
      check,
      scheduledPause,
      failure: lastFailure,
      quoteFailure: health.lastFailure(),
    }
  }

  return {
    name,
    supportsHistory: false,
    signal: stop.signal,
    failed(failure) {
      lastFailure = failure
    },
    async marketAt(series: string, at: number): Promise<VenueMarket | null> {
      return view.marketAt(series, at)
    },
    async marketOpenedAt(series: string, opensAt: number): Promise<VenueMarket | null> {
      return view.marketOpenedAt(series, opensAt, clock.now())
    },
    async market(ticker: string): Promise<VenueMarket | null> {
      spec.follow(ticker)
      return view.market(ticker, clock.now())
    },
    async result(ticker: string): Promise<Settlement | null> {
      spec.follow(ticker)
      return view.result(ticker, clock.now())
    },
    async quote(ticker: string): Promise<QuoteAnswer> {
      const now = clock.now()
      // quotes after the close are stale, then an empty book: never use one
      if (!view.quotable(ticker, now)) return null
      // stamped when the book came back (by the adapter, which knows): a reading is made once it has
      // it (decisions §11), and a quote shared by later ticks shows its age
      return quotes.get(ticker, now, async () => {
        const quote = await spec.fetchQuote(ticker, stop.signal, health)
        const cameAt = quote !== null && quote !== NO_ANSWER ? quote.observedAt : undefined
        return observedAt(quote, cameAt ?? clock.now())
      })
    },
    status,
    statuses: () => [status()],
    tradingPaused: (at: number) => spec.tradingPaused(at),
    async start() {
      if (startedAt !== null) return
      startedAt = clock.now()
      logger.info({ venue: name, ...spec.startFields, pollMs: spec.pollMs }, `${name} venue starting`)
      spec.companion?.start()
      await pollAndRecord()
      const firstPollAt = startedAt
      loop = pollEvery({
        clock,
        pollMs: spec.pollMs,
        firstPollAt,
        signal: stop.signal,
        poll: pollAndRecord,
        ...(spec.boundaries ? { watch: spec.boundaries } : {}),
        ...(spec.pollSleep ? { sleep: spec.pollSleep } : {}),
      })
    },
    async close() {
      stop.abort()
      await Promise.all([loop, spec.companion?.close()])
    },
  }
}
