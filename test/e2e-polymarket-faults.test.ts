// Venue faults on VENUE=polymarket, driven through the real CLI on a wall clock shifted to 45 s before
// a window's close: a 429 and 500 burst backed off at a paced rate, an answer held back by the
// fixture timed out and retried, a malformed event skipped and counted by field, the next window missing from Gamma for a
// while (nothing opens until it appears), and a resolution that never comes (the contest stays
// expired). The operator sees it in the metrics and the log, a dropped exchange socket too; health
// ends `ok`.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type ExchangeFixtures, startExchangeFixtures } from './fixtures/exchange-fixtures.ts'
import { DOWN_TOKEN, makeGammaEvent, resolvedGammaEvent, UP_TOKEN } from './fixtures/polymarket-bodies.ts'
import { marketOf, type PolymarketFixture, startPolymarketFixture } from './fixtures/polymarket-fixture.ts'
import { keepFresh } from './support/exchange-motion.ts'
import { exchangeEnv } from './support/feed-env.ts'
import { keyedGet } from './support/keyed-get.ts'
import { metricsUrlOf, sample, scrape } from './support/metrics-scrape.ts'
import { type ServiceProcess, startProcess, tempDir } from './support/service-process.ts'
import { shiftDateNow, shiftedClockEnv } from './support/shifted-clock.ts'
import { waitFor } from './support/wait.ts'

const realNow = Date.now()
const S = Math.floor(realNow / 900_000) * 900
const closesAt = (S + 900) * 1000
const SHIFT_MS = closesAt - 45_000 - realNow
shiftDateNow(SHIFT_MS)

const PREVIOUS = `btc-updown-15m-${S - 900}`
const CURRENT = `btc-updown-15m-${S}`
const NEXT = `btc-updown-15m-${S + 900}`

// biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
type Json = Record<string, any>

