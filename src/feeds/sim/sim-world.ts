// One seeded sandbox (decisions §3): the index, the exchanges, the crowd and the venue's markets as
// Kalshi would present them (Market objects, `orderbook_fp` bodies, the exchange status). The venue
// port, the price feed, the tape writer and the test oracle all read the same world, so a seed fixes
// everything; only the oracle looks at the hidden state.
import { formatTicker, parseTicker, QUARTER_MS } from '../../domain/ticker.ts'
import { type Crowd, type CrowdBook, type CrowdContest, createCrowd } from './crowd.ts'
import { createExchangeSources, type ExchangeSources } from './exchange-sources.ts'
import { createIndexPath, type IndexPath } from './index-path.ts'
import { createSeededRandom, hashString } from './seeded-random.ts'
import { resolvesYes, sixtySecondMeanCents } from './settlement-rule.ts'
import { SIM_PARAMS, type SimParams } from './sim-params.ts'
import { isTradingPaused, pauseEndsAt } from './weekly-pause.ts'

const S_SETTLE_DELAY = 401
const S_VOID = 402
const S_MISSING_VALUE = 403

/** One window of one series, as the sandbox knows it. */
export type SimContest = CrowdContest & {
  ticker: string
  series: string
  /** the settlement value (the mean before the close), integer cents */
  settlementCents: number
  /** when the venue publishes its result */
  decidedAt: number
  voided: boolean
  valueMissing: boolean
}

export type SimWorld = {
  readonly seed: number
  readonly params: SimParams
  readonly index: IndexPath
  readonly sources: ExchangeSources
  readonly crowd: Crowd
  /** the rounded mean of the index prints in the minute before `endMs`, integer cents */
  meanBeforeCents(endMs: number): number
  /** the window of `series` closing at `expiresAt` (a quarter hour) */
  contest(series: string, expiresAt: number): SimContest
  /** the window of a ticker this sandbox issues, else null */
  contestOf(ticker: string): SimContest | null
  tradingActive(at: number): boolean
  /** the book at `at` (empty outside trading and during the pause) */
  book(contest: SimContest, at: number): CrowdBook
  /** `GET /markets/{ticker}`'s `market` object at `at` (venue facts §1.5, §2.8) */
  marketBody(contest: SimContest, at: number): Record<string, unknown>
  /** `GET /markets/{ticker}/orderbook`'s body at `at` (venue facts §1.8) */
  orderbookBody(
    contest: SimContest,
    at: number,
  ): { orderbook_fp: { yes_dollars: string[][]; no_dollars: string[][] } }
  /** `GET /exchange/status`'s body at `at` (venue facts §1.13) */
  exchangeStatusBody(at: number): Record<string, unknown>
}

