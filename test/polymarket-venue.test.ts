// The Polymarket adapter against the loopback fixture of Gamma and the CLOB, over real sockets:
// discovery by slug with the listing fallback, quotes from each side's own book, late results waited
// on, and the faults of decisions §8 — 429/5xx bursts backed off, slow answers timed out, malformed
// events skipped by field, a market missing for a while, an outage that invents nothing.

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { slugForStart, windowStartS } from '../src/feeds/polymarket/window-slug.ts'
import { NO_ANSWER } from '../src/ports/venue.ts'
import {
  DOWN_TOKEN,
  EXAMPLE_UP_BOOK_LEVELS,
  makeGammaEvent,
  resolvedGammaEvent,
  UP_TOKEN,
} from './fixtures/polymarket-bodies.ts'
import { marketOf, type PolymarketFixture } from './fixtures/polymarket-fixture.ts'
import { type PolymarketVenueWorld, startPolymarketVenueWorld } from './support/polymarket-venue-world.ts'
import { asksOf } from './support/venue-quote.ts'
import { waitFor, within } from './support/wait.ts'

const MINUTE = 60_000
/** The adapter's clock is put at minute 7 of a window, so no quarter hour passes during a test. */
const S = windowStartS(Date.now()) // the window the adapter is inside
const AT = S * 1000 + 7 * MINUTE
const SHIFT = AT - Date.now()
const CURRENT = slugForStart(S)
const NEXT = slugForStart(S + 900)
const PREVIOUS = slugForStart(S - 900)
const OLD = slugForStart(S - 2700)
const META = { priceToBeat: 83_962.48113709, finalPrice: 83_988.90427316 }
/** the backoff waits the adapter chose before retrying `endpoint`, as it logged them */
const retryWaits = (w: PolymarketVenueWorld, endpoint: string) =>
  w.logs
    .filter((l) => l.msg === 'polymarket request failed; retrying' && l.fields.endpoint === endpoint)
    .map((l) => l.fields.retryInMs)

/** The three windows as Gamma shows them at minute 7: the previous one resolved. */
function seedWindows(pm: PolymarketFixture) {
  pm.putEvent(resolvedGammaEvent(S - 900, 'up', META))
  pm.putEvent(makeGammaEvent({ startS: S }))
  pm.putEvent(makeGammaEvent({ startS: S + 900 }))
  pm.setBook(UP_TOKEN, EXAMPLE_UP_BOOK_LEVELS.bids, EXAMPLE_UP_BOOK_LEVELS.asks)
  // the Down book served best-first, the order the venue's OpenAPI text describes
  pm.setBook(
    DOWN_TOKEN,
    [
      { price: '0.45', size: '64.1' },
      { price: '0.01', size: '9000' },
    ],
    [
      { price: '0.46', size: '96.4' },
      { price: '0.47', size: '300' },
      { price: '0.99', size: '18000' },
    ],
  )
}