describe('VENUE=polymarket faults (real CLI, shifted wall clock)', () => {
  const tmp = tempDir()
  let pm: PolymarketFixture
  let exchanges: ExchangeFixtures
  let service: ServiceProcess
  let url: string
  let metricsUrl: string
  let key: string
  let stopTicking = (): void => {}
  const get = keyedGet(() => ({ url, key }))
  const metric = async (name: string, labels: Record<string, string>) =>
    sample(await scrape(metricsUrl), name, labels) ?? 0
  const lookupsOf = (slug: string) => pm.requests.filter((r) => r.path === `/gamma/events/slug/${slug}`)

  before(async () => {
    pm = await startPolymarketFixture()
    exchanges = await startExchangeFixtures({ bid: 84_000, ask: 84_000.2 })
    stopTicking = keepFresh(exchanges, {
      coinbase: [84_000, 84_000.2],
      kraken: [84_000.1, 84_000.3],
      bitstamp: [83_999.9, 84_000.1],
    })
    // the just-ended window's outcomes are no JSON: skipped, counted, never a contest
    const previous = resolvedGammaEvent(S - 900, 'up', { priceToBeat: 83_950, finalPrice: 84_001 })
    marketOf(previous).outcomes = '["Up", "Down"'
    pm.putEvent(previous)
    pm.putEvent(makeGammaEvent({ startS: S }))
    // the next window exists but Gamma does not show it yet
    pm.putEvent(makeGammaEvent({ startS: S + 900, upToken: '7'.repeat(76), downToken: '8'.repeat(76) }))
    pm.hideEvent(NEXT, true)
    pm.setBook(UP_TOKEN, [{ price: '0.49', size: '5' }], [{ price: '0.51', size: '5' }])
    pm.setBook(DOWN_TOKEN, [{ price: '0.49', size: '5' }], [{ price: '0.51', size: '5' }])
    service = startProcess(['serve'], {
      DATABASE_URL: `sqlite:${path.join(tmp.dir, 'cs.db')}`,
      PORT: '0',
      METRICS_PORT: '0',
      LOG_LEVEL: 'info',
      VENUE: 'polymarket',
      SERIES: 'btc-updown-15m',
      POLYMARKET_GAMMA_URL: pm.gammaUrl,
      POLYMARKET_CLOB_URL: pm.clobUrl,
      POLYMARKET_POLL_S: '1',
      RATE_LIMIT_BURST: '1000',
      RATE_LIMIT_PER_SEC: '100',
      ...exchangeEnv(exchanges),
      ...shiftedClockEnv(SHIFT_MS),
    })
    url = await service.url
    metricsUrl = await metricsUrlOf(service)
    key = await service.bootstrapKey
  })

  after(async () => {
    stopTicking()
    await service?.kill()
    await pm?.close()
    await exchanges?.close()
    tmp.remove()
  })

  it('opens the live window, and skips the malformed one with its field named and counted', async () => {
    await waitFor('the live contest', async () => {
      const res = await get('/v1/contests/active?series=btc-updown-15m')
      return res.status === 200 && res.body.ticker === CURRENT ? true : undefined
    })
    // the first poll reads the live window first, so the just-ended one may be read after it opened
    await waitFor('the malformed event counted', async () =>
      (await metric('cs_venue_rejected_bodies_total', { endpoint: 'event', field: 'outcomes' })) > 0
        ? true
        : undefined,
    )
    const warned = service
      .stdout()
      .split('\n')
      .filter((l) => l.includes('polymarket event malformed'))
    assert.equal(warned.length, 1, 'one warning, however many polls')
    assert.match(
      warned[0]!,
      new RegExp(`"slug":"${PREVIOUS}".*"field":"outcomes"|"field":"outcomes".*"slug":"${PREVIOUS}"`),
    )
    assert.equal((await get(`/v1/contests/${PREVIOUS}`)).status, 404)
  })

  it('backs a 429 and 500 burst off at a paced rate, and times a slow answer out', async () => {
    const from = pm.requests.length
    pm.failNext(3, 429, { path: /\/gamma\/events\/slug\// })
    pm.failNext(2, 500, { path: /\/gamma\/events\/slug\// })
    await waitFor('the burst answered', async () =>
      (await metric('cs_venue_request_duration_seconds_count', { endpoint: 'event', status: '500' })) >= 2
        ? true
        : undefined,
    )
    assert.equal(
      await metric('cs_venue_request_duration_seconds_count', { endpoint: 'event', status: '429' }),
      3,
    )
    assert.ok((await metric('cs_venue_retries_total', { endpoint: 'event' })) >= 4)
    const burst = pm.requests.slice(from).filter((r) => r.path.startsWith('/gamma/'))
    // The pacer lets Gamma requests leave at most 5 a second, evenly spaced, retries included: the gaps
    // between them average at least 200 ms. Measured at the fixture, a first request the service's
    // event loop sent late shortens the span; 8 gaps a second leaves it 300 ms for that, while a
    // client that retried without waiting would put the whole burst within a few milliseconds.
    const seconds = (burst.at(-1)!.at - burst[0]!.at) / 1000
    const gapsPerSecond = (burst.length - 1) / seconds
    assert.ok(gapsPerSecond <= 8, `${burst.length} Gamma requests in ${seconds.toFixed(2)} s`)

    // a lookup the venue answers only after the service gave up on it (5 s) and retried
    pm.holdNext(1, { path: new RegExp(`/events/slug/${CURRENT}$`) })
    await waitFor(
      'a timed-out lookup',
      async () =>
        (await metric('cs_venue_request_duration_seconds_count', { endpoint: 'event', status: 'timeout' })) >=
        1
          ? true
          : undefined,
      20_000,
    )
    pm.releaseHeld()
    const lookups = lookupsOf(CURRENT).length
    await waitFor('the lookup retried and polling on', () =>
      lookupsOf(CURRENT).length >= lookups + 2 ? true : undefined,
    )
  })

  it('expires at the close; opens nothing while the next window is missing from Gamma, then opens it', async () => {
    await waitFor(
      `${CURRENT} expired`,
      async () => ((await get(`/v1/contests/${CURRENT}`)).body.state === 'expired' ? true : undefined),
      closesAt - Date.now() + 15_000,
    )
    const seen = lookupsOf(NEXT).length
    await waitFor('three more lookups of the missing window', () =>
      lookupsOf(NEXT).length >= seen + 3 ? true : undefined,
    )
    assert.equal((await get('/v1/contests/active?series=btc-updown-15m')).status, 404, 'nothing invented')
    assert.ok(pm.requests.some((r) => r.path === '/gamma/events' && r.query.get('slug') === NEXT))
    pm.hideEvent(NEXT, false)
    await waitFor('the next contest', async () => {
      const res = await get('/v1/contests/active?series=btc-updown-15m')
      return res.status === 200 && res.body.ticker === NEXT ? true : undefined
    })
  })

  it('keeps waiting for a resolution that does not come: the contest stays expired, health ok', async () => {
    const seen = lookupsOf(CURRENT).length
    await waitFor('five more lookups of the unresolved window', () =>
      lookupsOf(CURRENT).length >= seen + 5 ? true : undefined,
    )
    const c = (await get(`/v1/contests/${CURRENT}`)).body
    assert.equal(c.state, 'expired')
    assert.equal(c.settled_side, null)
    assert.equal(c.strike_price_dollars, null)
    const health = await fetch(`${url}/v1/health`)
    assert.equal(health.status, 200)
    assert.equal(((await health.json()) as Json).status, 'ok')
  })

  it('shows each spot exchange’s socket, and counts one the exchange dropped', async () => {
    const spot = async (name: string, source: string) => metric(name, { source })
    for (const source of ['coinbase', 'kraken', 'bitstamp'])
      await waitFor(`${source}’s socket connected`, async () =>
        (await spot('cs_spot_socket_connected', source)) === 1 ? true : undefined,
      )
    const before = await spot('cs_spot_socket_drops_total', 'kraken')
    exchanges.kraken.dropConnections()
    await waitFor('the drop counted', async () =>
      (await spot('cs_spot_socket_drops_total', 'kraken')) > before ? true : undefined,
    )
    await waitFor('kraken’s socket connected again', async () =>
      (await spot('cs_spot_socket_connected', 'kraken')) === 1 ? true : undefined,
    )
  })
})
