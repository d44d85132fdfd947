// The BucketStore port's contract: one suite for the in-process buckets (TypeScript GCRA) and the
// Redis ones (the Lua script), proving both count remaining tokens, refill and compute Retry-After
// alike. The in-process buckets run on a clock the test moves; the Redis ones on the Redis server's
// clock, which no test can move, so their refill is waited for (test/README.md).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { BucketPolicy } from '../src/domain/token-bucket.ts'
import type { BucketStore } from '../src/ports/bucket-store.ts'
import { waitUntil } from './support/wait.ts'

export type BucketStoreFactory = {
  /** A fresh store with buckets of its own; the suite closes it. */
  create(policy: BucketPolicy): Promise<BucketStore>
  /** Moves the buckets' clock on by `ms`; absent for buckets on a clock no test holds (Redis's). */
  advance?: (ms: number) => void
}

async function takeMany(store: BucketStore, key: string, n: number) {
  const results = []
  for (let i = 0; i < n; i++) results.push(await store.take(key))
  return results
}

export function runBucketStoreContract(name: string, factory: BucketStoreFactory): void {
  function test(title: string, policy: BucketPolicy, body: (store: BucketStore) => Promise<void>): void {
    it(title, async () => {
      const store = await factory.create(policy)
      try {
        await body(store)
      } finally {
        await store.close()
      }
    })
  }

  describe(`${name} bucket store contract`, () => {
    test('counts remaining whole tokens down from the burst', { burst: 5, perSec: 1 }, async (store) => {
      const remaining = (await takeMany(store, 'k', 5)).map((r) => r.remaining)
      assert.deepEqual(remaining, [4, 3, 2, 1, 0])
    })

    test('refuses once the burst is spent, with 0 remaining and Retry-After 1', {
      burst: 3,
      perSec: 1,
    }, async (store) => {
      const results = await takeMany(store, 'k', 4)
      assert.deepEqual(
        results.map((r) => r.allowed),
        [true, true, true, false],
      )
      assert.deepEqual(results[3], { allowed: false, remaining: 0, retryAfterS: 1 })
    })

    // One token a second: slow enough that on Redis's clock, which no test holds, a pause between two
    // commands on a loaded machine cannot refill a token before the refusal is asserted (CI saw 50 ms do it).
    test('refills continuously at the configured rate', { burst: 2, perSec: 1 }, async (store) => {
      await takeMany(store, 'k', 2)
      assert.equal((await store.take('k')).allowed, false)
      const advance = factory.advance
      if (advance) {
        // one token every 1000 ms: not a moment before, and only the one
        advance(999)
        assert.equal((await store.take('k')).allowed, false)
        advance(1)
        assert.equal((await store.take('k')).allowed, true)
        assert.equal((await store.take('k')).allowed, false)
      } else {
        await waitUntil(async () => (await store.take('k')).allowed, 'a token to refill')
      }
    })

    test('rounds Retry-After up to whole seconds', { burst: 1, perSec: 0.25 }, async (store) => {
      await store.take('k')
      const refused = await store.take('k')
      assert.equal(refused.allowed, false)
      assert.equal(refused.retryAfterS, 4)
    })

    test('gives each key its own bucket', { burst: 1, perSec: 1 }, async (store) => {
      assert.equal((await store.take('x')).allowed, true)
      assert.deepEqual(await store.take('y'), { allowed: true, remaining: 0, retryAfterS: 1 })
      assert.equal((await store.take('x')).allowed, false)
    })

    test('reports ok while its store is reachable', { burst: 1, perSec: 1 }, async (store) => {
      await store.take('k')
      assert.equal(store.health(), 'ok')
    })
  })
}
