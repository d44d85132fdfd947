// The fit's data from training sandbox seeds: the seeds' own feed and venue, read as the engine reads
// them (sandbox-readings.ts). The settlement's basis is the proxy's per-second mean over the last
// minute against the venue's settlement price, both things a recording holds.
import { MINUTE_MS } from '../../src/domain/contest.ts'
import { parseSimParams } from '../../src/feeds/sim/sim-params-text.ts'
import { DAY_MS, forEachSandboxReading, type SandboxWorld, sandboxWorld } from '../sandbox-readings.ts'
import type { FitSource } from './fit-source.ts'

const WARMUP_DAYS = 1

async function settledBasis(
  world: SandboxWorld,
  ticker: string,
  expiresAt: number,
): Promise<{ realisedBasis: number; settledPriceDollars: number } | null> {
  const result = await world.venue.result(ticker, expiresAt + DAY_MS)
  if (result?.kind !== 'settled' || result.priceDollars === null) return null
  let sum = 0
  let n = 0
  for (let t = expiresAt - MINUTE_MS; t < expiresAt; t += 1000) {
    const p = await world.feed.spotAt(t)
    if (p !== null) {
      sum += p
      n++
    }
  }
  return n < 30
    ? null
    : { realisedBasis: sum / n - result.priceDollars, settledPriceDollars: result.priceDollars }
}

/**
 * `crowds`: SIM_PARAMS crowd presets given to the seeds in turn (seed i gets crowds[i mod n]), so the
 * pool is fitted on several ways a crowd can err rather than on the one it would otherwise copy.
 */
export function sandboxFitSource(
  seeds: readonly number[],
  from: number,
  days: number,
  crowds: readonly string[] = ['ewma'],
): FitSource {
  const until = from + days * DAY_MS
  const crowdOf = (i: number): string => crowds[i % crowds.length] as string
  const worldOf = (seed: number, i: number): SandboxWorld => {
    const params = parseSimParams(crowdOf(i))
    if (typeof params === 'string') throw new Error(params)
    return sandboxWorld(seed, params)
  }
  return {
    from,
    until,
    closesFrom: from,
    training: (readings) => ({
      source: 'sandbox',
      seeds: [...seeds],
      crowds: seeds.map((_, i) => crowdOf(i)),
      days,
      from: new Date(from).toISOString().slice(0, 10),
      readings,
    }),
    async closeRuns() {
      return Promise.all(
        seeds.map((seed, i) => worldOf(seed, i).feed.stampedClosesBefore(until, (days + WARMUP_DAYS) * 1440)),
      )
    },
    async forEachReading(each) {
      for (const [i, seed] of seeds.entries()) {
        const world = worldOf(seed, i)
        await forEachSandboxReading(world, { from, days }, async (r) => {
          const settled = r.minute === 14 ? await settledBasis(world, r.ticker, r.expiresAt) : null
          each({
            ...r,
            realisedBasis: settled?.realisedBasis ?? null,
            // measured every second: no ruler's noise to subtract
            realisedBasisNoise: settled ? 0 : null,
            settledPriceDollars: settled?.settledPriceDollars ?? null,
          })
        })
      }
    },
  }
}
