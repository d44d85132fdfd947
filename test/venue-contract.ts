// The contract every venue adapter keeps (issue 30: one suite for Kalshi live, Polymarket live, the
// simulator, the tape venue on each venue's book and the venue set), as the engine relies on it through the Venue port:
// a contest's lifecycle (open → live → expired → settled or void), its quotes, its result and the
// rule that a result once given is never taken back, the exchange's pause, the earlier contest's
// strike (marketOpenedAt, the basis of decisions §11), and faults (a book that never comes, a body
// that does not parse) answered as "nothing to read" rather than an error.
//
// Each adapter's test file gives a world that drives its venue through the same story: the world
// changes what the venue shows (a fixture, a tape, the simulator's clock) and hands back the instant
// to ask at; the contract asks only through the port. A capability the venue does not have (a
// simulator cannot be made to time out) is left out of the world, and its test is not registered.

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Side } from '../src/domain/contest.ts'
import type { Venue, VenueMarket } from '../src/ports/venue.ts'
import { NO_ANSWER } from '../src/ports/venue.ts'

export type ContractWorld = {
  venue: Venue
  series: string
  /** the followed contest as the venue lists it */
  ticker: string
  opensAt: number
  expiresAt: number
  /** its strike while it trades; null where the venue publishes none before the close (Polymarket) */
  strike: number | null
  /** the contest before it, closed, with its strike; absent where the venue cannot describe it yet */
  earlier?: { opensAt: number; strike: number }
  /** an instant inside the window and the asks the venue shows then (null: whatever it quotes) */
  live(): Promise<{ at: number; asks: { up: number; down: number } | null }>
  /** the window has closed, no result yet: an instant after the close */
  expire(): Promise<number>
  /** the venue's final result: an instant it is known at, and its side (null: whichever the venue gave) */
  settle(): Promise<{ at: number; side: Side | null }>
  /** after the result, the venue shows the market otherwise (reopened, result cleared): an instant */
  contradict(): Promise<number>
  /** the venue voids the contest instead: an instant the void is known at */
  voidResult?(): Promise<number>
  /** the exchange stops trading: an instant in the pause (a live venue answers for now: asked at once) */
  pause?(): Promise<number>
  /** the exchange trades again: an instant after the pause */
  resume?(): Promise<number>
  /** inside the window, book requests get no answer: an instant to ask at */
  timeoutBooks?(): Promise<number>
  /** inside the window, the venue's book body does not parse: an instant to ask at */
  malformedBook?(): Promise<number>
  /** inside the window, the venue lists a market body of the series that does not parse */
  malformedMarket?(): Promise<number>
  close(): Promise<void>
}

/** What a world can be made to do beyond the lifecycle every venue has. */
export type Capability =
  | 'voidResult'
  | 'earlier'
  | 'pause'
  | 'timeoutBooks'
  | 'malformedBook'
  | 'malformedMarket'

export type ContractAdapter = {
  name: string
  /** the optional parts of the story its world plays (and whose tests are registered) */
  can: readonly Capability[]
  /** a fresh world per test, the followed contest not yet open to the engine's eyes beyond `live` */
  start(): Promise<ContractWorld>
}

/** The earlier contest as the engine asks for it (decisions §11). */
async function earlierMarket(venue: Venue, series: string, opensAt: number): Promise<VenueMarket | null> {
  return venue.marketOpenedAt(series, opensAt)
}

async function within<T>(what: string, ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)
  })
  try {
    return await Promise.race([p, late])
  } finally {
    clearTimeout(timer)
  }
}