describe('Polymarket venue › discovery and quotes', () => {
  it('finds the current, next and just-ended windows by slug and maps them', async () => {
    const w = await startPolymarketVenueWorld({ shiftMs: SHIFT, seed: seedWindows })
    try {
      const live = await w.venue.marketAt('btc-updown-15m', w.now())
      assert.deepEqual(live, {
        ticker: CURRENT,
        series: 'btc-updown-15m',
        opensAt: S * 1000,
        expiresAt: (S + 900) * 1000,
        // the previous window's final price, published when it resolved: this one's price to beat
        strikePriceDollars: 83_988.9,
        phase: 'trading',
        // what a bot trades it by (decisions §16): Gamma's ids, each token by its outcome's label
        venue: {
          name: 'polymarket',
          refs: {
            slug: CURRENT,
            conditionId: '0x3b30b1ce5d5c8b574f8a1c7fecae6a0ae0348f92c1409fba12ba68f46d2c43ff',
            upTokenId: UP_TOKEN,
            downTokenId: DOWN_TOKEN,
          },
        },
        settlementRule: { averagingS: 60 },
      })
      assert.equal(await w.venue.marketAt('KXBTC15M', w.now()), null, 'another series is not this venue’s')
      assert.equal((await w.venue.market(NEXT, w.now()))?.phase, 'upcoming')
      const previous = await w.venue.market(PREVIOUS, w.now())
      assert.equal(previous?.phase, 'closed')
      assert.equal(previous?.strikePriceDollars, 83_962.48, 'to the cent, as every published price')
      assert.deepEqual(await w.venue.result(PREVIOUS, w.now()), {
        kind: 'settled',
        side: 'up',
        priceDollars: 83_988.9,
      })
      assert.ok(
        w.pm.requests.every((r) => /^contest-signals\//.test(String(r.headers['user-agent']))),
        'an explicit User-Agent on every request',
      )
    } finally {
      await w.close()
    }
  })

  it("quotes each side's lowest ask from its own token's book, whatever the level order", async () => {
    const w = await startPolymarketVenueWorld({ shiftMs: SHIFT, seed: seedWindows })
    /** the quote after the book interval (2 s on the adapter's clock) has passed */
    const fresh = async () => {
      w.shift(2_000)
      return w.venue.quote(CURRENT, w.now())
    }
    try {
      assert.deepEqual(asksOf(await w.venue.quote(CURRENT, w.now())), { upAskCents: 55, downAskCents: 46 })
      const books = w.requestsTo('/clob/book').map((r) => r.query.get('token_id'))
      assert.deepEqual(books.sort(), [DOWN_TOKEN, UP_TOKEN].sort())
      // sub-cent ticks near the ends are kept
      w.pm.setBook(
        UP_TOKEN,
        [{ price: '0.99', size: '5' }],
        [
          { price: '0.995', size: '5' },
          { price: '0.999', size: '9' },
        ],
      )
      w.pm.setBook(
        DOWN_TOKEN,
        [{ price: '0.001', size: '5' }],
        [
          { price: '0.009', size: '5' },
          { price: '0.005', size: '7' },
        ],
      )
      const asked = w.requestsTo('/clob/book').length
      assert.deepEqual(
        asksOf(await w.venue.quote(CURRENT, w.now())),
        { upAskCents: 55, downAskCents: 46 },
        'cached',
      )
      assert.equal(w.requestsTo('/clob/book').length, asked, 'one pair of books per interval')
      assert.deepEqual(asksOf(await fresh()), { upAskCents: 99.5, downAskCents: 0.5 })
      // no book yet (404) on one side: that side has no ask; on both: no quote
      w.pm.removeBook(DOWN_TOKEN)
      assert.deepEqual(asksOf(await fresh()), { upAskCents: 99.5, downAskCents: null })
      w.pm.removeBook(UP_TOKEN)
      assert.equal(await fresh(), null)
      assert.equal(w.rejected.length, 0, 'a 404 book is no malformed body')
    } finally {
      await w.close()
    }
  })

  it('takes no quote at or after the end, and asks the CLOB nothing then', async () => {
    const w = await startPolymarketVenueWorld({ shiftMs: SHIFT, seed: seedWindows })
    try {
      w.shift(8 * MINUTE) // minute 15: the window has ended, Gamma still says active
      const asked = w.requestsTo('/clob/book').length
      assert.equal(await w.venue.quote(CURRENT, w.now()), null)
      assert.equal(w.requestsTo('/clob/book').length, asked)
      assert.equal((await w.venue.market(CURRENT, w.now()))?.phase, 'closed')
    } finally {
      await w.close()
    }
  })

  it('falls back to the listing when the slug lookup answers 404, asking closed=true for an ended window', async () => {
    const w = await startPolymarketVenueWorld({
      shiftMs: SHIFT,
      seed: (pm) => {
        seedWindows(pm)
        pm.failNext(1, 404, { path: new RegExp(`/events/slug/${CURRENT}$`) })
        pm.failNext(1, 404, { path: new RegExp(`/events/slug/${PREVIOUS}$`) })
      },
    })
    try {
      assert.equal((await w.venue.marketAt('btc-updown-15m', w.now()))?.ticker, CURRENT)
      const listings = w
        .requestsTo('/gamma/events')
        .map((r) => `${r.query.get('slug')} closed=${r.query.get('closed')}`)
      assert.ok(listings.includes(`${CURRENT} closed=false`), listings.join('; '))
      // a resolved window is hidden from lists unless closed=true (venue facts §3.2.2)
      assert.ok(listings.includes(`${PREVIOUS} closed=true`), listings.join('; '))
      assert.equal((await w.venue.result(PREVIOUS, w.now()))?.kind, 'settled')
    } finally {
      await w.close()
    }
  })
})

describe('Polymarket venue › faults', () => {
  it('backs a 429 burst off with growing, jittered delays, at a rate well under the limits', async () => {
    const w = await startPolymarketVenueWorld({
      shiftMs: SHIFT,
      seed: (pm) => {
        seedWindows(pm)
        pm.failNext(3, 429, { path: /\/events\/slug\// })
      },
      // jitter pinned to the top of its range so the schedule is visible: 99, 199, 399 ms
      venue: { backoff: { baseMs: 100, capMs: 2_000 }, random: () => 0.999, gammaRequestsPerSec: 20 },
    })
    try {
      assert.equal(w.requestsTo(`/gamma/events/slug/${CURRENT}`).length >= 4, true)
      // the waits the adapter chose, as it logs them (the pacing between requests is the request
      // pacer's rule, held on a manual clock by src/feeds/venue-http/request-pacer.test.ts)
      const waits = retryWaits(w, 'event')
      assert.deepEqual(waits, [99, 199, 399])
      // the burst's four requests are spread over at least those waits: under 6 a second, where
      // Gamma allows 50 a second on /events
      const perSecond = 4 / (waits.reduce((a, b) => a + b, 0) / 1000)
      assert.ok(perSecond < 6, `${perSecond.toFixed(1)} requests a second during the burst`)
      assert.deepEqual(w.telemetry.retries, ['event', 'event', 'event'])
      assert.equal(w.telemetry.requests.filter((r) => r.status === '429').length, 3)
      assert.equal((await w.venue.marketAt('btc-updown-15m', w.now()))?.ticker, CURRENT)
    } finally {
      await w.close()
    }
  })

  it('retries a 500 burst, and an outage of every request leaves the venue down naming the cause, inventing nothing', async () => {
    const w = await startPolymarketVenueWorld({
      shiftMs: SHIFT,
      seed: (pm) => {
        pm.putEvent(makeGammaEvent({ startS: S }))
        pm.failNext(2, 500, { path: /\/events\/slug\// })
      },
      venue: { maxAttempts: 4, random: () => 0.999, backoff: { baseMs: 40, capMs: 1_000 } },
    })
    try {
      assert.equal(w.telemetry.requests.filter((r) => r.status === '500').length, 2)
      assert.deepEqual(retryWaits(w, 'event'), [39, 79])
      assert.equal((await w.venue.marketAt('btc-updown-15m', w.now()))?.ticker, CURRENT)
      assert.equal(w.venue.status().state, 'ok')
      w.pm.failNext(1_000_000, 503)
      await waitFor(
        'a poll that gave up its retries, naming why',
        () => w.venue.status().failure ?? undefined,
      )
      assert.equal(w.venue.status().state, 'ok', 'not down before a minute without a clean poll')
      // a minute on the adapter's clock without a clean poll
      w.shift(61_000)
      const status = w.venue.status()
      assert.equal(status.state, 'down')
      assert.equal(status.check, 'unreachable')
      assert.equal(status.failure, 'HTTP 503: cannot get the information')
      // the next window never appeared: nothing opens, nothing settles
      assert.equal(await w.venue.market(NEXT, w.now()), null)
      assert.equal(await w.venue.result(CURRENT, w.now()), null)
    } finally {
      await w.close()
    }
  })

  it('abandons an answer slower than the timeout and retries it', async () => {
    // the first lookup is answered only after start has returned: a start that waited for it could
    // not finish
    let fixture: PolymarketFixture | undefined
    const starting = startPolymarketVenueWorld({
      shiftMs: SHIFT,
      seed: (pm) => {
        fixture = pm
        seedWindows(pm)
        pm.holdNext(1, { path: new RegExp(`/events/slug/${CURRENT}$`) })
      },
      venue: { requestTimeoutMs: 150 },
    })
    const w = await within(starting, 'start to give up on the slow answer', 15_000).catch(async (err) => {
      fixture?.releaseHeld()
      await (await starting).close()
      throw err
    })
    try {
      w.pm.releaseHeld()
      const timedOut = w.telemetry.requests.filter((r) => r.status === 'timeout')
      assert.equal(timedOut.length, 1)
      assert.deepEqual(w.telemetry.retries, ['event'])
      assert.equal((await w.venue.marketAt('btc-updown-15m', w.now()))?.ticker, CURRENT)
      // slow books are timed out too: the quote waits for no one
      w.pm.holdNext(4, { path: /\/book/ })
      assert.equal(await within(w.venue.quote(CURRENT, w.now()), 'the quote to give up', 15_000), NO_ANSWER)
      w.pm.releaseHeld()
      assert.equal(w.telemetry.requests.filter((r) => r.status === 'timeout').length, 5)
    } finally {
      await w.close()
    }
  })

  it('skips malformed events with the field named and counted, keeping the last good view', async () => {
    const w = await startPolymarketVenueWorld({ shiftMs: SHIFT, seed: seedWindows })
    try {
      const good = await w.venue.market(CURRENT, w.now())
      assert.ok(good)
      // outcomes that are no JSON
      w.pm.updateEvent(CURRENT, (e) => {
        marketOf(e).outcomes = '["Up", "Down"'
      })
      await w.lookups(CURRENT, 2)
      assert.deepEqual(await w.venue.market(CURRENT, w.now()), good)
      // a body that is not an event at all
      w.pm.answerRaw(NEXT, `{"slug": "${NEXT}", "markets": "soon"}`)
      await w.lookups(NEXT, 2)
      assert.deepEqual([...new Set(w.rejected.map((r) => `${r.endpoint}:${r.field}`))].sort(), [
        'event:markets',
        'event:outcomes',
      ])
      const warnings = w.logs.filter((l) => l.level === 'warn' && l.msg.includes('malformed'))
      assert.deepEqual(
        warnings.map((l) => [l.fields.slug, l.fields.field]),
        [
          [CURRENT, 'outcomes'],
          [NEXT, 'markets'],
        ],
        'one warning per slug and field, however often it comes',
      )
    } finally {
      await w.close()
    }
  })

  it('counts a malformed book by field, gives no quote rather than the other side alone, and says malformed once every book fails', async () => {
    const w = await startPolymarketVenueWorld({
      shiftMs: SHIFT,
      seed: (pm) => {
        seedWindows(pm)
        pm.setBook(UP_TOKEN, [], [{ price: 'fifty-five', size: '10' }])
      },
    })
    try {
      // the up book was not had: the down ask alone would read as a bound the venue never showed
      assert.equal(await w.venue.quote(CURRENT, w.now()), NO_ANSWER)
      assert.deepEqual(w.rejected, [{ endpoint: 'book', field: 'asks.price' }])
      assert.equal(w.venue.status().check, 'ok', 'one bad book is no format change')
      // every quote failing in 3 reading minutes on the adapter's clock (a minute apart, as readings
      // ask): the third is enough, though the run from its first failure spans only 2 minutes
      w.shift(60_000)
      await w.venue.quote(CURRENT, w.now())
      await w.lookups(CURRENT, 1) // a poll on the moved clock: the venue itself answers
      assert.equal(w.venue.status().check, 'ok', 'two broken minutes are not yet three')
      w.shift(60_000)
      await w.venue.quote(CURRENT, w.now())
      assert.equal(w.venue.status().check, 'malformed')
      w.pm.setBook(UP_TOKEN, [], [{ price: '0.55', size: '10' }])
      w.shift(2_000)
      assert.deepEqual(asksOf(await w.venue.quote(CURRENT, w.now())), { upAskCents: 55, downAskCents: 46 })
      await w.lookups(CURRENT, 1) // a poll on the moved clock: the venue itself answered throughout
      assert.equal(w.venue.status().check, 'ok')
    } finally {
      await w.close()
    }
  })

  it('maps outcomes listed Down first by label, tokens and all', async () => {
    const w = await startPolymarketVenueWorld({
      shiftMs: SHIFT,
      seed: (pm) => {
        seedWindows(pm)
        pm.putEvent(makeGammaEvent({ startS: S, order: 'down-first' }))
      },
    })
    try {
      assert.deepEqual(asksOf(await w.venue.quote(CURRENT, w.now())), { upAskCents: 55, downAskCents: 46 })
    } finally {
      await w.close()
    }
  })

  it('waits for a market missing from Gamma, then follows it', async () => {
    const w = await startPolymarketVenueWorld({
      shiftMs: SHIFT,
      seed: (pm) => {
        seedWindows(pm)
        pm.hideEvent(CURRENT, true)
      },
    })
    try {
      assert.equal(await w.venue.marketAt('btc-updown-15m', w.now()), null)
      await w.lookups(CURRENT, 2)
      assert.equal(await w.venue.marketAt('btc-updown-15m', w.now()), null)
      assert.equal(w.venue.status().state, 'ok', 'an answer that has no market is still an answer')
      w.pm.hideEvent(CURRENT, false)
      await w.lookups(CURRENT, 1)
      assert.equal((await w.venue.marketAt('btc-updown-15m', w.now()))?.ticker, CURRENT)
    } finally {
      await w.close()
    }
  })
})

describe('Polymarket venue › results', () => {
  it('waits many minutes for a resolution, alerts when it is overdue, and keeps polling', async () => {
    const w = await startPolymarketVenueWorld({
      shiftMs: SHIFT,
      seed: (pm) => {
        seedWindows(pm)
        pm.putEvent(makeGammaEvent({ startS: S - 2700 })) // ended 30 minutes ago, still unresolved
      },
      venue: { resolutionAlertMs: 20 * MINUTE },
    })
    try {
      assert.equal(await w.venue.result(OLD, w.now()), null)
      // the engine asked: the window is followed, found overdue, alerted on, and still read
      await waitFor('the overdue alert', () =>
        w.logs.some((l) => l.level === 'error' && l.fields.slug === OLD && l.msg.includes('overdue'))
          ? true
          : undefined,
      )
      await waitFor('a lookup of the overdue window', () =>
        w.requestsTo(`/gamma/events/slug/${OLD}`).length >= 1 ? true : undefined,
      )
      assert.equal(await w.venue.result(OLD, w.now()), null)
      w.pm.putEvent(resolvedGammaEvent(S - 2700, 'down', { priceToBeat: 84_010, finalPrice: 83_990.5 }))
      // overdue windows are polled once a minute: move the adapter's clock rather than wait
      w.shift(MINUTE)
      const settled = await waitFor('the late result', () =>
        w.venue.result(OLD, w.now()).then((r) => r ?? undefined),
      )
      assert.deepEqual(settled, { kind: 'settled', side: 'down', priceDollars: 83_990.5 })
    } finally {
      await w.close()
    }
  })

  it('holds a resolution whose prices are not published for a grace period, then settles without them', async () => {
    const w = await startPolymarketVenueWorld({
      shiftMs: SHIFT,
      seed: (pm) => {
        seedWindows(pm)
        pm.putEvent(resolvedGammaEvent(S - 900, 'down', null))
      },
      venue: { metadataGraceMs: 5 * MINUTE },
    })
    try {
      assert.equal(await w.venue.result(PREVIOUS, w.now()), null, 'resolved, final price not yet published')
      // Gamma then serves a cached copy from before the end: a result is never taken back
      w.pm.putEvent(makeGammaEvent({ startS: S - 900 }))
      await w.lookups(PREVIOUS, 1)
      w.shift(5 * MINUTE)
      assert.deepEqual(await w.venue.result(PREVIOUS, w.now()), {
        kind: 'settled',
        side: 'down',
        priceDollars: null,
      })
    } finally {
      await w.close()
    }
  })

  it('voids a 0.5/0.5 resolution and raises an alert', async () => {
    const w = await startPolymarketVenueWorld({
      shiftMs: SHIFT,
      seed: (pm) => {
        seedWindows(pm)
        pm.putEvent(resolvedGammaEvent(S - 900, 'up', META, { outcomePrices: { up: '0.5', down: '0.5' } }))
      },
    })
    try {
      assert.deepEqual(await w.venue.result(PREVIOUS, w.now()), { kind: 'void', priceDollars: 83_988.9 })
      assert.ok(w.logs.some((l) => l.level === 'error' && l.msg.includes('voided')))
    } finally {
      await w.close()
    }
  })
})
