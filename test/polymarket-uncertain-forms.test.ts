// Each fact the venue reference marks uncertain [U] (or "may be X or Y") that the Polymarket adapter
// reads, served by the fixture Gamma and CLOB in every form the reference allows: each form is read
// the same way, and none is mistaken for another (docs/venues.md, "Uncertain venue facts: the forms
// accepted").
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { slugForStart, windowStartS } from '../src/feeds/polymarket/window-slug.ts'
import { DOWN_TOKEN, makeGammaEvent, resolvedGammaEvent, UP_TOKEN } from './fixtures/polymarket-bodies.ts'
import type { FixtureBookSide, PolymarketFixture } from './fixtures/polymarket-fixture.ts'
import { startPolymarketVenueWorld } from './support/polymarket-venue-world.ts'
import { asksOf } from './support/venue-quote.ts'
import { waitFor } from './support/wait.ts'

const MINUTE = 60_000
const S = windowStartS(Date.now())
const SHIFT = S * 1000 + 7 * MINUTE - Date.now()
const CURRENT = slugForStart(S)
const PREVIOUS = slugForStart(S - 900)

function seedLive(pm: PolymarketFixture) {
  pm.putEvent(makeGammaEvent({ startS: S }))
  pm.putEvent(makeGammaEvent({ startS: S + 900 }))
}

