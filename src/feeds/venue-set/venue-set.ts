// Several venues behind the one Venue port (decisions §14): each series belongs to one venue, and
// every call goes to the venue that owns the series or ticker it names, so the engine follows
// Kalshi and Polymarket at once without knowing there are two. No I/O of its own: it only routes.
import type { QuoteAnswer, SourceStatus, Venue, VenueMarket } from '../../ports/venue.ts'

export type VenueMember = { venue: Venue; series: readonly string[] }

/**
 * One venue made of `members`, each with the series it follows (no series on two members). A ticker
 * is routed to the member owning the longest series it starts with (`KXBTC15M-26SEP251515-15` to
 * the venue of `KXBTC15M`, `btc-updown-15m-1790362800` to that of `btc-updown-15m`): tickers are
 * opaque to clients, but each venue issues them under its series, and routing needs no memory, so a
 * contest left unsettled across a restart still finds its venue.
 */
export function createVenueSet(members: readonly VenueMember[]): Venue {
  if (members.length === 0) throw new Error('a venue set needs at least one venue')
  const bySeries = new Map<string, Venue>()
  for (const { venue, series } of members)
    for (const s of series) {
      if (bySeries.has(s)) throw new Error(`series ${s} is on two venues`)
      bySeries.set(s, venue)
    }
  // longest first, so a series that extends another's name still wins its own tickers
  const prefixes = [...bySeries.keys()].sort((a, b) => b.length - a.length)
  const ownerOfTicker = (ticker: string): Venue | null => {
    const series = prefixes.find((s) => ticker === s || ticker.startsWith(`${s}-`))
    return series === undefined ? null : bySeries.get(series)!
  }
  const venues = members.map((m) => m.venue)

  return {
    name: venues.map((v) => v.name).join('+'),
    supportsHistory: venues.every((v) => v.supportsHistory),
    async marketAt(series: string, at: number): Promise<VenueMarket | null> {
      return (await bySeries.get(series)?.marketAt(series, at)) ?? null
    },
    // an earlier contest's strike (the basis, decisions §11): dropping it here made live readings
    // differ from a replay of their own tape, which asks the tape venue directly
    async marketOpenedAt(series: string, opensAt: number): Promise<VenueMarket | null> {
      return (await bySeries.get(series)?.marketOpenedAt(series, opensAt)) ?? null
    },
    async market(ticker: string, at: number): Promise<VenueMarket | null> {
      return (await ownerOfTicker(ticker)?.market(ticker, at)) ?? null
    },
    async quote(ticker: string, at: number): Promise<QuoteAnswer> {
      return (await ownerOfTicker(ticker)?.quote(ticker, at)) ?? null
    },
    async result(ticker: string, at: number) {
      return (await ownerOfTicker(ticker)?.result(ticker, at)) ?? null
    },
    // a pause is the paused venue's alone: Kalshi's weekly maintenance stops no Polymarket reading
    tradingPaused(at: number, series: string): boolean {
      return bySeries.get(series)?.tradingPaused(at, series) ?? false
    },
    status: () => combinedStatus(venues.map((v) => v.status())),
    statuses: () => venues.map((v) => v.status()),
    async start() {
      await Promise.all(venues.map((v) => v.start()))
    },
    async close() {
      // every venue is closed even when one fails to; the first failure is then reported
      const closed = await Promise.allSettled(venues.map((v) => v.close()))
      const failed = closed.find((c) => c.status === 'rejected')
      if (failed) throw failed.reason
    },
  }
}

/**
 * The set's one status, for callers that want a single line: down when any venue is, and otherwise
 * what the first venue that is not ok says. Health and metrics read `statuses()`, venue by venue.
 */
function combinedStatus(all: readonly SourceStatus[]): SourceStatus {
  const first = all.find((s) => s.state === 'down' || (s.check ?? 'ok') !== 'ok') ?? all[0]!
  const lastOks = all.map((s) => s.lastOkAt)
  return {
    ...first,
    name: all.map((s) => s.name).join('+'),
    state: all.some((s) => s.state === 'down') ? 'down' : 'ok',
    lastOkAt: lastOks.includes(null) ? null : Math.min(...(lastOks as number[])),
  }
}
