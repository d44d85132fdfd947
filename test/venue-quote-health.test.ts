// The quotes' health (decisions §8: `checks.venue` says `malformed` when every quote of the last 3
// minutes failed to parse), judged alike by both polled venues: a book the venue garbles counts, a
// book that parses ends the run, and a book request that got no answer (HTTP 403, 5xx, timeout) is
// neutral — an unreachable venue is not proof that its books parse, nor that they are malformed.
// The adapters' clocks are moved by the test (the wall clock plus a shift it sets).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { slugForStart, windowStartS } from '../src/feeds/polymarket/window-slug.ts'
import { NO_ANSWER, type Venue } from '../src/ports/venue.ts'
import { makeMarket } from './fixtures/kalshi-fixture.ts'
import { DOWN_TOKEN, makeGammaEvent, UP_TOKEN } from './fixtures/polymarket-bodies.ts'
import { MINUTE, startKalshiVenueWorld } from './support/kalshi-venue-world.ts'
import { startPolymarketVenueWorld } from './support/polymarket-venue-world.ts'

/** One venue as this story drives it: its book garbled, refused, or fine; its clock moved. */
type HealthWorld = {
  venue: Venue
  ticker: string
  now(): number
  shift(ms: number): void
  garbleBooks(): void
  /** the next book request (each side's, on Polymarket) answers HTTP 403 */
  refuseNextBooks(): void
  close(): Promise<void>
}

async function kalshiWorld(): Promise<HealthWorld> {
  let shiftMs = 0
  const now = () => Date.now() + shiftMs
  const opensAt = Math.floor(Date.now() / MINUTE) * MINUTE - 2 * MINUTE
  const market = makeMarket({
    openTime: opensAt,
    closeTime: opensAt + 15 * MINUTE,
    status: 'active',
    floorStrike: 68_421.37,
  })
  const w = await startKalshiVenueWorld({
    seed: (k) => k.addMarket(market),
    // the moved clock outruns the polls: liveness is not this story's
    venue: { wallClock: { now }, downAfterMs: 3_600_000 },
  })
  return {
    venue: w.venue,
    ticker: market.ticker,
    now,
    shift(ms) {
      shiftMs += ms
    },
    garbleBooks: () => w.kalshi.setOrderbook(market.ticker, { yes: [['forty-two', '13.00']], no: [] }),
    refuseNextBooks: () => w.kalshi.failNext(1, 403, { path: /orderbook/ }),
    close: () => w.close(),
  }
}

async function polymarketWorld(): Promise<HealthWorld> {
  // minute 7 of the window the wall clock is in: the story's 3 minutes stay inside it
  const S = windowStartS(Date.now())
  const shiftMs = S * 1000 + 7 * MINUTE - Date.now()
  const w = await startPolymarketVenueWorld({
    shiftMs,
    venue: { downAfterMs: 3_600_000 },
    seed: (pm) => {
      pm.putEvent(makeGammaEvent({ startS: S }))
      pm.setBook(DOWN_TOKEN, [], [{ price: '0.46', size: '10' }])
    },
  })
  return {
    venue: w.venue,
    ticker: slugForStart(S),
    now: w.now,
    shift: w.shift,
    garbleBooks: () => w.pm.setBook(UP_TOKEN, [], [{ price: 'fifty-five', size: '10' }]),
    refuseNextBooks: () => w.pm.failNext(2, 403, { path: /\/clob\/book/ }),
    close: () => w.close(),
  }
}

for (const [name, start] of [
  ['kalshi', kalshiWorld],
  ['polymarket', polymarketWorld],
] as const) {
  describe(`${name} venue › quote health`, () => {
    it('keeps a run of garbled books through book requests that got no answer: malformed at the third broken minute', async () => {
      const w = await start()
      try {
        w.garbleBooks()
        assert.equal(await w.venue.quote(w.ticker, w.now()), NO_ANSWER)
        w.shift(MINUTE)
        assert.equal(await w.venue.quote(w.ticker, w.now()), NO_ANSWER)
        assert.equal(w.venue.status().check, 'ok', 'two broken minutes are not yet three')
        // the venue refuses the book (as it would when unreachable): no body was read, so nothing
        // says the books parse again
        w.refuseNextBooks()
        w.shift(2_000)
        assert.equal(await w.venue.quote(w.ticker, w.now()), NO_ANSWER)
        assert.equal(w.venue.status().quoteFailure?.startsWith('HTTP 403'), true)
        w.shift(MINUTE - 2_000)
        assert.equal(await w.venue.quote(w.ticker, w.now()), NO_ANSWER)
        assert.equal(
          w.venue.status().check,
          'malformed',
          'three broken minutes, the refusal between them neutral',
        )
      } finally {
        await w.close()
      }
    })

    it('never says malformed for books that only got no answer', async () => {
      const w = await start()
      try {
        for (let minute = 0; minute < 4; minute++) {
          w.refuseNextBooks()
          assert.equal(await w.venue.quote(w.ticker, w.now()), NO_ANSWER)
          w.shift(MINUTE)
        }
        assert.notEqual(w.venue.status().check, 'malformed')
      } finally {
        await w.close()
      }
    })
  })
}
