// The venue contract (test/venue-contract.ts) on the live Polymarket adapter, against the loopback
// Gamma and CLOB: the window is the current UTC quarter hour with the adapter's clock set to its
// middle (a story started in the window's last second saw it close before its quote), "after the
// close" is reached by moving that clock, and each change waits out two lookups of the window's slug.
import { DOWN_TOKEN, makeGammaEvent, UP_TOKEN } from './fixtures/polymarket-bodies.ts'
import { marketOf } from './fixtures/polymarket-fixture.ts'
import { startPolymarketVenueWorld } from './support/polymarket-venue-world.ts'
import { venueContract } from './venue-contract.ts'

const SERIES = 'btc-updown-15m'
const QUARTER = 900_000

venueContract({
  name: 'the live Polymarket adapter',
  // the earlier window's strike and the weekly restart's pause are the venue corrections of issue 30
  can: ['timeoutBooks', 'malformedBook'],
  async start() {
    const opensAt = Math.floor(Date.now() / QUARTER) * QUARTER
    const expiresAt = opensAt + QUARTER
    const slug = `${SERIES}-${opensAt / 1000}`
    const w = await startPolymarketVenueWorld({
      seed: (pm) => {
        pm.putEvent(makeGammaEvent({ startS: opensAt / 1000 }))
        pm.setBook(UP_TOKEN, [{ price: '0.54', size: '96.4' }], [{ price: '0.55', size: '64.1' }])
        pm.setBook(DOWN_TOKEN, [{ price: '0.45', size: '64.1' }], [{ price: '0.46', size: '96.4' }])
      },
      venue: { requestTimeoutMs: 300 },
      shiftMs: opensAt + QUARTER / 2 - Date.now(),
    })
    const { pm } = w
    // after the close, the window is looked up until decided and then no more: two polls are two
    // lookups of the window that follows it (the current one on the moved clock)
    const change = async (edit: (event: Record<string, unknown>) => void): Promise<number> => {
      pm.updateEvent(slug, (e) => {
        edit(e)
      })
      await w.venue.result(slug, w.now())
      await w.lookups(`${SERIES}-${expiresAt / 1000}`, 2)
      return w.now()
    }
    return {
      venue: w.venue,
      series: SERIES,
      ticker: slug,
      opensAt,
      expiresAt,
      // the price to beat is published after the window (decisions §14)
      strike: null,
      async live() {
        return { at: w.now(), asks: { up: 55, down: 46 } }
      },
      async expire() {
        w.shift(expiresAt - w.now() + 1_000)
        await w.venue.market(slug, w.now())
        await w.lookups(slug, 2)
        return w.now()
      },
      settle: async () => ({
        at: await change((e) => {
          Object.assign(e, { closed: true, eventMetadata: { priceToBeat: 84_012.48, finalPrice: 83_988.9 } })
          Object.assign(marketOf(e), {
            closed: true,
            acceptingOrders: false,
            umaResolutionStatus: 'resolved',
            outcomePrices: '["0", "1"]',
          })
        }),
        side: 'down',
      }),
      contradict: () =>
        change((e) => {
          Object.assign(e, { closed: false })
          Object.assign(marketOf(e), {
            closed: false,
            acceptingOrders: true,
            umaResolutionStatus: null,
            outcomePrices: '["0.5", "0.5"]',
          })
        }),
      async timeoutBooks() {
        pm.holdNext(1_000, { path: /\/clob\/book/ })
        return w.now()
      },
      async malformedBook() {
        pm.setBook(UP_TOKEN, [{ price: 'abc', size: '1' }], [{ price: 'x', size: '-' }])
        pm.setBook(DOWN_TOKEN, [{ price: 'abc', size: '1' }], [{ price: 'x', size: '-' }])
        return w.now()
      },
      async close() {
        pm.releaseHeld()
        await w.close()
      },
    }
  },
})
