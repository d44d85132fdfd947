import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, test } from 'node:test'
import { createGate } from '../../test/support/gate.ts'
import { createManualClock } from '../../test/support/manual-clock.ts'
import type { ApiKeyRecord } from '../domain/api-key.ts'
import type { StoredEvent } from '../domain/events.ts'
import type { Store } from '../ports/store.ts'
import type { LogFollower } from '../stream/log-follower.ts'
import { createKeyAuth, parseBearer } from './key-auth.ts'

const KEY = `cs_${'a'.repeat(27)}`
const digest = (k: string) => createHash('sha256').update(k).digest('hex')

function world(
  initial: ApiKeyRecord[] = [record()],
  opts: { warn?: (fields: unknown, msg?: string) => void; touchFails?: () => boolean } = {},
) {
  const clock = createManualClock(1_000_000)
  const gate = createGate()
  const keys = new Map(initial.map((r) => [r.digest, r]))
  const touched: Map<string, number>[] = []
  let lookups = 0
  const store = {
    async findKeyByDigest(d: string) {
      lookups++
      // A read answers the store as it was when the read began, however late the answer arrives.
      const found = keys.get(d) ?? null
      await gate.pass()
      return found
    },
    async touchKeys(batch: ReadonlyMap<string, number>) {
      if (opts.touchFails?.()) throw new Error('store unavailable')
      touched.push(new Map(batch))
    },
  } as unknown as Store
  const listeners: ((events: readonly StoredEvent[]) => void)[] = []
  const follower = {
    onEvents(l: (e: readonly StoredEvent[]) => void) {
      listeners.push(l)
      return () => {}
    },
  }
  const auth = createKeyAuth({
    store,
    follower: follower as unknown as LogFollower,
    wallClock: clock,
    clock,
    logger: { warn: opts.warn ?? (() => {}) },
  })
  return {
    auth,
    keys,
    touched,
    lookups: () => lookups,
    advance: clock.advance,
    emit(type: StoredEvent['type']) {
      for (const l of listeners)
        l([{ type, series: '', ticker: '', data: '{}', seq: 1, appendedAt: clock.now() }])
    },
    /** Makes the next store lookups wait until the returned function is called. */
    hold: gate.hold,
  }
}

function record(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: 'k1',
    label: 'test',
    digest: digest(KEY),
    prefix: KEY.slice(0, 10),
    createdAt: 0,
    lastUsedAt: null,
    revokedAt: null,
    ...overrides,
  }
}

describe('parseBearer', () => {
  test('reads the token with any capitalisation of the scheme', () => {
    assert.deepEqual(parseBearer(`Bearer ${KEY}`), { kind: 'token', token: KEY })
    assert.deepEqual(parseBearer(`bEaReR ${KEY}`), { kind: 'token', token: KEY })
  })

  test('tells a missing header from a malformed one', () => {
    assert.deepEqual(parseBearer(undefined), { kind: 'missing' })
    assert.deepEqual(parseBearer('  '), { kind: 'missing' })
    for (const h of ['Bearer', 'Basic abc', `Bearer ${KEY} extra`, KEY, 'Bearer a"b']) {
      assert.deepEqual(parseBearer(h), { kind: 'malformed' }, h)
    }
  })
})

