// A venue outage in the logs (decisions §8; platform/outage-log.ts): the polled venues' requests that
// fail poll after poll — Kalshi's listings, market lookups and order books, Polymarket's Gamma lookups
// and CLOB books — are logged once when the failure starts (with the venue's status and words, or
// the field of a body that did not parse), then at most once a minute with a count, then once when
// answered again: not one line per poll or per attempt. The adapters poll on real timers; their
// clocks are the wall clock plus a shift the test moves, so "a minute later" is the test's to say.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { slugForStart, windowStartS } from '../src/feeds/polymarket/window-slug.ts'
import { NO_ANSWER } from '../src/ports/venue.ts'
import { makeMarket } from './fixtures/kalshi-fixture.ts'
import { DOWN_TOKEN, makeGammaEvent, UP_TOKEN } from './fixtures/polymarket-bodies.ts'
import { MINUTE, startKalshiVenueWorld } from './support/kalshi-venue-world.ts'
import { startPolymarketVenueWorld } from './support/polymarket-venue-world.ts'
import type { LogLine } from './support/venue-recording.ts'

const linesOf = (logs: LogLine[], what: RegExp) => logs.filter((l) => what.test(l.msg))

async function kalshiWorld() {
  let shiftMs = 0
  const opensAt = Math.floor(Date.now() / MINUTE) * MINUTE - 2 * MINUTE
  const market = makeMarket({
    openTime: opensAt,
    closeTime: opensAt + 15 * MINUTE,
    status: 'active',
    floorStrike: 68_421.37,
  })
  const w = await startKalshiVenueWorld({
    seed: (k) => {
      k.addMarket(market)
      k.setOrderbook(market.ticker, { yes: [['0.3400', '10.00']], no: [['0.6500', '10.00']] })
    },
    venue: {
      wallClock: { now: () => Date.now() + shiftMs },
      maxAttempts: 1,
      // the moved clock outruns the polls: liveness is not this story's
      downAfterMs: 3_600_000,
    },
  })
  return {
    w,
    ticker: market.ticker,
    now: () => Date.now() + shiftMs,
    shift(ms: number) {
      shiftMs += ms
    },
  }
}

describe('Kalshi venue › outages in the log', () => {
  it('logs a listing outage and the market lookups it causes once, then once a minute, then the recovery', async () => {
    const { w, ticker, shift } = await kalshiWorld()
    try {
      w.kalshi.answerAll({ status: 503, body: '{"code":"service_unavailable","message":"down for now"}' })
      await w.polls(6)
      const listing = () => linesOf(w.logs, /^kalshi listing (of KXBTC15M )?(failed|still failing|recovered)/)
      const fetches = () => linesOf(w.logs, /^kalshi market fetch (of \S+ )?(failed|still failing|recovered)/)
      assert.equal(listing().length, 1, 'six failed polls, one line')
      assert.deepEqual(
        { level: listing()[0]!.level, msg: listing()[0]!.msg, ...listing()[0]!.fields },
        {
          level: 'warn',
          msg: 'kalshi listing failed',
          venue: 'kalshi',
          series: 'KXBTC15M',
          status: '503',
          error: 'down for now',
        },
      )
      // the live market is looked up by ticker when no listing shows it: one line for its outage too
      assert.equal(fetches().length, 1)
      assert.equal(fetches()[0]!.msg, 'kalshi market fetch failed')
      assert.equal(fetches()[0]!.fields.ticker, ticker)

      shift(MINUTE + 1_000)
      await w.polls(3)
      assert.equal(listing().length, 2, 'a minute later, one more line')
      const repeat = listing()[1]!
      assert.match(
        repeat.msg,
        /^kalshi listing of KXBTC15M still failing: \d+ failed attempts since the last line$/,
      )
      assert.equal(repeat.fields.status, '503')
      // polls(6) returns once the sixth listing has started: its failure may come after the clock
      // moved, and then it is the one that writes this line (five since the first, not six)
      assert.ok((repeat.fields.failures as number) >= 5, `${repeat.fields.failures} failures`)
      assert.equal(fetches().length, 2)

      w.kalshi.answerAll(null)
      await w.polls(3)
      assert.equal(listing().length, 3)
      assert.match(
        listing()[2]!.msg,
        /^kalshi listing of KXBTC15M recovered after \d+ failed attempts over 6\d(\.\d+)? s$/,
      )
      assert.equal(listing()[2]!.level, 'warn')
      assert.equal(linesOf(w.logs, /listing/).length, 3, 'and nothing more')
    } finally {
      await w.close()
    }
  })

  it('logs a malformed order book once with its field, then once a minute, and a failing one apart', async () => {
    const { w, ticker, now, shift } = await kalshiWorld()
    try {
      w.kalshi.setOrderbook(ticker, { yes: [['forty-two', '13.00']], no: [] })
      for (let i = 0; i < 5; i++) {
        assert.equal(await w.venue.quote(ticker, now()), NO_ANSWER)
        shift(2_000) // past the per-market quote interval: each is a request
      }
      const malformed = () =>
        linesOf(w.logs, /^kalshi order book (of \S+ \(malformed\) )?(malformed|still failing|recovered)/)
      assert.equal(malformed().length, 1, 'five garbled books, one line')
      assert.deepEqual(malformed()[0]!.fields, { venue: 'kalshi', ticker, field: 'orderbook_fp.yes_dollars' })
      assert.equal(malformed()[0]!.msg, 'kalshi order book malformed; skipped')
      assert.equal(w.rejected.length, 5, 'each still counted by field')

      shift(MINUTE)
      await w.venue.quote(ticker, now())
      assert.equal(malformed().length, 2)
      assert.match(malformed()[1]!.msg, /still failing: 5 failed attempts since the last line$/)
      assert.equal(malformed()[1]!.fields.field, 'orderbook_fp.yes_dollars')

      // refused meanwhile: an outage of its own, logged once
      w.kalshi.failNext(3, 403, { path: /orderbook/ })
      const refused = () => linesOf(w.logs, /^kalshi order book (of \S+ )?(failed|still failing|recovered)/)
      for (let i = 0; i < 3; i++) {
        shift(2_000)
        assert.equal(await w.venue.quote(ticker, now()), NO_ANSWER)
      }
      assert.equal(refused().length, 1)
      assert.equal(refused()[0]!.fields.status, '403')

      w.kalshi.setOrderbook(ticker, { yes: [['0.3400', '10.00']], no: [['0.6500', '10.00']] })
      shift(2_000)
      assert.notEqual(await w.venue.quote(ticker, now()), NO_ANSWER)
      assert.equal(refused().length, 2)
      assert.match(refused()[1]!.msg, /^kalshi order book of \S+ recovered after 3 failed attempts/)
      assert.equal(malformed().length, 3)
      assert.match(malformed()[2]!.msg, /\(malformed\) recovered after 6 failed attempts/)
    } finally {
      await w.close()
    }
  })
})

