import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { createClient } from 'redis'
import { systemClock } from '../src/main/system-clock.ts'
import type { BucketStore } from '../src/ports/bucket-store.ts'
import { createRedisBucketStore } from '../src/store/redis/redis-bucket-store.ts'
import { runBucketStoreContract } from './bucket-store-contract.ts'
import { deletePrefix, REDIS_TEST_URL, startPrivateRedis, uniquePrefix } from './support/redis.ts'
import { waitUntil, within } from './support/wait.ts'

const silent = { warn: () => undefined, info: () => undefined }

async function takeMany(stores: BucketStore[], key: string, n: number) {
  const results = []
  for (let i = 0; i < n; i++) results.push(await stores[i % stores.length]!.take(key))
  return results
}

// RedisBucketStore against the bucket store contract, plus what only a shared Redis can show:
// replicas sharing buckets, prefixes kept apart, and the in-process fallback during an outage.
const contractPrefixes: string[] = []
runBucketStoreContract('RedisBucketStore', {
  create(policy) {
    const prefix = uniquePrefix('contract')
    contractPrefixes.push(prefix)
    return createRedisBucketStore({
      ...policy,
      url: REDIS_TEST_URL,
      prefix,
      clock: systemClock,
      logger: silent,
      // the contract counts Redis's tokens: a take slower than the 50 ms default (a loaded CI run)
      // would be answered by the in-process fallback's fresh bucket instead; the timeout has its own tests
      commandTimeoutMs: 5_000,
    })
  },
})
after(async () => {
  for (const p of contractPrefixes) await deletePrefix(p)
})

