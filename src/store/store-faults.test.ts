import assert from 'node:assert/strict'
import { DatabaseSync } from 'node:sqlite'
import { describe, it } from 'node:test'
import type { Store } from '../ports/store.ts'
import { StoreUnavailableError } from '../ports/store-errors.ts'
import { faultKindOf, watchStoreFaults } from './store-faults.ts'

/** A real SQLITE_FULL: a database capped at its current size asked for one more page. */
function sqliteFullError(): unknown {
  const db = new DatabaseSync(':memory:')
  try {
    db.exec('CREATE TABLE t (x BLOB)')
    db.exec('PRAGMA max_page_count = 3')
    for (;;) db.prepare('INSERT INTO t VALUES (?)').run(new Uint8Array(4000))
  } catch (err) {
    return err
  } finally {
    db.close()
  }
}

/** The two store calls the tests make, each doing what the test says next. */
function storeDoing(next: { write: () => Promise<void>; read: () => Promise<unknown[]> }): Store {
  return {
    recordEngineHeartbeat: () => next.write(),
    listSettled: () => next.read(),
  } as unknown as Store
}

describe('store faults', () => {
  it('classify what the disk refused, what is damaged, and nothing else', () => {
    assert.equal(faultKindOf(sqliteFullError()), 'write')
    assert.equal(faultKindOf({ errcode: 10 | (3 << 8) }), 'write', 'SQLITE_IOERR_WRITE')
    assert.equal(faultKindOf({ errcode: 11 }), 'corrupt')
    assert.equal(faultKindOf({ errcode: 26 }), 'corrupt', 'SQLITE_NOTADB')
    assert.equal(faultKindOf({ code: '53100' }), 'write', 'PostgreSQL disk_full')
    assert.equal(faultKindOf(new StoreUnavailableError('x', { cause: { code: 'XX001' } })), 'corrupt')
    assert.equal(faultKindOf({ errcode: 19 }), null, 'a constraint is not a fault of the disk')
    assert.equal(faultKindOf(new Error('timeout')), null)
  })

  it('a refused write degrades until a write succeeds again', async () => {
    let fail = true
    const full = sqliteFullError()
    const { store, faults } = watchStoreFaults(
      storeDoing({
        write: async () => {
          if (fail) throw full
        },
        read: async () => [],
      }),
      { now: () => 5 },
    )
    assert.equal(faults.condition(), 'ok')
    await assert.rejects(store.recordEngineHeartbeat(1), (err) => err === full)
    assert.equal(faults.condition(), 'degraded')
    assert.equal(faults.lastFault()?.since, 5)
    await store.listSettled({ series: 'S', limit: 1 })
    assert.equal(faults.condition(), 'degraded', 'a read proves nothing about writes')
    fail = false
    await store.recordEngineHeartbeat(2)
    assert.equal(faults.condition(), 'ok')
  })

  it('a damaged page answers as an unavailable store and stays corrupt', async () => {
    const { store, faults } = watchStoreFaults(
      storeDoing({
        write: async () => {},
        read: async () => {
          throw Object.assign(new Error('database disk image is malformed'), { errcode: 11 })
        },
      }),
      { now: () => 0 },
    )
    await assert.rejects(store.listSettled({ series: 'S', limit: 1 }), StoreUnavailableError)
    assert.equal(faults.condition(), 'corrupt')
    await store.recordEngineHeartbeat(1)
    assert.equal(faults.condition(), 'corrupt')
  })
})
