// Tests of the venue result → Settlement mapping across the status lifecycle.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { KalshiStatus } from './market-status.ts'
import { settlementOf } from './settlement.ts'

const view = (status: KalshiStatus, result: string, expirationValue: number | null = 68433.05) => ({
  status,
  result,
  expirationValue,
})

describe('settlementOf', () => {
  it('settles yes as up and no as down once the result is decided', () => {
    for (const status of ['determined', 'amended', 'finalized'] as const) {
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

  it('voids a decided market without a yes/no result', () => {
    assert.deepEqual(settlementOf(view('finalized', '')), { kind: 'void', priceDollars: 68433.05 })
    assert.deepEqual(settlementOf(view('determined', 'scalar', null)), { kind: 'void', priceDollars: null })
  })

  it('is not decided before determination or while disputed, whatever the result says', () => {
    for (const status of ['initialized', 'active', 'inactive', 'closed', 'disputed'] as const)
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
