// The real CLI on VENUE=polymarket against loopback fixtures of Gamma, the CLOB and the three
// exchanges: a whole contest lifecycle seen through the public API and the stream. Polymarket's
// windows are the UTC quarter hours (the adapter computes their slugs from the clock), so the test and
// the service share a wall clock shifted to put "now" 25 s before minute 13 of a window; time then
// runs at its normal pace, and the last two reading minutes, the close, the late price to beat, the
// result and the next window all happen within about three minutes.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type ExchangeFixtures, startExchangeFixtures } from './fixtures/exchange-fixtures.ts'
import {
  DOWN_TOKEN,
  FINAL_PRICE,
  makeGammaEvent,
  NEXT_DOWN_TOKEN,
  NEXT_UP_TOKEN,
  PRICE_TO_BEAT,
  resolvedGammaEvent,
  UP_TOKEN,
} from './fixtures/polymarket-bodies.ts'
import { marketOf, type PolymarketFixture, startPolymarketFixture } from './fixtures/polymarket-fixture.ts'
import { keepFresh, quotesAround, setWarmUpHour } from './support/exchange-motion.ts'
import { exchangeEnv } from './support/feed-env.ts'
import { keyedGet } from './support/keyed-get.ts'
import { shiftToMinute13 } from './support/polymarket-window.ts'
import { type ServiceProcess, startProcess, tempDir } from './support/service-process.ts'
import { shiftedClockEnv } from './support/shifted-clock.ts'
import { openStream, type SseClient } from './support/sse-client.ts'
import { waitFor } from './support/wait.ts'

const MINUTE = 60_000
const SERIES = 'btc-updown-15m'
const LEAD_MS = 25_000

// the window that is 12 min 35 s old when the test starts (on the shifted clock)
const { S, opensAt, minute13, closesAt, shiftMs: SHIFT_MS } = shiftToMinute13(LEAD_MS)

const TICKER = `btc-updown-15m-${S}`
const NEXT = `btc-updown-15m-${S + 900}`
const SPOT = 84_010

// biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
type Json = Record<string, any>

