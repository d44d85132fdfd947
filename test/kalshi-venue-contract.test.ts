// The venue contract (test/venue-contract.ts) on the live Kalshi adapter, against the loopback
// fixture on the wall clock: each step changes what the fixture serves and waits out two polls.
import { makeMarket } from './fixtures/kalshi-fixture.ts'
import { MINUTE, SERIES, startKalshiVenueWorld } from './support/kalshi-venue-world.ts'
import { venueContract } from './venue-contract.ts'

venueContract({
  name: 'the live Kalshi adapter',
  can: ['voidResult', 'earlier', 'pause', 'timeoutBooks', 'malformedBook', 'malformedMarket'],
  async start() {
    const opensAt = Math.floor(Date.now() / MINUTE) * MINUTE - 5 * MINUTE
    const expiresAt = opensAt + 15 * MINUTE
    const market = makeMarket({
      openTime: opensAt,
      closeTime: expiresAt,
      status: 'active',
      floorStrike: 68_421.37,
    })
    const earlier = makeMarket({
      openTime: opensAt - 15 * MINUTE,
      closeTime: opensAt,
      status: 'finalized',
      floorStrike: 68_400.5,
      result: 'yes',
      expirationValue: '68,410.12',
    })
    const w = await startKalshiVenueWorld({
      seed: (k) => {
        k.addMarket(earlier)
        k.addMarket(market)
        // YES ask = 1 − best NO bid, NO ask = 1 − best YES bid
        k.setOrderbook(market.ticker, { yes: [['0.4200', '13.00']], no: [['0.5500', '2.00']] })
      },
      venue: { requestTimeoutMs: 300 },
    })
    const { kalshi } = w
    // the venue's own clock is the wall clock: a market closed by status is past its window to it
    let closedAt = Date.now()
    const change = async (patch: Record<string, unknown>): Promise<number> => {
      kalshi.updateMarket(market.ticker, patch)
      await w.polls(2)
      // the result of a market out of the close window is looked up by ticker: ask once, then poll again
      await w.venue.result(market.ticker, Date.now())
      await w.polls(2)
      return Math.max(Date.now(), closedAt)
    }
    return {
      venue: w.venue,
      series: SERIES,
      ticker: market.ticker,
      opensAt,
      // the adapter's window is the venue's; the contract's "after the close" is its closed status here
      expiresAt,
      strike: 68_421.37,
      earlier: { opensAt: opensAt - 15 * MINUTE, strike: 68_400.5 },
      async live() {
        return { at: Date.now(), asks: { up: 45, down: 58 } }
      },
      async expire() {
        closedAt = expiresAt
        await change({ status: 'closed' })
        return expiresAt
      },
      async settle() {
        return {
          at: await change({ status: 'finalized', result: 'no', expiration_value: '68,411.07' }),
          side: 'down',
        }
      },
      contradict: () => change({ status: 'active', result: '' }),
      voidResult: () => change({ status: 'finalized', result: 'void' }),
      async pause() {
        kalshi.setExchangeStatus({ exchange_active: true, trading_active: false })
        await w.polls(2)
        return Date.now()
      },
      async resume() {
        kalshi.setExchangeStatus({ exchange_active: true, trading_active: true })
        await w.polls(2)
        return Date.now()
      },
      async timeoutBooks() {
        kalshi.holdNext(1_000, { path: /orderbook/ })
        return Date.now()
      },
      async malformedBook() {
        kalshi.setOrderbook(market.ticker, { yes: [['forty-two', '13.00']], no: [['0.5500', 'x']] })
        return Date.now()
      },
      async malformedMarket() {
        kalshi.injectMalformed({ ticker: `${SERIES}-26SEP251515-15`, status: 42 })
        await w.polls(2)
        return Date.now()
      },
      async close() {
        kalshi.releaseHeld()
        await w.close()
      },
    }
  },
})
