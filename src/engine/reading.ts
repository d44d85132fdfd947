// One model reading of a contest at one of its whole minutes (decisions §11): the same code raises
// live signals and rebuilds backfilled ones, so history looks exactly as the live engine would have
// made it. Inputs are observed at the reading's instant, each with its own observation instant; the
// model prices the time left from the instant the spot was observed.
import { CONTEST_MINUTES, CONTEST_MS, type Contest, MINUTE_MS, type Signal } from '../domain/contest.ts'
import { CROWD_LAG_MAX_S, type CrowdLag, createCrowdLag } from '../domain/crowd-lag.ts'
import { chooseSide } from '../domain/model.ts'
import { type BasisSample, spanMeanOfCloses } from '../domain/price-history.ts'
import type { ModelInputs, ReadingModel } from '../domain/reading-model.ts'
import { venueOfSeries } from '../domain/venues.ts'
import { NO_ANSWER, type PriceFeed, type Venue, type VenueQuote } from '../ports/venue.ts'

/** Readings are taken at minutes 1..14: minute 0 has no price history inside the window yet. */
export const FIRST_READING_MINUTE = 1
export const LAST_READING_MINUTE = CONTEST_MINUTES - 1

/** READING_MAX_LATE_S's default: a reading's inputs must be had within this of its boundary. */
export const DEFAULT_READING_MAX_LATE_MS = 10_000

/** Fresh spot sources a reading needs (decisions §11), or every source of a feed that has fewer. */
export const MIN_FRESH_SOURCES = 2

/** Contests before this one whose strikes sample the proxy–index basis. */
export const BASIS_CONTESTS = 16

/**
 * How far before a contest's open its first reading looks (decisions §11): the model's stated history
 * of closes, or the strikes of the BASIS_CONTESTS contests before it with the proxy's closes around
 * each strike's minute, whichever reaches further. The one home of that span: a spot feed keeps at
 * least this much, and a sim tape writes this much of the sandbox before its first contest.
 */
export function readingLookbackMs(model: Pick<ReadingModel, 'historyMinutes'>): number {
  return Math.max(model.historyMinutes * MINUTE_MS, BASIS_CONTESTS * CONTEST_MS + 2 * MINUTE_MS)
}

/**
 * Why a minute raised no reading (decisions §8, §11): the one list of reasons, each counted in
 * metrics and logged once per contest.
 */
export const SKIP_REASONS = [
  'no-strike',
  'no-quote',
  'no-book',
  'no-spot',
  'few-sources',
  'short-history',
  'late',
  'paused',
] as const
export type SkipReason = (typeof SKIP_REASONS)[number]
export type SkippedReading = { skipped: SkipReason }

export function isSkipped(reading: Signal | SkippedReading): reading is SkippedReading {
  return 'skipped' in reading
}

export type ReadingDeps = {
  venue: Venue
  feed: PriceFeed
  model: ReadingModel
  /** READING_MAX_LATE_S in ms */
  maxLateMs: number
  /** basis samples by contest open, shared across readings (each costs a minute of one-second prints) */
  basisCache?: Map<string, BasisSample | null>
  /** where the crowd lag is measured (absent: it is not, and the model is given none) */
  crowdLags?: CrowdLags
}

/**
 * Each series' crowd lag as measured so far (crowd-lag.ts), fed by every reading with a two-sided
 * book, and the model whose own P(up) it is measured against: the engine's, or for a tool that reads
 * without pricing (the fit's observer) the shipped one, so the tool's inputs are the engine's.
 */
export type CrowdLags = { model: ReadingModel; bySeries: Map<string, CrowdLag> }

/** What a reading observed: the model's inputs, the book, and the spot's source count. */
export type ObservedInputs = {
  model: ModelInputs
  quote: VenueQuote
  bookObservedAt: number
  freshSources: number
  /**
   * When the reading was made: once its last input was observed (a book fetched after the boundary,
   * a spot read after it). Its `raised_at`; the lateness limit is judged on it.
   */
  madeAt: number
}

/**
 * The reading for `minute`, started at `now`: skipped when its inputs were had more than maxLateMs
 * past the minute's boundary (a minute missed stays missed), while the exchange has paused trading,
 * the strike is unknown, no side has an ask, the spot is missing or from fewer than 2 fresh sources,
 * or the model lacks its minimum history. Raised at the instant its last input was observed.
 */
export async function takeReading(
  deps: ReadingDeps,
  contest: Contest,
  minute: number,
  now: number,
): Promise<Signal | SkippedReading> {
  const observed = await observeReadingInputs(deps, contest, minute, now)
  if ('skipped' in observed) return observed
  const { quote } = observed
  const out = deps.model.probabilityUp(observed.model)
  const reading = chooseSide(out.probabilityUp, quote)
  if (!reading) return { skipped: 'no-quote' }
  return {
    ticker: contest.ticker,
    minute,
    raisedAt: observed.madeAt,
    ...reading,
    outcome: 'pending',
    modelVersion: deps.model.version,
    inputs: {
      spotObservedAt: observed.model.spotObservedAt,
      bookObservedAt: observed.bookObservedAt,
      spotDollars: observed.model.spotDollars,
      freshSources: observed.freshSources,
      upAskCents: quote.upAskCents,
      downAskCents: quote.downAskCents,
      sigmaPerMinute: out.sigmaPerMinute,
      effectiveMinutes: out.effectiveMinutes,
      probabilityUp: out.probabilityUp,
      modelAloneUp: out.modelAloneUp ?? out.probabilityUp,
    },
  }
}

