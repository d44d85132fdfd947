import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createManualClock as manualClock } from '../../../test/support/manual-clock.ts'
import { createMemoryBucketStore } from './memory-bucket-store.ts'

describe('createMemoryBucketStore', () => {
  test('gives each key its own bucket of burst tokens', async () => {
    const clock = manualClock()
    const store = createMemoryBucketStore({ burst: 3, perSec: 1, clock })
    const a = [await store.take('a'), await store.take('a'), await store.take('a'), await store.take('a')]
    assert.deepEqual(
      a.map((r) => r.allowed),
      [true, true, true, false],
    )
    assert.deepEqual(await store.take('b'), { allowed: true, remaining: 2, retryAfterS: 1 })
  })

  test('a refused take reports 0 remaining and the seconds until the next token', async () => {
    const clock = manualClock()
    const store = createMemoryBucketStore({ burst: 1, perSec: 0.5, clock })
    await store.take('a')
    clock.advance(500)
    assert.deepEqual(await store.take('a'), { allowed: false, remaining: 0, retryAfterS: 2 })
  })

  test('refills with the injected clock', async () => {
    const clock = manualClock()
    const store = createMemoryBucketStore({ burst: 2, perSec: 1, clock })
    await store.take('a')
    await store.take('a')
    assert.equal((await store.take('a')).allowed, false)
    clock.advance(1000)
    assert.equal((await store.take('a')).allowed, true)
  })

  test('sweeps buckets that are full again, which changes nothing for their clients', async () => {
    const clock = manualClock()
    const store = createMemoryBucketStore({ burst: 5, perSec: 1, clock, sweepEveryMs: 10_000 })
    await store.take('a')
    await store.take('b')
    assert.equal(store.size(), 2)
    clock.advance(10_000)
    assert.deepEqual(await store.take('c'), { allowed: true, remaining: 4, retryAfterS: 1 })
    assert.equal(store.size(), 1)
    assert.equal((await store.take('a')).remaining, 4)
  })

  test('never holds more than maxEntries buckets', async () => {
    const clock = manualClock()
    const store = createMemoryBucketStore({ burst: 5, perSec: 1, clock, maxEntries: 100 })
    for (let i = 0; i < 1000; i++) await store.take(`k${i}`)
    assert.ok(store.size() <= 100)
  })

  test('IPv4 keys (as numbers) have buckets of their own, refill and are swept like the others', async () => {
    const clock = manualClock()
    const store = createMemoryBucketStore({ burst: 2, perSec: 1, clock, sweepEveryMs: 10_000 })
    const a = -1_062_731_519 // 192.0.2.1 as an int32
    assert.deepEqual(
      [(await store.take(a)).allowed, (await store.take(a)).allowed, (await store.take(a)).allowed],
      [true, true, false],
    )
    assert.equal((await store.take(a + 1)).remaining, 1, 'the next address has its own bucket')
    assert.equal((await store.take('192.0.2.1')).remaining, 1, 'a string key is another bucket')
    clock.advance(1000)
    assert.equal((await store.take(a)).allowed, true)
    assert.equal(store.size(), 3)
    clock.advance(10_000)
    await store.take(7)
    assert.equal(store.size(), 1, 'the full buckets were swept')
  })

  test('an address flood with every bucket in use stays under maxEntries, IPv4 and others alike', async () => {
    const clock = manualClock()
    // one request an hour: no bucket is ever full again during the test
    const store = createMemoryBucketStore({ burst: 5, perSec: 1 / 3600, clock, maxEntries: 100 })
    for (let i = 0; i < 1000; i++) {
      await store.take(i * 7919)
      await store.take(`2001:db8:${i}::/64`)
      assert.ok(store.size() <= 100)
    }
    // the latest address is held, whichever were dropped
    assert.equal((await store.take(999 * 7919)).remaining, 3)
  })

  test('reports healthy and forgets everything on close', async () => {
    const store = createMemoryBucketStore({ burst: 1, perSec: 1, clock: manualClock() })
    await store.take('a')
    assert.equal(store.health(), 'ok')
    await store.close()
    assert.equal(store.size(), 0)
  })
})