describe('RedisBucketStore', () => {
  const prefixes: string[] = []
  const open = (
    prefix: string,
    overrides: Partial<{ burst: number; perSec: number; url: string; commandTimeoutMs: number }> = {},
  ) =>
    createRedisBucketStore({
      url: overrides.url ?? REDIS_TEST_URL,
      prefix,
      burst: overrides.burst ?? 20,
      perSec: overrides.perSec ?? 1,
      commandTimeoutMs: overrides.commandTimeoutMs,
      clock: systemClock,
      logger: silent,
    })
  after(async () => {
    for (const p of prefixes) await deletePrefix(p)
  })

  it('shares one bucket between two replicas: 20 admitted in all, then refused', async () => {
    const prefix = uniquePrefix('shared')
    prefixes.push(prefix)
    // a loaded machine can hold a step past the 50 ms production timeout: each replica would then
    // fall back to a bucket of its own, which is not what this test is about
    // and a slow refill (a token per 100 s), so a slow run's elapsed time adds no token either
    const a = await open(prefix, { commandTimeoutMs: 5_000, perSec: 0.01 })
    const b = await open(prefix, { commandTimeoutMs: 5_000, perSec: 0.01 })
    try {
      const results = await takeMany([a, b], '203.0.113.7', 21)
      assert.deepEqual(
        results.slice(0, 20).map((r) => r.allowed),
        Array(20).fill(true),
      )
      assert.equal(results[20]!.allowed, false)
      assert.equal(results[20]!.remaining, 0)
      const wait = results[20]!.retryAfterS
      assert.ok(wait > 90 && wait <= 100, `Retry-After ${wait}: the one token the shared bucket refills next`)
      assert.equal(a.health(), 'ok')
    } finally {
      await a.close()
      await b.close()
    }
  })

  it('keeps different prefixes apart', async () => {
    const p1 = uniquePrefix('iso1')
    const p2 = uniquePrefix('iso2')
    prefixes.push(p1, p2)
    // as above: Redis's buckets, not the fallback's, and no token refilled by a slow run
    const a = await open(p1, { burst: 1, perSec: 0.01, commandTimeoutMs: 5_000 })
    const b = await open(p2, { burst: 1, perSec: 0.01, commandTimeoutMs: 5_000 })
    try {
      assert.equal((await a.take('x')).allowed, true)
      assert.equal((await a.take('y')).allowed, true)
      assert.equal((await b.take('x')).allowed, true)
      assert.equal((await a.take('x')).allowed, false)
    } finally {
      await a.close()
      await b.close()
    }
  })

  it('falls back to an in-process bucket and reports degraded when Redis cannot be reached', async () => {
    const s = await open(uniquePrefix('down'), { url: 'redis://127.0.0.1:1', burst: 2 })
    try {
      const results = await takeMany([s], 'k', 3)
      assert.deepEqual(
        results.map((r) => r.allowed),
        [true, true, false],
      )
      assert.equal(s.health(), 'degraded')
    } finally {
      await s.close()
    }
  })

  it('survives Redis stopping and coming back: never throws, then shares buckets again', async () => {
    const redis = await startPrivateRedis()
    // once Redis is back, a step held past the 50 ms production timeout on a loaded machine would
    // answer from the in-process fallback's own full bucket, and a slow run's elapsed second would
    // refill one: neither is what this test is about (a 4th take was admitted in a loaded npm test)
    const s = await open('cs:', { url: redis.url, burst: 3, commandTimeoutMs: 5_000, perSec: 0.01 })
    try {
      assert.equal((await s.take('k')).allowed, true)
      await redis.stop()
      // Every call during the outage is answered, from the in-process fallback.
      for (let i = 0; i < 5; i++) await s.take('k')
      assert.equal(s.health(), 'degraded')
      await redis.start()
      await waitUntil(
        async () => {
          await s.take('other')
          return s.health() === 'ok'
        },
        'the store to share buckets in Redis again',
        10_000,
      )
      const back = await takeMany([s], 'fresh', 4)
      assert.deepEqual(
        back.map((r) => r.allowed),
        [true, true, true, false],
      )
    } finally {
      await s.close()
      await redis.stop()
    }
  })
  it('does not call an answer late that came while its own event loop stalled past the timeout', async () => {
    const prefix = uniquePrefix('stall')
    prefixes.push(prefix)
    const s = await open(prefix, { commandTimeoutMs: 50 })
    try {
      assert.equal((await s.take('warm')).allowed, true)
      for (let i = 0; i < 5; i++) {
        const taken = s.take(`stalled-${i}`)
        // the command is on the wire; then the loop stalls 10× the timeout while Redis answers
        await nextTurn()
        const until = performance.now() + 500
        while (performance.now() < until);
        assert.equal((await taken).allowed, true)
        assert.equal(s.health(), 'ok', `stall ${i}: the circuit stays closed`)
      }
    } finally {
      await s.close()
    }
  })

  it('opens its circuit on a paused Redis after one command timeout, logs once each way, and closes when Redis answers', async () => {
    const redis = await startPrivateRedis()
    const lines: string[] = []
    const logger = {
      warn: (_: unknown, msg?: string) => void lines.push(`warn ${msg}`),
      info: (_: unknown, msg?: string) => void lines.push(`info ${msg}`),
    }
    const s = await createRedisBucketStore({
      url: redis.url,
      prefix: 'cs:',
      burst: 20,
      perSec: 1,
      clock: systemClock,
      logger,
      commandTimeoutMs: 40,
      probeEveryMs: 100,
    })
    try {
      assert.equal((await s.take('k')).allowed, true)
      redis.pause()
      // Requests in flight when Redis stops answering are answered from the fallback once their
      // command times out, while Redis is still paused (nothing else could answer them)…
      const inFlight = await within(
        Promise.all([s.take('k'), s.take('k'), s.take('j')]),
        'the takes in flight to be answered while Redis is paused',
      )
      assert.deepEqual(
        inFlight.map((r) => r.allowed),
        [true, true, true],
      )
      assert.equal(s.health(), 'degraded')
      // …and later ones do not wait at all: each is answered before the event loop turns, so before
      // any reply from Redis or any timer could have come into it.
      for (let i = 0; i < 50; i++) {
        const answered = await Promise.race([s.take('k').then(() => true), nextTurn().then(() => false)])
        assert.ok(answered, `take ${i} with the circuit open waited for something`)
      }
      redis.resume()
      await waitUntil(() => s.health() === 'ok', 'the circuit to close once Redis answers')
      assert.deepEqual(
        lines.map((l) => l.split(':')[0]),
        ['warn Redis circuit open', 'info Redis circuit closed'],
      )
    } finally {
      redis.resume()
      await s.close()
      await redis.stop()
    }
  })
  it('keeps its circuit open while Redis answers PING but refuses bucket writes, and closes once they work', async () => {
    // A read-only replica after a fail-over, `maxmemory` reached, or MISCONF (a failing snapshot)
    // all answer PING yet refuse the bucket's write: rate limiting is per replica meanwhile, and
    // health must keep saying so rather than flap back to ok with every probe.
    const redis = await startPrivateRedis()
    const admin = createClient({ url: redis.url })
    await admin.connect()
    const lines: string[] = []
    const logger = {
      warn: (_: unknown, msg?: string) => void lines.push(`warn ${msg}`),
      info: (_: unknown, msg?: string) => void lines.push(`info ${msg}`),
    }
    const s = await createRedisBucketStore({
      url: redis.url,
      prefix: 'cs:',
      burst: 20,
      perSec: 1,
      clock: systemClock,
      logger,
      probeEveryMs: 20,
    })
    /** Commands Redis was sent that a probe could be: PINGs and script runs, answered or refused. */
    const probeLike = async () => {
      let n = 0
      for (const line of (await admin.info('commandstats')).split('\n')) {
        if (!/^cmdstat_(ping|evalsha|eval):/.test(line)) continue
        for (const m of line.matchAll(/(?:^|,|:)(?:calls|rejected_calls|failed_calls)=(\d+)/g))
          n += Number(m[1])
      }
      return n
    }
    try {
      assert.equal((await s.take('k')).allowed, true)
      await admin.sendCommand(['REPLICAOF', '127.0.0.1', '1'])
      assert.equal((await s.take('k')).allowed, true, 'answered from the fallback')
      assert.equal(s.health(), 'degraded')
      const tripped = await probeLike()
      await waitUntil(
        async () => (await probeLike()) >= tripped + 3,
        'three probes after the circuit opened',
        5000,
      )
      assert.equal(s.health(), 'degraded')
      assert.deepEqual(
        lines.map((l) => l.split(':')[0]),
        ['warn Redis circuit open'],
      )
      await admin.sendCommand(['REPLICAOF', 'NO', 'ONE'])
      await waitUntil(() => s.health() === 'ok', 'the circuit to close once Redis takes writes again')
      assert.deepEqual(
        lines.map((l) => l.split(':')[0]),
        ['warn Redis circuit open', 'info Redis circuit closed'],
      )
    } finally {
      await s.close()
      await admin.close()
      await redis.stop()
    }
  })
})