/**
 * Everything a reading observes at `now`, or why the minute raises none: the one path by which both
 * the engine and the model's fitting and judging tools see the world (so a model is fitted and
 * judged on exactly what it will be given live).
 */
export async function observeReadingInputs(
  deps: ReadingDeps,
  contest: Contest,
  minute: number,
  now: number,
): Promise<ObservedInputs | SkippedReading> {
  const boundary = contest.opensAt + minute * MINUTE_MS
  const late = (at: number): boolean => at - boundary > deps.maxLateMs
  if (late(now)) return { skipped: 'late' }
  // the exchange's own word, whatever the market statuses say (decisions §8, the weekly pause)
  // the exchange of this contest's venue only: a Kalshi pause holds no Polymarket reading (§14)
  if (deps.venue.tradingPaused(now, contest.series)) return { skipped: 'paused' }
  const market = await deps.venue.market(contest.ticker, now)
  // one market halted inside its window (Kalshi `inactive`) is a pause too, not a book without asks
  if (market?.phase === 'paused') return { skipped: 'paused' }
  // the rule's averaging window reaches the model whether or not the strike is published (issue 29)
  const rule = market?.settlementRule
  // the proxy's own strike, published strike or not: where the venue's price carries a basis that
  // moves (Polymarket's oracle), the model may price against it instead (docs/model.md)
  const own = await estimateStrike(deps, contest, rule)
  const estimate = contest.strikePriceDollars === null ? own : null
  const strike = contest.strikePriceDollars ?? estimate?.dollars ?? null
  if (strike === null) return { skipped: 'no-strike' }
  const quote = await deps.venue.quote(contest.ticker, now)
  if (quote === NO_ANSWER) return { skipped: 'no-book' }
  if (!quote || (quote.upAskCents === null && quote.downAskCents === null)) return { skipped: 'no-quote' }
  const bookObservedAt = quote.observedAt ?? now
  // the spot as it stood when the book came (or at the start, for a book had earlier): a tick that
  // arrives while the reading is being made is no input of it, live or replayed (decisions §12)
  const spot = await deps.feed.observeSpot(Math.max(now, bookObservedAt))
  if (spot === null) return { skipped: 'no-spot' }
  // a book or a spot that came after the start: the reading is made once it has both (decisions §11)
  const madeAt = Math.max(now, bookObservedAt, spot.observedAt)
  if (late(madeAt)) return { skipped: 'late' }
  // the settlement index itself needs no second source: there is no median to protect
  if (!spot.index && spot.freshSources < Math.min(MIN_FRESH_SOURCES, deps.feed.sources().length))
    return { skipped: 'few-sources' }
  const closes = await deps.feed.stampedClosesBefore(spot.observedAt, deps.model.historyMinutes)
  if (closes.length < deps.model.minHistoryCloses) return { skipped: 'short-history' }
  const basisSamples = await basisSamplesFor(deps, contest)
  const { upAskCents, downAskCents } = quote
  // a one-sided book has no mid; what its one side says reaches the model through `book`
  const midProbability =
    upAskCents !== null && downAskCents !== null ? (upAskCents + 100 - downAskCents) / 200 : null
  const venue = venueOfSeries(contest.series)
  const model: ModelInputs = {
    spotDollars: spot.priceDollars,
    spotObservedAt: spot.observedAt,
    strikeDollars: strike,
    opensAt: contest.opensAt,
    expiresAt: contest.expiresAt,
    closes,
    basisSamples,
    midProbability,
    book: { upAskCents, downAskCents, ageMs: madeAt - bookObservedAt },
    spotIsIndex: spot.index !== undefined,
    ...(venue ? { venue } : {}),
    ...(rule ? { averagingS: rule.averagingS } : {}),
    ...(estimate ? { strikeEstimateVariance: estimate.variance } : {}),
    ...(own ? { ownStrikeDollars: own.dollars } : {}),
    ...(own?.fromCloses ? { strikeEstimateFromCloses: true } : {}),
  }
  return {
    model: { ...model, ...(await crowdLagInputs(deps, contest.series, model, bookObservedAt, madeAt)) },
    quote,
    bookObservedAt,
    freshSources: spot.freshSources,
    madeAt,
  }
}

/**
 * The spot before the book's instant and the series' crowd lag measured before this reading; then
 * this reading's own measure of it, where its book is two-sided: the model alone at each of those
 * spots beside the mid (crowd-lag.ts). Nothing where the model does not read the lag on this venue.
 */
