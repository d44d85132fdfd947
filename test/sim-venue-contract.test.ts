// The venue contract (test/venue-contract.ts) on the simulator: its seeded world decides everything,
// so each step of the story is an instant of that world (the contest's window, its close, the
// instant its result is published, its weekly pause) rather than a change made to it.
import { sideForPrice } from '../src/domain/contest.ts'
import { createSimVenue } from '../src/feeds/sim/sim-venue.ts'
import { sharedSimWorld } from '../src/feeds/sim/sim-world.ts'
import { isTradingPaused, pauseEndsAt } from '../src/feeds/sim/weekly-pause.ts'
import { venueContract } from './venue-contract.ts'

const SEED = 20_261_120
const SERIES = 'KXBTC15M'
const QUARTER = 900_000
const world = sharedSimWorld(SEED)

/** The first contest from `from` on that is neither voided nor touched by the weekly pause. */
function ordinaryContest(from: number) {
  for (let expiresAt = Math.ceil(from / QUARTER) * QUARTER; ; expiresAt += QUARTER) {
    const c = world.contest(SERIES, expiresAt)
    const paused = [c.opensAt, c.expiresAt - 1, c.decidedAt].some((t) =>
      isTradingPaused(world.params.pause, t),
    )
    if (!c.voided && !paused) return c
  }
}

venueContract({
  name: 'the simulator',
  can: ['earlier', 'pause'],
  async start() {
    const c = ordinaryContest(Date.UTC(2026, 10, 18, 12))
    const earlier = world.contest(SERIES, c.opensAt)
    const venue = createSimVenue({ seed: SEED, series: [SERIES], world })
    let pausedAt = c.expiresAt
    while (!isTradingPaused(world.params.pause, pausedAt)) pausedAt += QUARTER
    return {
      venue,
      series: SERIES,
      ticker: c.ticker,
      opensAt: c.opensAt,
      expiresAt: c.expiresAt,
      strike: c.strikeCents / 100,
      earlier: { opensAt: earlier.opensAt, strike: earlier.strikeCents / 100 },
      live: async () => ({ at: c.opensAt + 7 * 60_000, asks: null }),
      expire: async () => c.expiresAt,
      settle: async () => ({
        at: c.decidedAt,
        side: sideForPrice(c.settlementCents / 100, c.strikeCents / 100),
      }),
      contradict: async () => c.decidedAt + 86_400_000,
      pause: async () => pausedAt,
      resume: async () => pauseEndsAt(world.params.pause, pausedAt) + 60_000,
      close: () => venue.close(),
    }
  },
})
