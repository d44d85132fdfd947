// A store that cannot answer (connection lost, admin shutdown, cannot connect, statement timeout)
// is a 503 `unavailable` with Retry-After on every keyed route, mapped by the one error handler;
// which PostgreSQL failures count as that; and how the operator's log tells of it (decisions §2): an
// outage, not a warning with a stack per request.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import pg from 'pg'
import type { Store } from '../src/ports/store.ts'
import { StoreUnavailableError } from '../src/ports/store-errors.ts'
import { isConnectionLost, isUnavailable, translate } from '../src/store/postgres/postgres-errors.ts'
import { parsePostgresUrl } from '../src/store/postgres/postgres-url.ts'
import { createManualClock } from './support/manual-clock.ts'
import { dropSchema, uniqueSchemaUrl } from './support/postgres.ts'
import { createTestWorld, useTestWorld } from './support/test-world.ts'

let failing = false
const unavailable = () =>
  new StoreUnavailableError('PostgreSQL is unavailable (57P01): terminating connection')

function failingWhenAsked(store: Store): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (typeof value !== 'function' || prop === 'close' || prop === 'migrate') return value
      return (...args: unknown[]) => (failing ? Promise.reject(unavailable()) : value.apply(target, args))
    },
  })
}

const { world } = useTestWorld({ wrapStore: failingWhenAsked })

describe('a store that cannot answer', () => {
  for (const path of [
    '/v1/contests/active?series=NOPE',
    '/v1/contests/NOPE-1',
    '/v1/contests?series=NOPE&limit=7',
    '/v1/stream/contests?series=NOPE',
  ]) {
    test(`GET ${path} › 503 unavailable with Retry-After, never 500`, async () => {
      const fresh = await world.issueKey('store-down') // not yet in the key cache: the key check reads the store
      failing = true
      try {
        const res = await fetch(`${world.baseUrl}${path}`, {
          headers: { Authorization: `Bearer ${fresh.key}` },
        })
        const body = (await res.json()) as { type: string; status: number }
        assert.equal(res.status, 503)
        assert.equal(body.status, 503)
        assert.match(body.type, /\/problems\/unavailable$/)
        assert.equal(res.headers.get('retry-after'), '5')
      } finally {
        failing = false
      }
    })
  }
})

/** A store fault the test turns on and off: made by a wrapper on SQLite, by the server on PostgreSQL. */
type Fault = { wrapStore?: (store: Store) => Store; down(): Promise<void>; up(): Promise<void> }

function sqliteFault(): Fault {
  let down = false
  return {
    wrapStore: (store) =>
      new Proxy(store, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver)
          if (typeof value !== 'function' || prop === 'close' || prop === 'migrate') return value
          return (...args: unknown[]) => (down ? Promise.reject(unavailable()) : value.apply(target, args))
        },
      }),
    async down() {
      down = true
    },
    async up() {
      down = false
    },
  }
}

/** The keys table locked by another session: every key lookup hits the statement timeout (57014). */
function postgresFault(url: string): Fault {
  const { schema } = parsePostgresUrl(url)
  let holder: pg.Client | null = null
  return {
    async down() {
      holder = new pg.Client({ connectionString: parsePostgresUrl(url).connectionString })
      await holder.connect()
      await holder.query('BEGIN')
      await holder.query(`LOCK TABLE ${pg.escapeIdentifier(schema)}.api_keys IN ACCESS EXCLUSIVE MODE`)
    },
    async up() {
      await holder?.query('COMMIT')
      await holder?.end()
      holder = null
    },
  }
}

