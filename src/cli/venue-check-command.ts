// `contest-signals venue check` (decisions §8): what the engine would follow right now — per series the
// market, its window, strike and best asks — and each spot source with the median, or one line saying
// what failed and a non-zero exit.
import type { Config } from '../config/config.ts'
import { createFeeds } from '../main/feeds.ts'
import { systemClock } from '../main/system-clock.ts'
import type { Logger } from '../ports/logger.ts'

export type VenueCheckOutput = { out: (line: string) => void; err: (line: string) => void }

const quiet: Logger = { info() {}, warn() {}, error() {}, debug() {} }

export async function runVenueCheck(
  config: Config,
  io: VenueCheckOutput = {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  },
): Promise<number> {
  // a check records nothing, whatever RECORD_DIR says
  const { venue, feed } = await createFeeds(
    { ...config, recordDir: null },
    { wallClock: systemClock, logger: quiet },
  )
  const failures: string[] = []
  try {
    // one poll of the venue and one round of the exchanges, each bounded by the adapters' own timeouts
    await Promise.all([venue.start(), feed.start()])
    const now = systemClock.now()
    const venueStatus = venue.status()
    const networked = config.venue !== 'sim'
    io.out(`venue ${venue.name}${networked ? ` ${config.kalshiBaseUrl}` : ''}`)
    if (networked && venueStatus.lastOkAt === null) failures.push(`venue ${venue.name} unreachable`)

    for (const series of config.series) {
      const market = await venue.marketAt(series, now)
      if (!market) {
        io.out(`  ${series}: no open market`)
        failures.push(`no open market for ${series}`)
        continue
      }
      const quote = await venue.quote(market.ticker, now)
      io.out(
        `  ${series}: ${market.ticker} ${market.phase} ${iso(market.opensAt)} → ${iso(market.expiresAt)}` +
          ` strike ${market.strikePriceDollars ?? 'not set'}` +
          ` asks up ${quote?.upAskCents ?? '—'}¢ down ${quote?.downAskCents ?? '—'}¢`,
      )
    }

    const spot = await feed.spotAt(now)
    io.out(`spot ${feed.name}`)
    for (const source of feed.sources()) {
      const age = source.midAt === null ? 'never' : `${((now - source.midAt) / 1000).toFixed(1)} s ago`
      const mid = source.midDollars === null ? '—' : source.midDollars.toFixed(2)
      io.out(`  ${source.name}: ${mid} (${age}${source.fresh ? '' : ', not fresh'})`)
    }
    io.out(`  median: ${spot === null ? '—' : spot.toFixed(2)}`)
    if (spot === null) failures.push('no fresh spot price')
  } finally {
    await Promise.all([venue.close(), feed.close()])
  }
  if (failures.length > 0) {
    io.err(`contest-signals: venue check failed: ${failures.join('; ')}`)
    return 1
  }
  return 0
}

function iso(ms: number): string {
  return new Date(ms).toISOString()
}