/** Registers the contract's tests for `adapter`. */
export function venueContract(adapter: ContractAdapter): void {
  const probe = Object.fromEntries(adapter.can.map((c) => [c, true])) as Partial<Record<Capability, boolean>>
  const story = (name: string, run: (w: ContractWorld) => Promise<void>) =>
    it(name, async () => {
      const w = await adapter.start()
      try {
        await run(w)
      } finally {
        await w.close()
      }
    })

  describe(`${adapter.name} keeps the venue contract`, () => {
    story('lists the contest while it trades, quotes it, and stops quoting at the close', async (w) => {
      const { at, asks } = await w.live()
      assert.ok(at >= w.opensAt && at < w.expiresAt, 'the live instant is inside the window')
      const listed = await w.venue.marketAt(w.series, at)
      assert.equal(listed?.ticker, w.ticker)
      assert.equal(listed?.series, w.series)
      assert.equal(listed?.opensAt, w.opensAt)
      assert.equal(listed?.expiresAt, w.expiresAt)
      assert.equal(listed?.phase, 'trading')
      assert.equal(listed?.strikePriceDollars, w.strike)
      assert.equal((await w.venue.market(w.ticker, at))?.phase, 'trading')
      assert.equal(await w.venue.marketAt(`${w.series}X`, at), null, 'a series it does not follow')
      assert.equal(await w.venue.marketOpenedAt(`${w.series}X`, w.opensAt), null, 'nor opened there')
      const quote = await w.venue.quote(w.ticker, at)
      assert.ok(quote && quote !== NO_ANSWER, 'a trading market with books is quoted')
      if (asks) {
        assert.equal(quote.upAskCents, asks.up)
        assert.equal(quote.downAskCents, asks.down)
      }
      for (const side of [quote.upAskCents, quote.downAskCents])
        assert.ok(side === null || (side > 0 && side < 100), `an ask on the cent scale: ${side}`)
      assert.equal(await w.venue.result(w.ticker, at), null, 'no result while it trades')

      const after = await w.expire()
      assert.ok(after >= w.expiresAt)
      assert.notEqual((await w.venue.marketAt(w.series, after))?.ticker, w.ticker, 'no longer trading')
      assert.equal((await w.venue.market(w.ticker, after))?.phase, 'closed')
      assert.equal(await w.venue.quote(w.ticker, after), null, 'never a quote after the close')
      assert.equal(await w.venue.result(w.ticker, after), null, 'closed is not decided')
    })

    story('gives the result once the venue decides it, and never takes it back', async (w) => {
      await w.live()
      await w.expire()
      const { at, side } = await w.settle()
      const result = await w.venue.result(w.ticker, at)
      assert.equal(result?.kind, 'settled')
      if (side !== null && result?.kind === 'settled') assert.equal(result.side, side)
      assert.equal((await w.venue.market(w.ticker, at))?.phase, 'closed')
      const later = await w.contradict()
      assert.deepEqual(await w.venue.result(w.ticker, later), result, 'the result stands')
      assert.equal(await w.venue.quote(w.ticker, later), null)
    })

    story('reports one status per venue behind it, agreeing with its one status', async (w) => {
      await w.live()
      const all = w.venue.statuses()
      const one = w.venue.status()
      assert.ok(all.length > 0)
      assert.equal(all.map((s) => s.name).join('+'), one.name)
      assert.equal(
        all.some((s) => s.state === 'down'),
        one.state === 'down',
      )
    })

    if (probe.voidResult)
      story('gives a void as a void, with no side', async (w) => {
        await w.live()
        await w.expire()
        const at = await w.voidResult!()
        assert.equal((await w.venue.result(w.ticker, at))?.kind, 'void')
      })

    if (probe.earlier)
      story('describes the contest before, closed, with its strike (the basis)', async (w) => {
        const { at } = await w.live()
        const earlier = w.earlier!
        const market = await earlierMarket(w.venue, w.series, earlier.opensAt)
        assert.equal(market?.opensAt, earlier.opensAt)
        assert.equal(market?.strikePriceDollars, earlier.strike)
        assert.notEqual(market?.ticker, w.ticker)
        // the one trading now is not the earlier one
        assert.equal((await earlierMarket(w.venue, w.series, w.opensAt))?.ticker, w.ticker)
        assert.equal(await earlierMarket(w.venue, `${w.series}X`, earlier.opensAt), null)
        assert.ok(at > earlier.opensAt)
      })

    if (probe.pause)
      story('pauses the series while its exchange does, and only then', async (w) => {
        const { at } = await w.live()
        assert.equal(w.venue.tradingPaused(at, w.series), false)
        const pausedAt = await w.pause!()
        assert.equal(w.venue.tradingPaused(pausedAt, w.series), true, 'paused')
        const resumedAt = await w.resume!()
        assert.equal(w.venue.tradingPaused(resumedAt, w.series), false, 'resumed')
      })
    else
      story('never says paused (it has no exchange status)', async (w) => {
        const { at } = await w.live()
        assert.equal(w.venue.tradingPaused(at, w.series), false)
      })

    if (probe.timeoutBooks)
      story(
        'answers a book that never comes as no answer (not an empty book), in bounded time',
        async (w) => {
          await w.live()
          const at = await w.timeoutBooks!()
          assert.equal(await within('the quote', 10_000, w.venue.quote(w.ticker, at)), NO_ANSWER)
          assert.ok(w.venue.status().name)
        },
      )

    if (probe.malformedBook)
      story('answers a book body that does not parse as no answer (not an empty book)', async (w) => {
        await w.live()
        const at = await w.malformedBook!()
        assert.equal(await w.venue.quote(w.ticker, at), NO_ANSWER)
      })

    if (probe.malformedMarket)
      story('skips a market body that does not parse, and keeps the others', async (w) => {
        await w.live()
        const at = await w.malformedMarket!()
        assert.equal((await w.venue.marketAt(w.series, at))?.ticker, w.ticker)
      })
  })
}
