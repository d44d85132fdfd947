// Tests of reading a result (venue facts §3.3.4, §3.3.6): settled only on closed + resolved + a binary
// outcome, the winner by label, a 0.5/0.5 split void, a missing final price graded anyway, and the
// venue's outcome standing when its own published prices point the other way.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { makeGammaEvent, resolvedGammaEvent } from '../../../test/fixtures/polymarket-bodies.ts'
import { type PolymarketMarket, parseGammaEvent } from './gamma-event.ts'
import { resolutionOf } from './gamma-resolution.ts'
import { settlementOf } from './venue-mapping.ts'

const S = 1_790_362_800
const META = { priceToBeat: 83962.48113709, finalPrice: 83988.90427316 }

function market(raw: unknown): PolymarketMarket {
  const r = parseGammaEvent(raw)
  assert.ok(r.ok, JSON.stringify(r))
  return r.market
}

describe('resolutionOf', () => {
  it('settles the constructed resolved example Up, with its final price', () => {
    const m = market(resolvedGammaEvent(S, 'up', META))
    assert.deepEqual(resolutionOf(m), {
      kind: 'settled',
      side: 'up',
      finalPrice: META.finalPrice,
      pricesDisagree: false,
    })
    assert.deepEqual(settlementOf(m), { kind: 'settled', side: 'up', priceDollars: 83_988.9 })
  })

  it('settles Down, by label, in either outcome order', () => {
    const meta = { priceToBeat: 83988.9, finalPrice: 83900.1 }
    for (const order of ['up-first', 'down-first'] as const) {
      const m = market(resolvedGammaEvent(S, 'down', meta, { order }))
      assert.deepEqual(settlementOf(m), { kind: 'settled', side: 'down', priceDollars: 83900.1 }, order)
    }
  })

  it('grades a resolved market whose eventMetadata is null (the platform gap), with no final price', () => {
    const m = market(resolvedGammaEvent(S, 'down', null))
    assert.deepEqual(settlementOf(m), { kind: 'settled', side: 'down', priceDollars: null })
  })

  it('grades with no settlement price when the final price is 0, negative, or rounds to 0.00', () => {
    // no bitcoin price is 0 (decisions §3: the price is null when the oracle did not report it)
    for (const finalPrice of [0, '0', '0.0', -1, '-83988.9', 0.004, '0.0049']) {
      const m = market(resolvedGammaEvent(S, 'up', { priceToBeat: 83_900.5, finalPrice }))
      assert.deepEqual(
        settlementOf(m),
        { kind: 'settled', side: 'up', priceDollars: null },
        String(finalPrice),
      )
    }
    const voided = market(
      resolvedGammaEvent(S, 'up', { finalPrice: '0' }, { outcomePrices: { up: '0.5', down: '0.5' } }),
    )
    assert.deepEqual(settlementOf(voided), { kind: 'void', priceDollars: null })
  })

  it('waits while open, proposed, closed but unresolved, or prices not binary', () => {
    assert.deepEqual(resolutionOf(market(makeGammaEvent({ startS: S }))), { kind: 'pending', why: 'open' })
    const proposed = market(resolvedGammaEvent(S, 'up', META, { umaResolutionStatus: 'proposed' }))
    assert.deepEqual(resolutionOf(proposed), { kind: 'pending', why: 'unresolved' })
    const cachedOpen = market(resolvedGammaEvent(S, 'up', META, { closed: false }))
    assert.equal(resolutionOf(cachedOpen).kind, 'pending', 'resolved but Gamma still says closed: false')
    const closedOnly = market(makeGammaEvent({ startS: S, closed: true }))
    assert.deepEqual(resolutionOf(closedOnly), { kind: 'pending', why: 'unresolved' })
    const midway = market(
      resolvedGammaEvent(S, 'up', META, { outcomePrices: { up: '0.9995', down: '0.0005' } }),
    )
    assert.deepEqual(resolutionOf(midway), { kind: 'pending', why: 'outcome-prices-not-final' })
    const both = market(resolvedGammaEvent(S, 'up', META, { outcomePrices: { up: '1', down: '1' } }))
    assert.equal(resolutionOf(both).kind, 'pending')
    assert.equal(settlementOf(both), null)
  })

  it('reads "1.0" and "0.0" as 1 and 0', () => {
    const m = market(resolvedGammaEvent(S, 'up', META, { outcomePrices: { up: '1.0', down: '0.0' } }))
    assert.equal(settlementOf(m)?.kind, 'settled')
  })

  it('voids a 0.5/0.5 split, keeping a final price when there is one', () => {
    const m = market(resolvedGammaEvent(S, 'up', META, { outcomePrices: { up: '0.5', down: '0.5' } }))
    assert.deepEqual(settlementOf(m), { kind: 'void', priceDollars: 83_988.9 })
  })

  it("keeps the venue's outcome when its published prices disagree, and says so", () => {
    const m = market(resolvedGammaEvent(S, 'down', META))
    const r = resolutionOf(m)
    assert.deepEqual(r, { kind: 'settled', side: 'down', finalPrice: META.finalPrice, pricesDisagree: true })
    const tie = market(resolvedGammaEvent(S, 'up', { priceToBeat: 84000, finalPrice: 84000 }))
    assert.equal((resolutionOf(tie) as { pricesDisagree: boolean }).pricesDisagree, false, 'a tie goes up')
  })
})
