// What the engine can price on Polymarket (decisions §8, §14): the 15-minute bitcoin Up/Down family
// alone, series prefix `btc-updown-15m`. Anything else (`btc-updown-5m`: another window; `eth-…`: ether
// priced off the bitcoin spot) is refused at start with one line. The current window's event is then
// read once, so a venue that cannot be reached, or that describes the window otherwise than this
// adapter expects (another rule, asset or duration), is told at start rather than found out later.
import type { Clock } from '../../ports/clock.ts'
import type { Logger } from '../../ports/logger.ts'
import type { SeriesCheck } from '../../ports/venue.ts'
import { describeFailure } from '../venue-http/json-client.ts'
import { lookUpEvent } from './event-lookup.ts'
import { parseGammaEvent } from './gamma-event.ts'
import { createPolymarketClients } from './polymarket-client.ts'
import { POLYMARKET_BTC_15M, slugsAround } from './window-slug.ts'

/** One line per configured series this adapter cannot price; empty when all can. */
export function unpriceableSeries(series: readonly string[]): string[] {
  return series
    .filter((s) => s !== POLYMARKET_BTC_15M)
    .map(
      (s) =>
        `SERIES=${s} cannot be priced on Polymarket: only ${POLYMARKET_BTC_15M} (bitcoin, 15-minute windows) is supported`,
    )
}

export type PolymarketSeriesCheckOptions = {
  gammaUrl: string
  clobUrl: string
  series: readonly string[]
  clock: Clock
  logger: Logger
  /** per attempt; default 5 s */
  timeoutMs?: number
}

export async function checkPolymarketSeries(opts: PolymarketSeriesCheckOptions): Promise<SeriesCheck> {
  const problems = unpriceableSeries(opts.series)
  if (problems.length > 0) return { kind: 'refused', problems }
  const { gamma } = createPolymarketClients({
    gammaUrl: opts.gammaUrl,
    clobUrl: opts.clobUrl,
    clock: opts.clock,
    logger: opts.logger,
    maxAttempts: 2,
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
  })
  const { current } = slugsAround(opts.clock.now())
  const found = await lookUpEvent(gamma, current, false)
  if (found.kind === 'failed')
    return { kind: 'unreachable', failure: describeFailure(found.status, found.message) }
  // a window not created yet says nothing against the series: the engine waits for it
  if (found.kind === 'absent') return { kind: 'ok' }
  const parsed = parseGammaEvent(found.raw, current)
  if (!parsed.ok && /^(cryptoMarketConfig|resolutionSource)/.test(parsed.field))
    return {
      kind: 'refused',
      problems: [
        `SERIES=${POLYMARKET_BTC_15M} cannot be priced: the venue describes ${current} with a rule this adapter does not know (${parsed.field})`,
      ],
    }
  return { kind: 'ok' }
}
