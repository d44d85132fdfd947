// Tests of the engine lease logic against an in-memory lease with the store's semantics.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Logger } from '../ports/logger.ts'
import type { Lease, Store } from '../ports/store.ts'
import { createLeadership } from './leadership.ts'

const quiet: Logger = { info() {}, warn() {}, error() {}, debug() {} }

function memoryLease() {
  let lease: Lease = { holder: '', expiresAt: Number.NEGATIVE_INFINITY }
  let calls = 0
  let failing = false
  const store: Pick<Store, 'acquireLease' | 'releaseLease'> = {
    async acquireLease(holder, now, ttlMs) {
      calls++
      if (failing) throw new Error('store unavailable')
      if (lease.holder === holder || lease.expiresAt <= now) lease = { holder, expiresAt: now + ttlMs }
      return { ...lease }
    },
    async releaseLease(holder) {
      if (lease.holder === holder) lease = { holder: '', expiresAt: Number.NEGATIVE_INFINITY }
    },
  }
  return {
    store,
    calls: () => calls,
    fail: (on: boolean) => {
      failing = on
    },
  }
}

describe('createLeadership', () => {
  it('takes a free lease and renews it every third of its ttl', async () => {
    const m = memoryLease()
    const a = createLeadership({ store: m.store, holderId: 'a', ttlMs: 6_000, logger: quiet, errors: quiet })
    assert.equal(await a.check(0), 'gained')
    assert.equal(a.isLeader(0), true)
    assert.equal(await a.check(1_000), 'kept')
    assert.equal(m.calls(), 1)
    assert.equal(await a.check(2_000), 'kept')
    assert.equal(m.calls(), 2)
  })

  it('keeps a standby waiting, then hands over within ttl + 0.5 s of the leader going quiet', async () => {
    const m = memoryLease()
    const a = createLeadership({ store: m.store, holderId: 'a', ttlMs: 6_000, logger: quiet, errors: quiet })
    const b = createLeadership({ store: m.store, holderId: 'b', ttlMs: 6_000, logger: quiet, errors: quiet })
    assert.equal(await a.check(0), 'gained')
    let tookOver = Number.NaN
    for (let t = 0; t <= 10_000; t += 250) {
      if ((await b.check(t)) === 'gained') {
        tookOver = t
        break
      }
      assert.equal(b.isLeader(t), false)
    }
    assert.ok(tookOver >= 6_000 && tookOver <= 6_500, `took over at ${tookOver}`)
    assert.equal(await a.check(tookOver + 250), 'lost')
    assert.equal(a.isLeader(tookOver + 250), false)
  })

  it('stops leading before the lease lapses when renewals fail', async () => {
    const m = memoryLease()
    const a = createLeadership({ store: m.store, holderId: 'a', ttlMs: 6_000, logger: quiet, errors: quiet })
    await a.check(0)
    m.fail(true)
    assert.equal(await a.check(2_000), 'kept')
    assert.equal(a.isLeader(4_999), true)
    assert.equal(a.isLeader(5_000), false)
    assert.equal(await a.check(5_000), 'lost')
    m.fail(false)
    assert.equal(await a.check(7_000), 'gained')
  })

  it('releases the lease so a standby can take it at once', async () => {
    const m = memoryLease()
    const a = createLeadership({ store: m.store, holderId: 'a', ttlMs: 6_000, logger: quiet, errors: quiet })
    const b = createLeadership({ store: m.store, holderId: 'b', ttlMs: 6_000, logger: quiet, errors: quiet })
    await a.check(0)
    assert.equal(await b.check(0), 'standby')
    await a.release()
    assert.equal(a.isLeader(1), false)
    assert.equal(await b.check(2_000), 'gained')
  })
})
