// What the engine needs from a prediction-market venue and a spot price feed. Raw venue data is
// translated to these domain shapes inside each adapter; adapters that talk to the network poll and
// cache in the background, so every call here is cheap enough to make on each engine tick.
import type { Settlement } from '../domain/contest.ts'
import type { IndexCheck } from '../domain/feed-status.ts'
import type { MinuteClose } from '../domain/price-history.ts'
import type { ContestVenue } from '../domain/venue-refs.ts'

/**
 * Where a market stands as the venue last reported it: `upcoming` before trading opens, `trading`
 * while it can be quoted, `paused` while the venue has halted it inside its window, `closed` for
 * every state after trading ended (awaiting a result, decided, disputed or paid out).
 */
export type MarketPhase = 'upcoming' | 'trading' | 'paused' | 'closed'

export type VenueMarket = {
  ticker: string
  series: string
  /** window as the venue gives it: never assumed to sit on quarter hours or to last 15 minutes */
  opensAt: number
  expiresAt: number
  /** null until the venue sets it */
  strikePriceDollars: number | null
  phase: MarketPhase
  /** the venue whose market this is and the references a bot trades it with (decisions §16) */
  venue: ContestVenue
  /**
   * The settlement rule where the venue states one per market (Polymarket's `cryptoMarketConfig`,
   * decisions §14): the venue's price is averaged over the `averagingS` seconds ending at each
   * instant (0: a point price) and a tie goes up. Absent: the series' own rule (Kalshi's 60 s mean).
   */
  settlementRule?: { averagingS: number }
}

/**
 * Best asks on the 0–100 cent scale (sub-cent ticks kept, e.g. 3.5). A side is null when it has no
 * ask (the opposite book is empty): such a side cannot be a reading's side.
 */
export type VenueQuote = {
  upAskCents: number | null
  downAskCents: number | null
  /** service ms at which the venue's book was observed; absent means at the instant asked */
  observedAt?: number
}

/**
 * A book request that got no usable answer — an error, a timeout, an unreadable body: the book was
 * not had, which says nothing of its asks (a reading retries it, and is `late` if it never comes).
 */
export const NO_ANSWER = 'no-answer'

/** What a venue answers to a book request. */
export type QuoteAnswer = VenueQuote | null | typeof NO_ANSWER

/** The answer with its book stamped as seen at `observedAt`; no quote and no answer stay as they are. */
export function observedAt(answer: QuoteAnswer, at: number): QuoteAnswer {
  return answer === null || answer === NO_ANSWER ? answer : { ...answer, observedAt: at }
}

/** The spot as the engine observed it (decisions §11): the price, when, and from how many sources. */
export type SpotObservation = {
  priceDollars: number
  /**
   * service ms the price stood at: the exchange median's, the instant asked for (a reading's, when
   * its book came); the settlement index's, its print's own time
   */
  observedAt: number
  /** fresh sources in the median */
  freshSources: number
  /** the settlement index's id when the spot is that index itself (BRTI), not a median of exchanges */
  index?: string
}

/**
 * What the health check says of a venue (decisions §8): `paused` while the exchange has stopped
 * trading (or cannot be reached inside a pause it scheduled), `unreachable` for an outage, and
 * `malformed` when every quote of the last 3 minutes failed to parse.
 */
export type VenueCheck = 'ok' | 'paused' | 'unreachable' | 'malformed'

/** Liveness of one upstream source, judged by the adapter on its own wall clock. */
export type SourceStatus = {
  name: string
  /** `down` once the source has not answered for over a minute (or never has, a minute after start) */
  state: 'ok' | 'down'
  /** wall ms of the last good answer; null before the first (and for the simulator, which has no network) */
  lastOkAt: number | null
  /** a venue's health check, when it knows more than `state` (a networked venue) */
  check?: VenueCheck
  /** true while the venue is inside a pause it scheduled: a pause or an outage then is not a fault */
  scheduledPause?: boolean
  /** the last failure as the source gave it (HTTP status and the first words of its body), null after a success */
  failure?: string | null
  /** a venue's last book request that got no usable answer, as the venue gave it; null once a book was read */
  quoteFailure?: string | null
}

/** One spot source as the model's median sees it. */
export type SpotSourceStatus = SourceStatus & {
  /** last mid price in USD, null before the first */
  midDollars: number | null
  /** wall ms the mid was observed at */
  midAt: number | null
  /**
   * true when the mid is recent enough (SPOT_MAX_AGE_S, judged by the exchange's own timestamp where
   * it sends one) and the exchange is not in maintenance: only then does it enter the median
   */
  fresh: boolean
  /** receipt time minus the exchange's own timestamp of the last mid, ms; null where it sends none */
  lagMs?: number | null
  /** true while the exchange reports maintenance (Kraken's status channel): its quotes are left out */
  maintenance?: boolean
  /** only the settlement index itself (BRTI): whether it is the model's spot (domain/feed-status.ts) */
  index?: IndexCheck
}

