// `contest-signals venue check` (decisions §8, §14): what the engine would follow right now — for each
// configured venue, per series the market, its window, strike and best asks — and each spot source,
// then the spot and what it is (the fresh exchanges' median, or BRTI itself with a Kalshi key); or,
// on any failure, exactly one line naming each cause as the venue gave it (HTTP status and the first
// words of its body: a 451 from a geo-block, a 401, a 429, a refused connection) and a non-zero exit.
import type { Config } from '../config/config.ts'
import { ConfigError, usesSimulator } from '../config/config.ts'
import { createFeeds, type Feeds, type FeedVenue } from '../main/feeds.ts'
import { peekSimWorld, type SimWorldIdentity } from '../main/sim-timeline.ts'
import { storeLocation } from '../main/store-location.ts'
import { systemClock } from '../main/system-clock.ts'
import { venueKind } from '../main/venue-kinds.ts'
import type { Logger } from '../ports/logger.ts'
import { NO_ANSWER, type SpotObservation } from '../ports/venue.ts'
import { openCommandStore } from './command-store.ts'

export type VenueCheckOutput = { out: (line: string) => void; err: (line: string) => void }

const quiet: Logger = { info() {}, warn() {}, error() {}, debug() {} }

/** A 451 is a hosting fault, not an outage: say what to do about it (venue facts §1.12). */
function hintFor(failure: string): string {
  return failure.startsWith('HTTP 451')
    ? ' (the venue refuses this region: run from one it serves, e.g. a US host)'
    : ''
}

export async function runVenueCheck(
  config: Config,
  io: VenueCheckOutput = {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  },
): Promise<number> {
  const fail = (cause: string): number => {
    io.err(`contest-signals: venue check failed: ${cause}`)
    return 1
  }
  let feeds: Feeds
  try {
    // a check records nothing, whatever RECORD_DIR says
    const sim = usesSimulator(config) ? { sim: await sandboxToCheck(config) } : {}
    feeds = await createFeeds(
      { ...config, recordDir: null },
      { wallClock: systemClock, logger: quiet, ...sim },
    )
  } catch (err) {
    if (err instanceof ConfigError) return fail(err.problems.join('; '))
    throw err
  }
  const { venue, venues, feed } = feeds
  const label = (v: FeedVenue) => `venue ${v.venue.name}${v.baseUrl === null ? '' : ` at ${v.baseUrl}`}`
  // each configured venue is checked (decisions §14); any failure fails the check, in one line
  const unreachable = venues
    .filter((v) => v.seriesCheck?.kind === 'unreachable')
    .map((v) => {
      const failure = v.seriesCheck?.kind === 'unreachable' ? v.seriesCheck.failure : ''
      return `${label(v)} unreachable: ${failure}${hintFor(failure)}`
    })
  if (unreachable.length > 0) return fail(unreachable.join('; '))

  // printed only when everything answered: a failure is one line, not a report with a line at the end
  const lines: string[] = []
  const failures: string[] = []
  try {
    // one poll of each venue and one round of the exchanges, each bounded by the adapters' own timeouts
    await Promise.all([venue.start(), feed.start()])
    const now = systemClock.now()
    for (const v of venues) {
      const status = v.venue.status()
      lines.push(label(v))
      if (v.baseUrl !== null && status.lastOkAt === null) {
        const failure = status.failure ?? 'no answer'
        failures.push(`${label(v)} unreachable: ${failure}${hintFor(failure)}`)
        continue
      }
      if (v.series.some((series) => v.venue.tradingPaused(now, series)))
        lines.push('  trading paused by the exchange')
      for (const series of v.series) {
        const market = await v.venue.marketAt(series, now)
        if (!market) {
          failures.push(`no open market for ${series}`)
          continue
        }
        const quote = await v.venue.quote(market.ticker, now)
        // a book the venue refused or garbled is a failure, named as the venue gave it (decisions §8);
        // while the venue pauses trading (a Polymarket restart answers 425) no book is expected
        const paused = v.venue.tradingPaused(systemClock.now(), series)
        if (quote === NO_ANSWER && !paused) {
          const failure = v.venue.status().quoteFailure ?? 'no answer'
          failures.push(
            `${label(v)} order book of ${market.ticker} unreachable: ${failure}${hintFor(failure)}`,
          )
        }
        lines.push(
          `  ${series}: ${market.ticker} ${market.phase} ${iso(market.opensAt)} → ${iso(market.expiresAt)}` +
            ` strike ${market.strikePriceDollars ?? noStrike(v.name)}` +
            (quote === NO_ANSWER
              ? ` book: no answer${paused ? ' (trading paused)' : ''}`
              : ` asks up ${quote?.upAskCents ?? '—'}¢ down ${quote?.downAskCents ?? '—'}¢`),
        )
      }
    }

    const spot = await feed.observeSpot(now)
    // ages from the instant the sources are read: a price that came in while the venue answered is
    // newer than `now`, and was shown as "-0.1 s ago"
    const readAt = systemClock.now()
    lines.push('spot sources')
    for (const source of feed.sources()) {
      const age =
        source.midAt === null ? 'never' : `${(Math.max(0, readAt - source.midAt) / 1000).toFixed(1)} s ago`
      const mid = source.midDollars === null ? '—' : source.midDollars.toFixed(2)
      const notes = [
        ...(source.lagMs != null ? [`exchange time ${(source.lagMs / 1000).toFixed(1)} s behind`] : []),
        ...(source.maintenance ? ['in maintenance'] : []),
        ...(source.fresh ? [] : ['not fresh']),
      ]
      lines.push(`  ${source.name}: ${mid} (${[age, ...notes].join(', ')})`)
    }
    lines.push(`  spot: ${spotLine(spot)}`)
    if (spot === null) failures.push('fewer than 2 fresh spot sources')
  } finally {
    await Promise.all([venue.close(), feed.close()])
  }
  if (failures.length > 0) return fail(failures.join('; '))
  for (const line of lines) io.out(line)
  return 0
}

/**
 * The model's spot and what it is: the settlement index itself while its prints are fresh (BRTI,
 * with a Kalshi key), else the median of the fresh exchanges (decisions §8).
 */
function spotLine(spot: SpotObservation | null): string {
  if (spot === null) return '— (fewer than 2 fresh sources)'
  const what =
    spot.index !== undefined
      ? `${spot.index}, the settlement index`
      : `median of ${spot.freshSources} fresh exchanges`
  return `${spot.priceDollars.toFixed(2)} (${what})`
}

/**
 * Under the simulator, the sandbox the engine would run on: the store's timeline's, read without
 * fixing it (a look is no first start), or the one SIM_SEED and SIM_PARAMS name when the store has
 * none yet; no SQLite file is created for it.
 */
async function sandboxToCheck(config: Config): Promise<SimWorldIdentity> {
  const location = storeLocation(config.databaseUrl)
  if (location.kind === 'sqlite' && !location.exists)
    return peekSimWorld({ getSetting: async () => null }, config)
  const { store } = await openCommandStore(config, { mustExist: true })
  try {
    return await peekSimWorld(store, config)
  } finally {
    await store.close()
  }
}

/** A contest's strike before the venue sets it, in its own words. */
function noStrike(venue: string): string {
  return venueKind(venue)?.strikeUnset ?? 'not set'
}

function iso(ms: number): string {
  return new Date(ms).toISOString()
}
