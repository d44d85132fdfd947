// Tests of the status → phase mapping, current and legacy vocabularies.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { isFinalStatus, isKnownStatus, phaseForStatus } from './market-status.ts'

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
      assert.ok(isKnownStatus(status))
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

  it('maps a status it does not know to a non-trading phase, never to trading', () => {
    for (const word of ['ACTIVE', 'halted', 'toString', 'constructor']) {
      assert.equal(isKnownStatus(word), false)
      assert.equal(phaseForStatus(word), 'paused', word)
    }
  })
})

describe('isFinalStatus', () => {
  it('is true for finalized, amended and legacy settled (decisions §8): determined and disputed can still change', () => {
    assert.deepEqual(
      ['initialized', 'active', 'inactive', 'closed', 'determined', 'disputed', 'halted'].map(isFinalStatus),
      [false, false, false, false, false, false, false],
    )
    assert.deepEqual(['finalized', 'amended', 'settled'].map(isFinalStatus), [true, true, true])
  })
})
