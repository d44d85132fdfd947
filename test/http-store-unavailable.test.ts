// A store that cannot answer (connection lost, admin shutdown, cannot connect, statement timeout)
// is a 503 `unavailable` with Retry-After on every keyed route, mapped by the one error handler;
// and which PostgreSQL failures count as that.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Store } from '../src/ports/store.ts'
import { StoreUnavailableError } from '../src/ports/store-errors.ts'
import { isConnectionLost, isUnavailable, translate } from '../src/store/postgres/postgres-errors.ts'
import { useTestWorld } from './support/test-world.ts'

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