describe('Polymarket › uncertain facts, every form', () => {
  for (const [form, metadata] of [
    ['null', null],
    ['absent', 'absent'],
    ['an empty object', {}],
  ] as const) {
    it(`grades a resolved window whose eventMetadata is ${form}, without a final price once the grace is over`, async () => {
      const w = await startPolymarketVenueWorld({
        shiftMs: SHIFT,
        seed: (pm) => {
          seedLive(pm)
          pm.putEvent(resolvedGammaEvent(S - 900, 'down', metadata))
        },
        venue: { metadataGraceMs: 5 * MINUTE },
      })
      try {
        assert.equal(await w.venue.result(PREVIOUS, w.now()), null, 'the final price may still come')
        w.shift(5 * MINUTE)
        assert.deepEqual(await w.venue.result(PREVIOUS, w.now()), {
          kind: 'settled',
          side: 'down',
          priceDollars: null,
        })
        assert.deepEqual(w.rejected, [])
      } finally {
        await w.close()
      }
    })
  }

  it('reads the price to beat and the final price as JSON numbers or decimal strings alike', async () => {
    for (const meta of [
      { priceToBeat: 83_962.48113709, finalPrice: 83_988.90427316 },
      { priceToBeat: '83962.48113709', finalPrice: '83988.90427316' },
    ]) {
      const w = await startPolymarketVenueWorld({
        shiftMs: SHIFT,
        seed: (pm) => {
          seedLive(pm)
          pm.putEvent(resolvedGammaEvent(S - 900, 'up', meta))
        },
      })
      try {
        assert.equal((await w.venue.market(PREVIOUS, w.now()))?.strikePriceDollars, 83_962.48)
        assert.deepEqual(await w.venue.result(PREVIOUS, w.now()), {
          kind: 'settled',
          side: 'up',
          priceDollars: 83_988.9,
        })
      } finally {
        await w.close()
      }
    }
  })

  it('leaves the strike null while the price to beat is unpublished, and takes it when it appears after the end', async () => {
    const w = await startPolymarketVenueWorld({
      shiftMs: SHIFT,
      seed: (pm) => {
        seedLive(pm)
        // the previous window resolved without a final price: nothing to carry over
        pm.putEvent(resolvedGammaEvent(S - 900, 'up', null))
      },
    })
    try {
      assert.equal((await w.venue.market(CURRENT, w.now()))?.strikePriceDollars, null)
      w.shift(9 * MINUTE) // two minutes past the end, not resolved yet
      w.pm.putEvent(makeGammaEvent({ startS: S, eventMetadata: { priceToBeat: 83_962.48113709 } }))
      const late = await waitFor('the late price to beat', () =>
        w.venue.market(CURRENT, w.now()).then((m) => (m?.strikePriceDollars ? m : undefined)),
      )
      assert.deepEqual([late.phase, late.strikePriceDollars], ['closed', 83_962.48])
    } finally {
      await w.close()
    }
  })

  for (const status of [null, 'absent', 'proposed'] as const) {
    it(`waits while umaResolutionStatus is ${JSON.stringify(status)} though the market is closed, then settles on "resolved"`, async () => {
      const meta = { priceToBeat: 83_962.48, finalPrice: 83_988.9 }
      const w = await startPolymarketVenueWorld({
        shiftMs: SHIFT,
        seed: (pm) => {
          seedLive(pm)
          pm.putEvent(
            resolvedGammaEvent(S - 900, 'up', meta, {
              umaResolutionStatus: status,
              outcomePrices: { up: '1', down: '0' },
            }),
          )
        },
      })
      try {
        assert.equal(await w.venue.result(PREVIOUS, w.now()), null)
        // an unresolved window is read again on the adapter's clock: move it rather than wait
        w.shift(MINUTE)
        await w.lookups(PREVIOUS, 1)
        assert.equal(await w.venue.result(PREVIOUS, w.now()), null)
        w.pm.putEvent(resolvedGammaEvent(S - 900, 'up', meta))
        w.shift(MINUTE)
        const settled = await waitFor('the result once resolved', () =>
          w.venue.result(PREVIOUS, w.now()).then((r) => r ?? undefined),
        )
        assert.deepEqual(settled, { kind: 'settled', side: 'up', priceDollars: 83_988.9 })
      } finally {
        await w.close()
      }
    })
  }

  it('reads outcomes, outcome prices and token ids already decoded into arrays, Down first, by label', async () => {
    const w = await startPolymarketVenueWorld({
      shiftMs: SHIFT,
      seed: (pm) => {
        pm.putEvent(makeGammaEvent({ startS: S, arrays: 'decoded', order: 'down-first' }))
        pm.putEvent(makeGammaEvent({ startS: S + 900 }))
        pm.putEvent(
          resolvedGammaEvent(
            S - 900,
            'down',
            { priceToBeat: 84_000, finalPrice: 83_900 },
            { arrays: 'decoded' },
          ),
        )
      },
    })
    try {
      const live = await w.venue.market(CURRENT, w.now())
      assert.deepEqual(live?.venue.refs, {
        slug: CURRENT,
        conditionId: '0x3b30b1ce5d5c8b574f8a1c7fecae6a0ae0348f92c1409fba12ba68f46d2c43ff',
        upTokenId: UP_TOKEN,
        downTokenId: DOWN_TOKEN,
      })
      assert.deepEqual(await w.venue.result(PREVIOUS, w.now()), {
        kind: 'settled',
        side: 'down',
        priceDollars: 83_900,
      })
    } finally {
      await w.close()
    }
  })

  for (const [form, empty] of [
    ['[]', []],
    ['null', null],
    ['left out', undefined],
  ] as const) {
    it(`reads an empty book side sent as ${form} as no price on that side`, async () => {
      const w = await startPolymarketVenueWorld({
        shiftMs: SHIFT,
        seed: (pm) => {
          seedLive(pm)
          pm.setBook(UP_TOKEN, [{ price: '0.54', size: '96.4' }], empty as FixtureBookSide)
          pm.setBook(DOWN_TOKEN, empty as FixtureBookSide, [{ price: '0.46', size: '10' }])
        },
      })
      try {
        assert.deepEqual(asksOf(await w.venue.quote(CURRENT, w.now())), {
          upAskCents: null,
          downAskCents: 46,
        })
        assert.deepEqual(w.rejected, [])
      } finally {
        await w.close()
      }
    })
  }

  it('reads levels with numbers where strings are documented, skipping levels of no size', async () => {
    const w = await startPolymarketVenueWorld({
      shiftMs: SHIFT,
      seed: (pm) => {
        seedLive(pm)
        pm.setBook(
          UP_TOKEN,
          [{ price: 0.54, size: 96.4 }],
          [
            { price: 0.551, size: 0 },
            { price: 0.555, size: 12 },
          ],
        )
        pm.setBook(DOWN_TOKEN, [], [{ price: 0.456, size: 10 }])
      },
    })
    try {
      assert.deepEqual(asksOf(await w.venue.quote(CURRENT, w.now())), {
        upAskCents: 55.5,
        downAskCents: 45.6,
      })
    } finally {
      await w.close()
    }
  })
})
