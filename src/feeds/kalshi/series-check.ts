// What the engine can price (decisions §8): a series whose underlying is bitcoin (the spot feed's and
// the model's), settled over a 15-minute window, with one `greater_or_equal` market per event. Any
// other series (`KXETH15M`: ether priced off the bitcoin spot; `KXBTCD`: a ladder of strikes) would
// publish nonsense, so it is refused at start, with the reason in one line.
import type { Clock } from '../../ports/clock.ts'
import type { Logger } from '../../ports/logger.ts'
import type { SeriesCheck } from '../../ports/venue.ts'
import { createKalshiClient, describeFailure } from './kalshi-client.ts'
import { parseMarket } from './market.ts'
import { closeWindowQuery, listMarkets } from './market-listing.ts'
import type { KalshiCredentials } from './request-signing.ts'
import { createRequestSigner } from './request-signing.ts'

const FIFTEEN_MINUTES_MS = 15 * 60_000
const BITCOIN = /\bbitcoin\b|\bbtc\b|\bxbt\b/i

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * Why `series` cannot be priced, or null when it can. `seriesBody` is `GET /series/{ticker}`'s
 * answer, `markets` the raw markets of its current close window (venue facts §1.3, §1.14).
 */
export function whyUnpriceable(seriesBody: unknown, markets: readonly unknown[]): string | null {
  const series = isRecord(seriesBody) && isRecord(seriesBody.series) ? seriesBody.series : null
  if (!series) return 'the venue answered no series object'
  const title = typeof series.title === 'string' ? series.title : ''
  const tags = Array.isArray(series.tags) ? series.tags.filter((t) => typeof t === 'string') : []
  if (!BITCOIN.test(title) && !tags.some((t) => BITCOIN.test(t)))
    return `its underlying is not bitcoin (the venue calls it ${JSON.stringify(title)}${tags.length > 0 ? `, tagged ${tags.join(', ')}` : ''})`
  const frequency = series.frequency
  if (frequency !== 'fifteen_min')
    return `its windows are not 15 minutes (frequency ${JSON.stringify(frequency ?? null)})`
  const perEvent = new Map<string, number>()
  // the venue may close a market early or move its close (decisions §8), so one market of another
  // length says nothing about the series; markets none of which runs 15 minutes do
  let otherLength: string | null = null
  let fifteenMinutes = false
  for (const raw of markets) {
    const parsed = parseMarket(raw)
    if (!parsed.ok) continue
    const m = parsed.market
    if (m.closeTime - m.openTime === FIFTEEN_MINUTES_MS) fifteenMinutes = true
    else otherLength ??= `its market ${m.ticker} runs ${(m.closeTime - m.openTime) / 60_000} minutes, not 15`
    if (m.strikeType !== null && m.strikeType !== 'greater_or_equal')
      return `its market ${m.ticker} is not an up/down market (strike_type ${m.strikeType}, not greater_or_equal)`
    const event = m.eventTicker ?? m.ticker
    perEvent.set(event, (perEvent.get(event) ?? 0) + 1)
  }
  for (const [event, count] of perEvent)
    if (count > 1) return `its event ${event} lists ${count} markets (a ladder of strikes), not one`
  return fifteenMinutes ? null : otherLength
}

export type { SeriesCheck }

export type SeriesCheckOptions = {
  baseUrl: string
  series: readonly string[]
  clock: Clock
  logger: Logger
  credentials?: KalshiCredentials
  /** per attempt; default 5 s */
  timeoutMs?: number
}

/** Asks the venue about each series (its metadata and its current close window) and judges it. */
export async function checkKalshiSeries(opts: SeriesCheckOptions): Promise<SeriesCheck> {
  const client = createKalshiClient({
    baseUrl: opts.baseUrl,
    clock: opts.clock,
    logger: opts.logger,
    signer: opts.credentials ? createRequestSigner(opts.credentials) : undefined,
    timeoutMs: opts.timeoutMs,
    maxAttempts: 2,
    // a one-off burst of two requests per series at start: well inside the venue's budget
    maxRequestsPerSec: 10,
  })
  const problems: string[] = []
  for (const ticker of opts.series) {
    const reply = await client.get('series', `/series/${encodeURIComponent(ticker)}`)
    if (!reply.ok) {
      if (reply.status === '404') {
        problems.push(`SERIES=${ticker}: the venue has no such series`)
        continue
      }
      return { kind: 'unreachable', failure: describeFailure(reply.status, reply.message) }
    }
    const listing = await listMarkets(client, closeWindowQuery(ticker, opts.clock.now()))
    if (!listing.ok) return { kind: 'unreachable', failure: describeFailure(listing.status, listing.message) }
    if (listing.cutShort !== null)
      opts.logger.warn(
        { venue: 'kalshi', series: ticker, ...listing.cutShort },
        'kalshi listing cut short; stopping there',
      )
    const why = whyUnpriceable(reply.body, listing.markets)
    if (why !== null) problems.push(`SERIES=${ticker} cannot be priced: ${why}`)
  }
  return problems.length > 0 ? { kind: 'refused', problems } : { kind: 'ok' }
}
