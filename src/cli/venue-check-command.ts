// `contest-signals venue check` (decisions §8): what the engine would follow right now — per series the
// market, its window, strike and best asks — and each spot source with the median; or, on failure,
// exactly one line naming the cause as the venue gave it (HTTP status and the first words of its
// body: a 451 from a geo-block, a 401, a 429, a refused connection) and a non-zero exit.
import type { Config } from '../config/config.ts'
import { ConfigError } from '../config/config.ts'
import { createFeeds, type Feeds } from '../main/feeds.ts'
import { systemClock } from '../main/system-clock.ts'
import type { Logger } from '../ports/logger.ts'

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
    feeds = await createFeeds({ ...config, recordDir: null }, { wallClock: systemClock, logger: quiet })
  } catch (err) {
    if (err instanceof ConfigError) return fail(err.problems.join('; '))
    throw err
  }
  const { venue, feed, seriesCheck } = feeds
  const baseUrl = config.venue === 'polymarket' ? config.polymarketGammaUrl : config.kalshiBaseUrl
  const venueName = `venue ${venue.name}${config.venue === 'sim' ? '' : ` at ${baseUrl}`}`
  // Polymarket publishes its price to beat only after the window (reference §3.3.3)
  const noStrike = config.venue === 'polymarket' ? 'not yet published' : 'not set'
  if (seriesCheck?.kind === 'unreachable')
    return fail(`${venueName} unreachable: ${seriesCheck.failure}${hintFor(seriesCheck.failure)}`)

  // printed only when everything answered: a failure is one line, not a report with a line at the end
  const lines: string[] = []
  const failures: string[] = []
  try {
    // one poll of the venue and one round of the exchanges, each bounded by the adapters' own timeouts
    await Promise.all([venue.start(), feed.start()])
    const now = systemClock.now()
    const venueStatus = venue.status()
    lines.push(venueName)
    if (config.venue !== 'sim' && venueStatus.lastOkAt === null) {
      const failure = venueStatus.failure ?? 'no answer'
      return fail(`${venueName} unreachable: ${failure}${hintFor(failure)}`)
    }
    if (venue.tradingPaused?.(now)) lines.push('  trading paused by the exchange')

    for (const series of config.series) {
      const market = await venue.marketAt(series, now)
      if (!market) {
        failures.push(`no open market for ${series}`)
        continue
      }
      const quote = await venue.quote(market.ticker, now)
      lines.push(
        `  ${series}: ${market.ticker} ${market.phase} ${iso(market.opensAt)} → ${iso(market.expiresAt)}` +
          ` strike ${market.strikePriceDollars ?? noStrike}` +
          ` asks up ${quote?.upAskCents ?? '—'}¢ down ${quote?.downAskCents ?? '—'}¢`,
      )
    }

    const spot = await feed.spotAt(now)
    lines.push(`spot ${feed.name}`)
    for (const source of feed.sources()) {
      const age = source.midAt === null ? 'never' : `${((now - source.midAt) / 1000).toFixed(1)} s ago`
      const mid = source.midDollars === null ? '—' : source.midDollars.toFixed(2)
      const notes = [
        ...(source.lagMs != null ? [`exchange time ${(source.lagMs / 1000).toFixed(1)} s behind`] : []),
        ...(source.maintenance ? ['in maintenance'] : []),
        ...(source.fresh ? [] : ['not fresh']),
      ]
      lines.push(`  ${source.name}: ${mid} (${[age, ...notes].join(', ')})`)
    }
    lines.push(`  median: ${spot === null ? '—' : spot.toFixed(2)}`)
    if (spot === null) failures.push('fewer than 2 fresh spot sources')
  } finally {
    await Promise.all([venue.close(), feed.close()])
  }
  if (failures.length > 0) return fail(failures.join('; '))
  for (const line of lines) io.out(line)
  return 0
}

function iso(ms: number): string {
  return new Date(ms).toISOString()
}