const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z')
const dollars4 = (millionths: number): string => (millionths / 1_000_000).toFixed(4)
const count2 = (hundredths: number): string => (hundredths / 100).toFixed(2)
const centsText = (cents: number): string => (cents / 100).toFixed(2)
const withThousands = (cents: number): string => {
  const [whole, fraction] = centsText(cents).split('.') as [string, string]
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${fraction}`
}

export function createSimWorld(seed: number, params: SimParams = SIM_PARAMS): SimWorld {
  const rnd = createSeededRandom(seed)
  const index = createIndexPath(seed, params)
  const sources = createExchangeSources(seed, params, index)
  const crowd = createCrowd(rnd, index)
  const meanBeforeCents = (endMs: number): number => sixtySecondMeanCents(index.printCents, endMs)
  const s = params.settlement

  const contests = new Map<string, SimContest>()
  const contest = (series: string, expiresAt: number): SimContest => {
    const ticker = formatTicker(series, expiresAt)
    const hit = contests.get(ticker)
    if (hit) return hit
    const key = hashString(ticker)
    const [lo, hi] = s.delaySeconds
    const made: SimContest = {
      ticker,
      series,
      key,
      opensAt: expiresAt - QUARTER_MS,
      expiresAt,
      strikeCents: meanBeforeCents(expiresAt - QUARTER_MS),
      settlementCents: meanBeforeCents(expiresAt),
      decidedAt: expiresAt + 1000 * (lo + Math.floor((hi - lo + 1) * rnd.uniform(S_SETTLE_DELAY, key))),
      voided: rnd.uniform(S_VOID, key) < s.voidRate,
      valueMissing: rnd.uniform(S_MISSING_VALUE, key) < s.missingValueRate,
    }
    if (contests.size >= 5_000) contests.delete(contests.keys().next().value as string)
    contests.set(ticker, made)
    return made
  }

  const tradingActive = (at: number): boolean => !isTradingPaused(params.pause, at)
  const book = (c: SimContest, at: number): CrowdBook =>
    at < c.opensAt || at >= c.expiresAt || !tradingActive(at) ? { yes: [], no: [] } : crowd.book(c, at)

  return {
    seed,
    params,
    index,
    sources,
    crowd,
    meanBeforeCents,
    contest,
    contestOf(ticker) {
      const known = contests.get(ticker)
      if (known) return known
      const parsed = parseTicker(ticker)
      return parsed && parsed.expiresAt % QUARTER_MS === 0 ? contest(parsed.series, parsed.expiresAt) : null
    },
    tradingActive,
    book,
    marketBody(c, at) {
      const open = at >= c.opensAt
      const status = !open
        ? 'initialized'
        : at < c.expiresAt
          ? 'active'
          : at < c.decidedAt
            ? 'closed'
            : 'finalized'
      const decided = status === 'finalized'
      const top = book(c, at)
      const bestYes = top.yes.at(-1)
      const bestNo = top.no.at(-1)
      // a void is the venue's own word, a final result that is neither yes nor no (here `scalar`); an
      // empty result at a final status is a half-written record, waited on (decisions §8)
      const result = !decided
        ? ''
        : c.voided
          ? 'scalar'
          : resolvesYes(c.settlementCents, c.strikeCents)
            ? 'yes'
            : 'no'
      return {
        ticker: c.ticker,
        event_ticker: c.ticker.slice(0, c.ticker.lastIndexOf('-')),
        market_type: 'binary',
        title: 'BTC price up in next 15 mins?',
        yes_sub_title: open ? `Target Price: $${withThousands(c.strikeCents)}` : 'Target price: TBD',
        no_sub_title: 'Target price: TBD',
        status,
        open_time: iso(c.opensAt),
        close_time: iso(c.expiresAt),
        settlement_timer_seconds: 1,
        strike_type: 'greater_or_equal',
        ...(open ? { floor_strike: c.strikeCents / 100 } : {}),
        custom_strike: { round_digits: '2' },
        yes_bid_dollars: dollars4(bestYes ? bestYes[0] : 0),
        yes_bid_size_fp: count2(bestYes ? bestYes[1] : 0),
        yes_ask_dollars: dollars4(bestNo ? 1_000_000 - bestNo[0] : 1_000_000),
        yes_ask_size_fp: count2(bestNo ? bestNo[1] : 0),
        no_bid_dollars: dollars4(bestNo ? bestNo[0] : 0),
        no_ask_dollars: dollars4(bestYes ? 1_000_000 - bestYes[0] : 1_000_000),
        result,
        expiration_value: decided && !c.voided && !c.valueMissing ? centsText(c.settlementCents) : '',
        ...(decided ? { settlement_ts: iso(c.decidedAt) } : {}),
        price_level_structure: 'tapered_deci_cent',
        price_ranges: [
          { start: '0.0000', end: '0.1000', step: '0.0010' },
          { start: '0.1000', end: '0.9000', step: '0.0100' },
          { start: '0.9000', end: '1.0000', step: '0.0010' },
        ],
      }
    },
    orderbookBody(c, at) {
      const b = book(c, at)
      const levels = (side: [number, number][]): string[][] => side.map(([p, n]) => [dollars4(p), count2(n)])
      return { orderbook_fp: { yes_dollars: levels(b.yes), no_dollars: levels(b.no) } }
    },
    exchangeStatusBody(at) {
      return tradingActive(at)
        ? { exchange_active: true, trading_active: true }
        : {
            exchange_active: true,
            trading_active: false,
            exchange_estimated_resume_time: iso(pauseEndsAt(params.pause, at)),
          }
    },
  }
}

// Worlds by seed and parameters, shared by the feed and the venue of one seed (and by every
// process-local user of that seed), so the index is generated once.
const shared = new Map<string, SimWorld>()
export function sharedSimWorld(seed: number, params: SimParams = SIM_PARAMS): SimWorld {
  const key = params === SIM_PARAMS ? String(seed) : `${seed}:${JSON.stringify(params)}`
  let world = shared.get(key)
  if (!world) {
    world = createSimWorld(seed, params)
    if (shared.size >= 8) shared.delete(shared.keys().next().value as string)
    shared.set(key, world)
  }
  return world
}
