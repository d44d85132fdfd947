// Tests of the status → phase mapping, current and legacy vocabularies.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { isDecidedStatus, isKalshiStatus, phaseForStatus } from './market-status.ts'

describe('phaseForStatus', () => {
  it('maps every current status field value', () => {
    const expected = {
      initialized: 'upcoming',
      active: 'trading',
      inactive: 'paused',
      closed: 'closed',
      determined: 'closed',
      disputed: 'closed',
      amended: 'closed',
      finalized: 'closed',
    } as const
    for (const [status, phase] of Object.entries(expected)) {
      assert.ok(isKalshiStatus(status))
      assert.equal(phaseForStatus(status), phase, status)
    }
  })

  it('tolerates the older vocabulary', () => {
    assert.deepEqual((['open', 'unopened', 'paused', 'settled'] as const).map(phaseForStatus), [
      'trading',
      'upcoming',
      'paused',
      'closed',
    ])
  })

  it('knows no other status', () => {
    for (const bad of ['ACTIVE', 'halted', '', 'toString', 'constructor', null, 3])
      assert.equal(isKalshiStatus(bad), false)
  })
})

describe('isDecidedStatus', () => {
  it('is true from determined on, except while disputed', () => {
    assert.deepEqual(
      (['initialized', 'active', 'inactive', 'closed', 'disputed'] as const).map(isDecidedStatus),
      [false, false, false, false, false],
    )
    assert.deepEqual((['determined', 'amended', 'finalized', 'settled'] as const).map(isDecidedStatus), [
      true,
      true,
      true,
      true,
    ])
  })
})
