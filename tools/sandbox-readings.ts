// The readings the engine would make on a sandbox seed, for fitting models: every contest of a span,
// minutes 1–14, each observed through the engine's own reading step at its boundary plus the
// backfill's stand-in latency, with the contest's result. Never the sandbox's hidden truth: a fit
// uses only what a recording of a real venue would also hold (decisions §15).

import { MINUTE_MS, type Side } from '../src/domain/contest.ts'
import type { ModelInputs } from '../src/domain/reading-model.ts'
import { QUARTER_MS } from '../src/domain/ticker.ts'
import { readingLatencyMs } from '../src/engine/backfill.ts'
import { liveContestFor } from '../src/engine/contest-steps.ts'
import {
  DEFAULT_READING_MAX_LATE_MS,
  FIRST_READING_MINUTE,
  LAST_READING_MINUTE,
  observeReadingInputs,
  type SkipReason,
} from '../src/engine/reading.ts'
import { SIM_PARAMS, type SimParams } from '../src/feeds/sim/sim-params.ts'
import { createSimPriceFeed } from '../src/feeds/sim/sim-price-feed.ts'
import { createSimVenue } from '../src/feeds/sim/sim-venue.ts'
import type { MarketPhase, PriceFeed, Venue, VenueQuote } from '../src/ports/venue.ts'
import { observerModel } from './fit/fit-source.ts'
import { measuredCrowdLags } from './measured-crowd-lags.ts'

export const SERIES = 'KXBTC15M'

/**
 * The held-out card's seeds and days (`model:card`): the default span of the tools that price the
 * card's readings in process (`model:floor`, `model:tails`), as parseArgs options.
 */
export const CARD_SPAN_OPTIONS = {
  seeds: { type: 'string', default: '2001,2002,2003' },
  from: { type: 'string', default: '2026-09-01' },
  days: { type: 'string', default: '30' },
} as const
export const DAY_MS = 86_400_000

export type SandboxReading = {
  ticker: string
  minute: number
  /** the reading's instant */
  at: number
  opensAt: number
  expiresAt: number
  inputs: ModelInputs
  quote: VenueQuote
  freshSources: number
  /** null when the contest was voided */
  settledSide: Side | null
  /** the market's phase at the reading's instant, as the venue says */
  phase: MarketPhase | null
}

export type SandboxWorld = { feed: PriceFeed; venue: Venue }

/** A seed's world; `params` picks its crowd (SIM_PARAMS), the defaults without. */
export function sandboxWorld(seed: number, params: SimParams = SIM_PARAMS): SandboxWorld {
  // the seed's feed and venue share one world without this module holding it: the fit sees what
  // the engine sees, never the sandbox's hidden state (test/fit-model-truth.test.ts)
  const feed = createSimPriceFeed({ seed, params })
  return { feed, venue: createSimVenue({ seed, params, feed, series: [SERIES] }) }
}

/**
 * Calls `each` with every reading of the contests opening in [from, from + days), in order, and
 * returns the skip counts. Readings are handed over one at a time so a month of day-long histories is
 * never held at once.
 */
export async function forEachSandboxReading(
  world: SandboxWorld,
  span: { from: number; days: number },
  each: (r: SandboxReading) => void | Promise<void>,
): Promise<{ contests: number; readings: number; skips: Partial<Record<SkipReason, number>> }> {
  const deps = {
    venue: world.venue,
    feed: world.feed,
    model: observerModel,
    maxLateMs: DEFAULT_READING_MAX_LATE_MS,
    basisCache: new Map(),
    crowdLags: measuredCrowdLags(),
  }
  const skips: Partial<Record<SkipReason, number>> = {}
  let contests = 0
  let readings = 0
  const end = span.from + span.days * DAY_MS
  for (let opensAt = span.from; opensAt < end; opensAt += QUARTER_MS) {
    const market = await world.venue.marketAt(SERIES, opensAt)
    if (!market || market.opensAt !== opensAt) continue
    contests++
    const contest = liveContestFor(market)
    const result = await world.venue.result(market.ticker, market.expiresAt + DAY_MS)
    const settledSide = result && result.kind === 'settled' ? result.side : null
    for (let minute = FIRST_READING_MINUTE; minute <= LAST_READING_MINUTE; minute++) {
      const at = opensAt + minute * MINUTE_MS + readingLatencyMs(market.ticker, minute)
      const observed = await observeReadingInputs(deps, contest, minute, at)
      if ('skipped' in observed) {
        skips[observed.skipped] = (skips[observed.skipped] ?? 0) + 1
        continue
      }
      readings++
      const phase = (await world.venue.market(market.ticker, at))?.phase ?? null
      await each({
        phase,
        ticker: market.ticker,
        minute,
        at,
        opensAt,
        expiresAt: market.expiresAt,
        inputs: observed.model,
        quote: observed.quote,
        freshSources: observed.freshSources,
        settledSide,
      })
    }
  }
  return { contests, readings, skips }
}