export interface Venue {
  readonly name: string
  /** True when the venue can answer the calls below for past instants (used by backfill). */
  readonly supportsHistory: boolean
  /** The market of `series` whose window contains `at` and that is trading or paused, if known. */
  marketAt(series: string, at: number): Promise<VenueMarket | null>
  /**
   * The market of `series` whose window opened at `opensAt`, whatever its phase now, if the venue
   * still describes it: an earlier contest's strike, for the basis samples (decisions §11). Absent:
   * marketAt at that instant answers it.
   */
  marketOpenedAt(series: string, opensAt: number): Promise<VenueMarket | null>
  /** The venue's current view of one market it listed (strike and window may change), else null. */
  market(ticker: string, at: number): Promise<VenueMarket | null>
  /**
   * Best asks for the market at `at`, or null when neither side is quotable (not trading, or no ask
   * on either side); NO_ANSWER when the book request got no usable answer. Never a quote taken after
   * the market stopped trading.
   */
  quote(ticker: string, at: number): Promise<QuoteAnswer>
  /** The result once the venue has determined it (as seen at `at`), else null. */
  result(ticker: string, at: number): Promise<Settlement | null>
  status(): SourceStatus
  /**
   * One status per venue (decisions §14: health and metrics are per venue): a single venue's is its
   * `status()`, a set's one per member.
   */
  statuses(): readonly SourceStatus[]
  /**
   * True when the exchange that lists `series` says trading is paused at `at` (the weekly
   * maintenance, say): no reading of that series is raised then, whatever the markets' own statuses
   * say, and a pause of one venue holds no other venue's readings. A live venue answers for now; a
   * venue without such a status answers false.
   */
  tradingPaused(at: number, series: string): boolean
  /** Starts background work (polling); resolves once the first attempt finished, failed or not. */
  start(): Promise<void>
  close(): Promise<void>
}

export interface PriceFeed {
  readonly name: string
  /**
   * Spot price of the underlying in USD at `at`; null when too few sources are fresh to give one
   * (at least 2 for an exchange median, decisions §8; the settlement index alone suffices).
   */
  spotAt(at: number): Promise<number | null>
  /** Closing prices of the `count` whole minutes ending at or before `at`, oldest first (may be fewer). */
  minuteClosesBefore(at: number, count: number): Promise<number[]>
  /**
   * The spot with its observation instant and fresh-source count (a feed that reads every source at
   * `at` itself, the simulator's, observes at `at`).
   */
  observeSpot(at: number): Promise<SpotObservation | null>
  /**
   * The closes of up to `count` whole minutes ending at or before `at`, each stamped with its
   * minute's end, oldest first: a minute without a close is missing, never closed up.
   */
  stampedClosesBefore(at: number, count: number): Promise<MinuteClose[]>
  /** One entry per source. */
  sources(): SpotSourceStatus[]
  start(): Promise<void>
  close(): Promise<void>
}

/** What a real venue said of the configured series at start (decisions §8, §14). */
export type SeriesCheck =
  /** every series can be priced */
  | { kind: 'ok' }
  /** one line per series that cannot, naming it and why */
  | { kind: 'refused'; problems: string[] }
  /** the venue could not be asked: the failure as the venue gave it */
  | { kind: 'unreachable'; failure: string }

/** Request accounting for a networked venue, wired to metrics by the composition root. */
export interface VenueTelemetry {
  /** `status` is the HTTP status as a string, or `timeout` / `error` when no answer came. */
  request(endpoint: string, status: string, seconds: number): void
  retry(endpoint: string): void
  /** a body the adapter could not use, by endpoint and the field that was wrong */
  rejected?(endpoint: string, field: string): void
  /** the venue's WebSocket connected (true) or dropped (false) */
  socket?(connected: boolean): void
}

/** What one spot exchange source reports to metrics (engine roles), labelled with the source by its maker. */
export interface SpotTelemetry {
  /** a REST request (`ticker` while the socket is not delivering, `candles` at warm-up): HTTP status, `timeout` or `error` */
  request(endpoint: string, status: string): void
  /** a socket frame or REST body the adapter could not use, by the field that was wrong */
  rejected(field: string): void
  /** the socket opened (true), or a session ended or failed to connect (false) */
  socket(connected: boolean): void
}