describe('contest-signals serve with VENUE=polymarket (shifted wall clock, loopback fixtures)', () => {
  const tmp = tempDir()
  let pm: PolymarketFixture
  let exchanges: ExchangeFixtures
  let service: ServiceProcess
  let url: string
  let key: string
  let stream: SseClient
  let stopTicking = (): void => {}

  const get = keyedGet(() => ({ url, key }))
  const contest = async (ticker: string): Promise<Json> => (await get(`/v1/contests/${ticker}`)).body
  const signalsAt = (n: number, timeoutMs: number) =>
    waitFor(
      `${n} signal(s) on ${TICKER}`,
      async () => {
        const c = await contest(TICKER)
        return c.signals?.length >= n ? c : undefined
      },
      timeoutMs,
      250,
    )

  before(async () => {
    pm = await startPolymarketFixture()
    exchanges = await startExchangeFixtures({ bid: SPOT - 0.1, ask: SPOT + 0.1 })
    // an hour of one-minute candles: the model's history, and the proxy over the minute before the open
    setWarmUpHour(exchanges, SPOT)
    stopTicking = keepFresh(exchanges, quotesAround(SPOT))

    // the window just ended, resolved, its final price (the live one's price to beat) not published
    // yet; the live one (no price to beat yet); the next one
    pm.putEvent(
      resolvedGammaEvent(
        S - 900,
        'up',
        { priceToBeat: 83_900.5 },
        {
          upToken: '3'.repeat(76),
          downToken: '4'.repeat(76),
        },
      ),
    )
    pm.putEvent(makeGammaEvent({ startS: S }))
    pm.putEvent(makeGammaEvent({ startS: S + 900, upToken: NEXT_UP_TOKEN, downToken: NEXT_DOWN_TOKEN }))
    // the Up book worst-first (best last, as the venue's guide and captures show), the Down book
    // best-first (as its OpenAPI text says): the entry is the lowest ask either way
    pm.setBook(
      UP_TOKEN,
      [
        { price: '0.01', size: '21500' },
        { price: '0.54', size: '96.4' },
      ],
      [
        { price: '0.99', size: '18000' },
        { price: '0.57', size: '300' },
        { price: '0.55', size: '64.1' },
      ],
    )
    pm.setBook(
      DOWN_TOKEN,
      [
        { price: '0.45', size: '64.1' },
        { price: '0.01', size: '9000' },
      ],
      [
        { price: '0.46', size: '96.4' },
        { price: '0.48', size: '300' },
        { price: '0.99', size: '18000' },
      ],
    )
    pm.setBook(NEXT_UP_TOKEN, [{ price: '0.49', size: '10' }], [{ price: '0.51', size: '10' }])
    pm.setBook(NEXT_DOWN_TOKEN, [{ price: '0.49', size: '10' }], [{ price: '0.51', size: '10' }])

    service = startProcess(['serve'], {
      DATABASE_URL: `sqlite:${path.join(tmp.dir, 'cs.db')}`,
      PORT: '0',
      LOG_LEVEL: 'info',
      VENUE: 'polymarket',
      SERIES,
      POLYMARKET_GAMMA_URL: pm.gammaUrl,
      POLYMARKET_CLOB_URL: pm.clobUrl,
      POLYMARKET_POLL_S: '1',
      RATE_LIMIT_BURST: '1000',
      RATE_LIMIT_PER_SEC: '100',
      ...exchangeEnv(exchanges),
      ...shiftedClockEnv(SHIFT_MS),
    })
    url = await service.url
    key = await service.bootstrapKey
    stream = await openStream(`${url}/v1/stream/contests?series=${SERIES}`, { key })
  })

  after(async () => {
    stopTicking()
    stream?.close()
    await service?.kill()
    await pm?.close()
    await exchanges?.close()
    tmp.remove()
  })

  it('opens the window already 13 minutes old, its strike null: the venue has not published it', async () => {
    const active = await waitFor('the live contest', async () => {
      const res = await get(`/v1/contests/active?series=${SERIES}`)
      return res.status === 200 ? res.body : undefined
    })
    assert.equal(active.ticker, TICKER)
    assert.equal(active.state, 'live')
    assert.deepEqual(active.window, {
      opens_at: new Date(opensAt).toISOString().replace('.000Z', 'Z'),
      expires_at: new Date(closesAt).toISOString().replace('.000Z', 'Z'),
    })
    assert.equal(active.strike_price_dollars, null)
    // the resolved window before it is not opened: it was never live while the service ran
    assert.equal((await get(`/v1/contests/btc-updown-15m-${S - 900}`)).status, 404)
  })

  it('reads minute 13 at its boundary, from its own estimate of the strike, at the lowest asks', async () => {
    const c = await signalsAt(1, minute13 - Date.now() + 15_000)
    const [s13] = c.signals
    const raisedAt = Date.parse(s13.raised_at)
    assert.ok(
      raisedAt >= minute13 && raisedAt < minute13 + 10_000,
      `minute 13, at its boundary: ${s13.raised_at}`,
    )
    assert.equal(s13.entry_price_cents, s13.side === 'up' ? 55 : 46, 'never the 0.99 level served first')
    assert.equal(s13.edge_cents, Math.round((s13.confidence - s13.entry_price_cents) * 100) / 100)
    assert.equal(s13.outcome, 'pending')
    assert.equal(c.strike_price_dollars, null, 'the estimate is never published as the strike')
  })

  it('reads minute 14 from the books as they stand then, sub-cent ticks kept', async () => {
    pm.setBook(
      UP_TOKEN,
      [{ price: '0.99', size: '5' }],
      [
        { price: '0.999', size: '5' },
        { price: '0.995', size: '50' },
      ],
    )
    pm.setBook(
      DOWN_TOKEN,
      [{ price: '0.004', size: '5' }],
      [
        { price: '0.005', size: '40' },
        { price: '0.009', size: '5' },
      ],
    )
    const c = await signalsAt(2, minute13 + MINUTE - Date.now() + 15_000)
    const s14 = c.signals[1]
    assert.ok(Date.parse(s14.raised_at) >= minute13 + MINUTE)
    assert.equal(s14.entry_price_cents, s14.side === 'up' ? 99.5 : 0.5)
  })

  it('expires at the close with no result yet, and opens the next window', async () => {
    const expired = await waitFor(
      `${TICKER} expired`,
      async () => {
        const body = await contest(TICKER)
        return body.state === 'expired' ? body : undefined
      },
      closesAt - Date.now() + 15_000,
    )
    assert.equal(expired.settled_side, null)
    assert.equal(expired.strike_price_dollars, null)
    assert.equal(expired.signals.length, 2)
    assert.ok(expired.signals.every((s: Json) => s.outcome === 'pending'))
    const next = await waitFor('the next contest', async () => {
      const res = await get(`/v1/contests/active?series=${SERIES}`)
      return res.status === 200 && res.body.ticker === NEXT ? res.body : undefined
    })
    assert.equal(next.strike_price_dollars, null)
  })

  it('sets the strike once the venue publishes its price to beat, after the window', async () => {
    pm.updateEvent(TICKER, (e) => {
      e.eventMetadata = { priceToBeat: PRICE_TO_BEAT }
    })
    const c = await waitFor(`${TICKER} strike`, async () => {
      const body = await contest(TICKER)
      return body.strike_price_dollars !== null ? body : undefined
    })
    assert.equal(c.state, 'expired', 'still waiting for the result')
    assert.equal(c.strike_price_dollars, 84_012.48)
  })

  it('settles on the resolution published later: Down, graded, with the final price', async () => {
    pm.updateEvent(TICKER, (e) => {
      const m = marketOf(e)
      Object.assign(e, {
        closed: true,
        eventMetadata: { priceToBeat: PRICE_TO_BEAT, finalPrice: FINAL_PRICE },
      })
      Object.assign(m, {
        closed: true,
        acceptingOrders: false,
        umaResolutionStatus: 'resolved',
        // listed Down first this time: the winner is read by label
        outcomes: '["Down", "Up"]',
        outcomePrices: '["1", "0"]',
        clobTokenIds: JSON.stringify([DOWN_TOKEN, UP_TOKEN]),
        closedTime: new Date(closesAt + 72_000)
          .toISOString()
          .replace('T', ' ')
          .replace(/\.\d+Z$/, '+00'),
      })
    })
    const c = await waitFor(`${TICKER} settled`, async () => {
      const body = await contest(TICKER)
      return body.state === 'settled' ? body : undefined
    })
    assert.equal(c.settled_side, 'down')
    assert.equal(c.settled_price_dollars, 83_988.9)
    assert.equal(c.strike_price_dollars, 84_012.48)
    for (const s of c.signals) assert.equal(s.outcome, s.side === 'down' ? 'win' : 'loss')
  })

  it('told the whole story on the stream, in order', async () => {
    await waitFor('the stream to see the settlement', () =>
      stream.events.some((e) => e.event === 'contest.settled') ? true : undefined,
    )
    const story = stream.events.map((e) => ({ event: e.event, data: JSON.parse(e.data) as Json }))
    assert.deepEqual(
      story.map((e) => e.event),
      ['contest.opened', 'signal.emitted', 'signal.emitted', 'contest.opened', 'contest.settled'],
    )
    const [opened, first, second, nextOpened, settled] = story
    assert.equal(opened!.data.ticker, TICKER)
    assert.equal(opened!.data.strike_price_dollars, null)
    assert.equal(first!.data.contest.strike_price_dollars, null)
    assert.equal(second!.data.contest.signals.length, 2)
    assert.equal(nextOpened!.data.ticker, NEXT)
    assert.equal(settled!.data.ticker, TICKER)
    assert.equal(settled!.data.settled_side, 'down')
    assert.equal(settled!.data.strike_price_dollars, 84_012.48)
  })

  it('polled Gamma and the CLOB at a pace far under their limits', async () => {
    const gamma = pm.requests.filter((r) => r.path.startsWith('/gamma/'))
    const books = pm.requests.filter((r) => r.path === '/clob/book')
    const seconds = (pm.requests.at(-1)!.at - pm.requests[0]!.at) / 1000
    // per 1-s poll: the just-ended, current and next windows (3 lookups); Gamma allows 500 per 10 s
    assert.ok((gamma.length / seconds) * 10 < 50, `${gamma.length} Gamma requests in ${seconds.toFixed(0)} s`)
    // two books per reading (and per venue check); the CLOB allows 1,500 per 10 s
    assert.ok(books.length <= 8, `${books.length} book requests`)
    assert.match(service.stdout(), /polymarket venue starting/)
  })
})
