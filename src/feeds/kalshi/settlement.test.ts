// Tests of the venue result → Settlement mapping across the status lifecycle.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { settlementOf } from './settlement.ts'

const view = (
  status: string,
  result: string,
  expirationValue: number | null = 68433.05,
  settlementValueMillionths: number | null = null,
) => ({ status, result, expirationValue, settlementValueMillionths })

describe('settlementOf', () => {
  it('settles yes as up and no as down once the result is final', () => {
    for (const status of ['settled', 'finalized'] as const) {
      assert.deepEqual(settlementOf(view(status, 'yes')), {
        kind: 'settled',
        side: 'up',
        priceDollars: 68433.05,
      })
      assert.deepEqual(settlementOf(view(status, 'no')), {
        kind: 'settled',
        side: 'down',
        priceDollars: 68433.05,
      })
    }
  })

  it('keeps a missing settlement price as null', () => {
    assert.deepEqual(settlementOf(view('finalized', 'no', null)), {
      kind: 'settled',
      side: 'down',
      priceDollars: null,
    })
  })

  it('waits on a final status whose result is still empty: missing data resolves No, never void', () => {
    assert.equal(settlementOf(view('finalized', '')), null)
    assert.equal(settlementOf(view('settled', '', null)), null)
  })

  it('settles on amended, the result re-determined after a dispute (decisions §8)', () => {
    assert.deepEqual(settlementOf(view('amended', 'yes')), {
      kind: 'settled',
      side: 'up',
      priceDollars: 68433.05,
    })
    assert.deepEqual(settlementOf(view('amended', 'no')), {
      kind: 'settled',
      side: 'down',
      priceDollars: 68433.05,
    })
    assert.equal(settlementOf(view('amended', '')), null)
  })

  it('waits on determined and disputed: the result can still be challenged', () => {
    assert.equal(settlementOf(view('determined', 'yes')), null)
    assert.equal(settlementOf(view('disputed', 'no')), null)
  })

  it('voids only on the venue’s own word: a final result that is neither yes nor no', () => {
    assert.deepEqual(settlementOf(view('finalized', 'scalar', null)), { kind: 'void', priceDollars: null })
    assert.deepEqual(settlementOf(view('finalized', 'void')), { kind: 'void', priceDollars: 68433.05 })
  })

  it('waits while the payout contradicts the result (a half-written record)', () => {
    assert.equal(settlementOf(view('finalized', 'yes', 68433.05, 0)), null)
    assert.equal(settlementOf(view('finalized', 'no', 68433.05, 1_000_000)), null)
    assert.deepEqual(settlementOf(view('finalized', 'yes', 68433.05, 1_000_000)), {
      kind: 'settled',
      side: 'up',
      priceDollars: 68433.05,
    })
  })

  it('is not final before finalized, at determined, or while disputed, whatever the result says', () => {
    for (const status of ['initialized', 'active', 'inactive', 'closed', 'determined', 'disputed', 'halted'])
      assert.equal(settlementOf(view(status, 'yes')), null, status)
  })

  it('treats the legacy settled status like finalized', () => {
    assert.deepEqual(settlementOf(view('settled', 'yes')), {
      kind: 'settled',
      side: 'up',
      priceDollars: 68433.05,
    })
  })
})