describe('a store outage in the log', () => {
  for (const storeKind of ['sqlite', 'postgresql'] as const)
    for (const fastPath of [true, false]) {
      test(`${storeKind}, ${fastPath ? 'fast path' : 'framework path'} › logged once with its stack, then once a minute with a count, then its end`, async () => {
        const clock = createManualClock()
        const lines: Record<string, unknown>[] = []
        const pgUrl = storeKind === 'postgresql' ? uniqueSchemaUrl('outage') : null
        const fault = pgUrl ? postgresFault(pgUrl) : sqliteFault()
        const w = await createTestWorld({
          fastPath,
          wallClock: clock,
          ...(fault.wrapStore ? { wrapStore: fault.wrapStore } : {}),
          ...(pgUrl ? { postgres: { url: pgUrl, statementTimeoutMs: 200 } } : {}),
          logSink: (line) => void lines.push(JSON.parse(line)),
        })
        const outage = () =>
          lines.filter((l) => /^store (unavailable|still failing|recovered)/.test(String(l.msg)))
        // each request with a key the api has not cached (issued before the fault): the key check asks the store
        const keys = await Promise.all(Array.from({ length: 10 }, () => w.issueKey('outage')))
        const get = async (path: string) => {
          const { key } = keys.shift()!
          const res = await fetch(`${w.baseUrl}${path}`, { headers: { Authorization: `Bearer ${key}` } })
          await res.arrayBuffer()
          return res.status
        }
        const paths = ['/v1/contests/active?series=NOPE', '/v1/contests/NOPE-1', '/v1/contests?series=NOPE']
        try {
          await fault.down()
          for (let i = 0; i < 6; i++) assert.equal(await get(paths[i % 3]!), 503)
          assert.equal(outage().length, 1, 'six requests met the outage: one line')
          const first = outage()[0]!
          assert.equal(first.level, 40)
          assert.equal(first.msg, 'store unavailable; answering 503 until it answers again')
          assert.match((first.err as { stack: string }).stack, /StoreUnavailableError/)

          clock.advance(61_000)
          assert.equal(await get(paths[0]!), 503)
          assert.equal(outage().length, 2)
          assert.equal(outage()[1]!.msg, 'store still failing: 6 failed attempts since the last line')
          assert.equal(outage()[1]!.err, undefined, 'no second stack')
          assert.equal(outage()[1]!.level, 40)

          // answering again: over once it has answered for a minute with no request failing
          await fault.up()
          assert.equal(await get(paths[1]!), 404)
          assert.equal(outage().length, 2)
          clock.advance(60_000)
          assert.equal(await get(paths[2]!), 200)
          assert.equal(outage().length, 3)
          assert.equal(outage()[2]!.msg, 'store recovered after 7 failed attempts over 61 s (up 60 s since)')
          assert.equal(outage()[2]!.level, 40)
          assert.equal(
            lines.filter((l) => Number(l.level) >= 40).length,
            3,
            'no other warning or error, no per-request line',
          )
        } finally {
          await fault.up()
          await w.close()
          if (pgUrl) await dropSchema(pgUrl)
        }
      })
    }

  test('an unknown error while the store cannot be reached is the same outage, not a stack per request', async () => {
    const lines: Record<string, unknown>[] = []
    let down = false
    const locked = new Error('database is locked')
    const w = await createTestWorld({
      wrapStore: (store) =>
        new Proxy(store, {
          get(target, prop, receiver) {
            const value = Reflect.get(target, prop, receiver)
            if (typeof value !== 'function' || prop === 'close' || prop === 'migrate') return value
            return (...args: unknown[]) => (down ? Promise.reject(locked) : value.apply(target, args))
          },
        }),
      logSink: (line) => void lines.push(JSON.parse(line)),
    })
    try {
      const keys = await Promise.all(Array.from({ length: 4 }, () => w.issueKey('locked')))
      down = true
      for (const { key } of keys) {
        const res = await fetch(`${w.baseUrl}/v1/contests/NOPE-1`, {
          headers: { Authorization: `Bearer ${key}` },
        })
        assert.equal(res.status, 503)
        await res.arrayBuffer()
      }
      const loud = lines.filter((l) => Number(l.level) >= 40)
      assert.deepEqual(
        loud.map((l) => l.msg),
        ['store unavailable; answering 503 until it answers again'],
      )
      assert.equal((loud[0]!.err as { message: string }).message, 'database is locked')
    } finally {
      await w.close()
    }
  })
})

describe('PostgreSQL failures that mean "unavailable"', () => {
  const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code })
  test('connection lost (admin shutdown, a reset socket, pg’s own message) may be retried', () => {
    for (const err of [
      pgError('57P01', 'terminating connection due to administrator command'),
      pgError('08006'),
      pgError('ECONNRESET'),
      new Error('Connection terminated unexpectedly'),
    ]) {
      assert.ok(isConnectionLost(err), String(err))
      assert.ok(translate(err) instanceof StoreUnavailableError)
    }
  })
  test('cannot connect and statement timeout are unavailable but not retried', () => {
    for (const err of [
      pgError('57P03'),
      pgError('57014', 'canceling statement due to statement timeout'),
      pgError('ECONNREFUSED'),
      pgError('53300'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Connection terminated due to connection timeout'),
    ]) {
      assert.ok(isUnavailable(err), String(err))
      assert.ok(!isConnectionLost(err), String(err))
      assert.ok(translate(err) instanceof StoreUnavailableError)
    }
  })
  test('anything else stays what it was (a 500)', () => {
    const err = pgError('23505', 'duplicate key')
    assert.equal(translate(err), err)
    assert.ok(!isUnavailable(new TypeError('bug')))
  })
})