async function crowdLagInputs(
  deps: ReadingDeps,
  series: string,
  model: ModelInputs,
  bookObservedAt: number,
  madeAt: number,
): Promise<Pick<ModelInputs, 'spotsBeforeBook' | 'crowdLagSeconds'>> {
  const lagModel = deps.crowdLags?.model
  if (!deps.crowdLags || !lagModel?.modelAloneAtSpots || !lagModel.readsCrowdLag?.(model.venue)) return {}
  const { bySeries } = deps.crowdLags
  let crowd = bySeries.get(series)
  if (!crowd) {
    crowd = createCrowdLag()
    bySeries.set(series, crowd)
  }
  const spotsBeforeBook: (number | null)[] = []
  for (let lag = 0; lag <= CROWD_LAG_MAX_S; lag++)
    spotsBeforeBook.push((await deps.feed.observeSpot(bookObservedAt - lag * 1_000))?.priceDollars ?? null)
  const crowdLagSeconds = crowd.secondsAt(madeAt)
  if (model.midProbability !== null)
    crowd.observe(
      madeAt,
      model.midProbability,
      () => lagModel.modelAloneAtSpots?.(model, spotsBeforeBook) ?? [],
    )
  return { spotsBeforeBook, crowdLagSeconds }
}

/**
 * The strike's relative error when the engine estimates it, as a prior: a minute's two closes
 * standing in for its mean and the basis moving between the strike's window and the reading (the
 * basis itself cancels: the estimate and the spot are both the proxy's). v2 replaces it with the
 * error measured at window edges where its parameter file has one (venuePools.polymarket).
 */
export const STRIKE_ESTIMATE_SD = 0.0004

/**
 * The engine's own strike for a market whose venue states its settlement rule but has not published
 * the strike yet (Polymarket publishes its price to beat after the window, decisions §14): the
 * proxy's mean over the rule's averaging window before the open, with its variance. Never stored:
 * the contest's strike stays the venue's. Null for a venue without such a rule (Kalshi: no strike,
 * no reading) or when the proxy did not see that span.
 */
async function estimateStrike(
  deps: ReadingDeps,
  contest: Contest,
  rule: { averagingS: number } | undefined,
): Promise<{ dollars: number; variance: number; fromCloses: boolean } | null> {
  if (!rule) return null
  // the proxy is known by its minutes: a 60 s window is the minute before the open, a point price
  // the close at the open itself
  const spanMs = Math.round(rule.averagingS / 60) * MINUTE_MS
  const mean = await proxyMean(deps.feed, contest.opensAt - spanMs, contest.opensAt)
  if (mean === null || !(mean.dollars > 0)) return null
  return {
    dollars: mean.dollars,
    variance: STRIKE_ESTIMATE_SD * STRIKE_ESTIMATE_SD,
    fromCloses: spanMs > 0 && !mean.fromMeans,
  }
}

/** The proxy's mean over [from, to), from its minutes as every feed has them (spanMeanOfCloses). */
async function proxyMean(
  feed: PriceFeed,
  from: number,
  to: number,
): Promise<{ dollars: number; fromMeans: boolean } | null> {
  const closes = await feed.stampedClosesBefore(to, Math.ceil((to - from) / MINUTE_MS) + 1)
  return spanMeanOfCloses(closes, from, to)
}

/**
 * Basis samples of this contest's strike and the strikes of up to BASIS_CONTESTS contests of its
 * series before it that the venue still describes, each beside the proxy's mean over the minute
 * before its open.
 */
async function basisSamplesFor(deps: ReadingDeps, contest: Contest): Promise<BasisSample[]> {
  const out: BasisSample[] = []
  const span = contest.expiresAt - contest.opensAt
  for (let k = 0; k <= BASIS_CONTESTS; k++) {
    const opensAt = contest.opensAt - k * span
    const key = `${contest.series}@${opensAt}`
    let sample = deps.basisCache?.get(key) ?? null
    if (sample === null) {
      const strike =
        k === 0 ? contest.strikePriceDollars : await earlierStrike(deps.venue, contest.series, opensAt)
      if (strike !== null) {
        const mean = await proxyMean(deps.feed, opensAt - MINUTE_MS, opensAt)
        if (mean !== null)
          sample = {
            opensAt,
            strikeDollars: strike,
            proxyMeanDollars: mean.dollars,
            ...(mean.fromMeans ? {} : { fromCloses: true }),
          }
      }
      // only a sample is kept: a strike the venue publishes later (Polymarket's price to beat,
      // decisions §14) must be looked for again, not remembered as missing
      if (sample && deps.basisCache) {
        if (deps.basisCache.size > 4_096) deps.basisCache.clear()
        deps.basisCache.set(key, sample)
      }
    }
    if (sample) out.push(sample)
  }
  return out
}

/** The strike of the contest of `series` that opened at `opensAt`, as the venue still describes it. */
async function earlierStrike(venue: Venue, series: string, opensAt: number): Promise<number | null> {
  const market = await venue.marketOpenedAt(series, opensAt)
  return market && market.opensAt === opensAt ? market.strikePriceDollars : null
}
