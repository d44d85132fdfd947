// A 429 burst slows the whole client for that host (src/feeds/venue-http/host-backoff.ts): against
// the fixture Gamma answering 429 for a while, the adapter asks Gamma far less often than before,
// where each request once retried on its own while the polls went on and the client sped up.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { windowStartS } from '../src/feeds/polymarket/window-slug.ts'
import { makeGammaEvent } from './fixtures/polymarket-bodies.ts'
import { startPolymarketVenueWorld } from './support/polymarket-venue-world.ts'
import { waitFor } from './support/wait.ts'

const S = windowStartS(Date.now())
const SHIFT = S * 1000 + 7 * 60_000 - Date.now()

/** requests a second over the span of `list` (its first to its last) */
const rate = (list: Array<{ at: number }>) => (list.length - 1) / ((list.at(-1)!.at - list[0]!.at) / 1000)

describe('venue HTTP › one backoff per host', () => {
  it('asks a host answering 429 less often than before the burst, polls and all', async () => {
    const w = await startPolymarketVenueWorld({
      shiftMs: SHIFT,
      seed: (pm) => {
        for (const start of [S - 900, S, S + 900]) pm.putEvent(makeGammaEvent({ startS: start }))
      },
      // a poll a second (three slugs); retries quick on their own, as the defaults are against a
      // poll every few seconds
      venue: {
        pollMs: 1_000,
        backoff: { baseMs: 50, capMs: 2_000 },
        random: () => 0.5,
        gammaRequestsPerSec: 50,
      },
    })
    try {
      const gamma = () => w.requestsTo(/^\/gamma\//)
      const first = gamma().length
      await waitFor('10 requests to Gamma', () => (gamma().length >= first + 10 ? true : undefined))
      const before = gamma().slice(first)
      const burstFrom = gamma().length
      w.pm.failNext(1_000_000, 429, { path: /^\/gamma\// })
      await waitFor('8 answers of 429', () => (gamma().length >= burstFrom + 9 ? true : undefined))
      const during = gamma().slice(burstFrom + 1)
      w.pm.clearFaults()
      const [beforeRate, duringRate] = [rate(before), rate(during)]
      assert.ok(
        duringRate < beforeRate,
        `${duringRate.toFixed(1)} requests a second during the 429s against ${beforeRate.toFixed(1)} before`,
      )
      // the burst was the venue’s: every one of those requests was answered 429
      assert.ok(w.telemetry.requests.filter((r) => r.status === '429').length >= 8)
    } finally {
      await w.close()
    }
  })
})