async function polymarketWorld() {
  // minute 7 of the window the wall clock is in: the story's minutes stay inside it
  const S = windowStartS(Date.now())
  const w = await startPolymarketVenueWorld({
    shiftMs: S * 1000 + 7 * MINUTE - Date.now(),
    venue: { maxAttempts: 1, downAfterMs: 3_600_000 },
    seed: (pm) => {
      pm.putEvent(makeGammaEvent({ startS: S }))
      pm.putEvent(makeGammaEvent({ startS: S + 900 }))
      pm.setBook(UP_TOKEN, [], [{ price: '0.55', size: '10' }])
      pm.setBook(DOWN_TOKEN, [], [{ price: '0.46', size: '10' }])
    },
  })
  return { w, slug: slugForStart(S) }
}

describe('Polymarket venue › outages in the log', () => {
  it('logs a Gamma outage once per window, then once a minute, then the recovery', async () => {
    const { w, slug } = await polymarketWorld()
    try {
      w.pm.failNext(1_000_000, 503, { path: /^\/gamma\// })
      await w.lookups(slug, 6)
      const current = () =>
        linesOf(w.logs, /^polymarket event lookup (of \S+ )?(failed|still failing|recovered)/).filter(
          (l) => l.fields.slug === slug,
        )
      assert.equal(current().length, 1, 'six failed lookups, one line')
      assert.deepEqual(current()[0]!.fields, {
        venue: 'polymarket',
        slug,
        status: '503',
        error: 'cannot get the information',
      })

      w.shift(MINUTE + 1_000)
      await w.lookups(slug, 2)
      assert.equal(current().length, 2)
      assert.match(current()[1]!.msg, /still failing: \d+ failed attempts since the last line$/)

      w.pm.clearFaults()
      await w.lookups(slug, 2)
      assert.equal(current().length, 3)
      assert.match(
        current()[2]!.msg,
        new RegExp(`^polymarket event lookup of ${slug} recovered after \\d+ failed attempts`),
      )
    } finally {
      await w.close()
    }
  })

  it('logs a malformed book once with its side and field, then once a minute, then the recovery', async () => {
    const { w, slug } = await polymarketWorld()
    try {
      w.pm.setBook(UP_TOKEN, [], [{ price: 'fifty-five', size: '10' }])
      for (let i = 0; i < 5; i++) {
        assert.equal(await w.venue.quote(slug, w.now()), NO_ANSWER)
        w.shift(2_000)
      }
      const malformed = () =>
        linesOf(w.logs, /^polymarket book (of \S+ \(malformed\) )?(malformed|still failing|recovered)/)
      assert.equal(malformed().length, 1, 'five garbled books, one line')
      assert.equal(malformed()[0]!.msg, 'polymarket book malformed; skipped')
      assert.deepEqual(malformed()[0]!.fields, {
        venue: 'polymarket',
        ticker: slug,
        side: 'up',
        field: 'asks.price',
      })

      w.shift(MINUTE)
      await w.venue.quote(slug, w.now())
      assert.equal(malformed().length, 2)

      // both books refused meanwhile: one line for that outage, not one per side and attempt
      const refused = () => linesOf(w.logs, /^polymarket book (of \S+ )?(failed|still failing|recovered)/)
      for (let i = 0; i < 3; i++) {
        w.pm.failNext(2, 403, { path: /^\/clob\/book/ })
        w.shift(2_000)
        assert.equal(await w.venue.quote(slug, w.now()), NO_ANSWER)
      }
      assert.equal(refused().length, 1)
      assert.equal(refused()[0]!.fields.status, '403')

      w.pm.setBook(UP_TOKEN, [], [{ price: '0.55', size: '10' }])
      w.shift(2_000)
      assert.notEqual(await w.venue.quote(slug, w.now()), NO_ANSWER)
      assert.equal(refused().length, 2)
      assert.match(refused()[1]!.msg, /recovered after 3 failed attempts/)
      assert.equal(malformed().length, 3)
      assert.match(malformed()[2]!.msg, /\(malformed\) recovered after 6 failed attempts/)
    } finally {
      await w.close()
    }
  })
})