describe('createKeyAuth', () => {
  test('accepts a known key and answers repeated checks from memory', async () => {
    const w = world()
    for (let i = 0; i < 5; i++)
      assert.deepEqual(await w.auth.check(`Bearer ${KEY}`), { ok: true, keyId: 'k1' })
    assert.equal(w.lookups(), 1)
    await w.auth.close()
  })

  test('rejects missing, malformed, unknown and revoked keys', async () => {
    const revokedKey = `cs_${'r'.repeat(27)}`
    const w = world([record(), record({ id: 'k2', digest: digest(revokedKey), revokedAt: 5 })])
    assert.deepEqual(await w.auth.check(undefined), { ok: false, reason: 'missing' })
    assert.deepEqual(await w.auth.check('Bearer nope'), { ok: false, reason: 'invalid' })
    assert.deepEqual(await w.auth.check(`Bearer cs_${'u'.repeat(27)}`), { ok: false, reason: 'invalid' })
    assert.deepEqual(await w.auth.check(`Bearer ${revokedKey}`), { ok: false, reason: 'invalid' })
    await w.auth.close()
  })

  test('never looks up a token that cannot be a key', async () => {
    const w = world()
    await w.auth.check('Bearer not-a-key')
    await w.auth.check(`Bearer cs_${'x'.repeat(500)}`)
    assert.equal(w.lookups(), 0)
    await w.auth.close()
  })

  test('drops every cached key on a key.changed event', async () => {
    const w = world()
    await w.auth.check(`Bearer ${KEY}`)
    w.keys.set(digest(KEY), record({ revokedAt: 1 }))
    w.emit('key.changed')
    assert.deepEqual(await w.auth.check(`Bearer ${KEY}`), { ok: false, reason: 'invalid' })
    await w.auth.close()
  })

  test('stops accepting a revoked key within 5 s even when no event arrives', async () => {
    const w = world()
    await w.auth.check(`Bearer ${KEY}`)
    w.keys.set(digest(KEY), record({ revokedAt: 1 }))
    w.advance(3999)
    assert.equal((await w.auth.check(`Bearer ${KEY}`)).ok, true, 'still cached just before expiry')
    w.advance(1)
    assert.equal((await w.auth.check(`Bearer ${KEY}`)).ok, false)
    await w.auth.close()
  })

  test('remembers an unknown key briefly, then asks again', async () => {
    const other = `cs_${'n'.repeat(27)}`
    const w = world()
    await w.auth.check(`Bearer ${other}`)
    await w.auth.check(`Bearer ${other}`)
    assert.equal(w.lookups(), 1)
    w.keys.set(digest(other), record({ id: 'k3', digest: digest(other) }))
    w.advance(2001)
    assert.deepEqual(await w.auth.check(`Bearer ${other}`), { ok: true, keyId: 'k3' })
    await w.auth.close()
  })

  test('does not cache a lookup that a key.changed event overtook', async () => {
    const w = world()
    const release = w.hold()
    const pending = w.auth.check(`Bearer ${KEY}`)
    w.keys.set(digest(KEY), record({ revokedAt: 1 }))
    w.emit('key.changed')
    release()
    await pending
    assert.equal((await w.auth.check(`Bearer ${KEY}`)).ok, false)
    await w.auth.close()
  })

  test('reads again when a key.changed event overtook the lookup: a key revoked meanwhile is refused', async () => {
    // Else the request (a stream, above all) is admitted after the event that should have ended it
    // was handled, and the revoked key keeps a stream open for as long as its client likes.
    const w = world()
    const release = w.hold()
    const pending = w.auth.check(`Bearer ${KEY}`)
    w.keys.set(digest(KEY), record({ revokedAt: 1 }))
    w.emit('key.changed')
    release()
    assert.deepEqual(await pending, { ok: false, reason: 'invalid' })
    assert.equal(w.lookups(), 2)
    await w.auth.close()
  })

  test("a connection's use is recorded to the second, not on every request", async () => {
    const w = world()
    const connection = {}
    const check = async () => {
      const result = await w.auth.checkNow(`Bearer ${KEY}`, connection)
      assert.equal(result.ok, true)
    }
    await check() // asks the store
    await check() // from the cache: remembered on the connection
    w.advance(400)
    await check() // from the memo, within the second: not recorded again
    await w.auth.flush()
    assert.deepEqual(w.touched, [new Map([['k1', 1_000_000]])])
    w.advance(600)
    await check() // a second after: recorded
    await w.auth.flush()
    assert.deepEqual(w.touched.at(-1), new Map([['k1', 1_001_000]]))
    await w.auth.close()
  })

  test('logs a store that cannot record last use once, then at most once a minute, then its end', async () => {
    // flushed every 10 s: a line (and a stack) per flush for as long as the store is down
    const lines: string[] = []
    let failing = true
    const w = world([record()], { warn: (_f, msg) => void lines.push(msg ?? ''), touchFails: () => failing })
    for (let i = 0; i < 6; i++) {
      await w.auth.check(`Bearer ${KEY}`)
      await w.auth.flush()
      w.advance(10_000)
    }
    assert.deepEqual(lines, ['recording API key last use failed'])
    await w.auth.flush()
    assert.deepEqual(lines.slice(1), [
      'recording API key last use still failing: 6 failed attempts since the last line',
    ])
    failing = false
    await w.auth.flush()
    assert.deepEqual(lines.slice(2), [
      'recording API key last use recovered after 7 failed attempts over 60 s',
    ])
    assert.equal(w.touched.length, 1, 'the uses kept through the outage are written')
    await w.auth.close()
  })

  test('records last use in memory and writes it in one batch', async () => {
    const w = world()
    await w.auth.check(`Bearer ${KEY}`)
    w.advance(500)
    await w.auth.check(`Bearer ${KEY}`)
    assert.equal(w.touched.length, 0)
    await w.auth.flush()
    assert.deepEqual(w.touched, [new Map([['k1', 1_000_500]])])
    await w.auth.flush()
    assert.equal(w.touched.length, 1, 'nothing new, nothing written')
    await w.auth.check(`Bearer ${KEY}`)
    await w.auth.close()
    assert.equal(w.touched.length, 2, 'close flushes')
  })
})
