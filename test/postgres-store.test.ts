// PostgresStore against the store contract, plus what only a shared PostgreSQL server can test:
// concurrent processes, event ordering under concurrent writers, dropped connections, schemas.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, describe, it } from 'node:test'
import type { NewEvent } from '../src/domain/events.ts'
import type { Store } from '../src/ports/store.ts'
import { LOCK_CLASS, MIGRATIONS, schemaLockId } from '../src/store/postgres/postgres-migrations.ts'
import { createPostgresStore } from '../src/store/postgres/postgres-store.ts'
import { parsePostgresUrl } from '../src/store/postgres/postgres-url.ts'
import { runStoreContract } from './store-contract.ts'
import { makeContest, makeKey, makeSignal } from './support/contest-fixtures.ts'
import { dropSchema, uniqueSchemaUrl, withTestClient } from './support/postgres.ts'
import { waitUntil } from './support/wait.ts'

const urls = new Map<Store, string>()

runStoreContract('PostgresStore', {
  async create(opts) {
    const url = uniqueSchemaUrl('cs_contract')
    const store = createPostgresStore(url, { poolSize: 4, ...opts })
    urls.set(store, url)
    return store
  },
  async reopen(store) {
    return createPostgresStore(urls.get(store)!, { poolSize: 4 })
  },
  async destroy(store) {
    await dropSchema(urls.get(store)!)
    urls.delete(store)
  },
})

const keyEvent = (): NewEvent => ({ type: 'key.changed', series: '', ticker: '', data: '{}' })

/** Backends of the test database running under `applicationName`, and what they wait for. */
async function backendsOf(applicationName: string): Promise<Array<{ pid: number; wait: string | null }>> {
  const result = await withTestClient((c) =>
    c.query<{ pid: number; wait: string | null }>(
      `SELECT pid, wait_event_type AS wait FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = $1`,
      [applicationName],
    ),
  )
  return result.rows
}

describe('PostgresStore on a server', () => {
  const cleanup: string[] = []
  const open: Store[] = []
  after(async () => {
    for (const store of open) await store.close()
    for (const url of cleanup) await dropSchema(url)
  })
  function freshUrl(params: Record<string, string> = {}): string {
    const url = uniqueSchemaUrl('cs_pg')
    cleanup.push(url)
    const u = new URL(url)
    for (const [name, value] of Object.entries(params)) u.searchParams.set(name, value)
    return u.toString()
  }
  function storeOn(url: string, opts: Parameters<typeof createPostgresStore>[1] = {}): Store {
    const store = createPostgresStore(url, opts)
    open.push(store)
    return store
  }

  it('applies migrations once when several stores migrate one fresh schema at once', async () => {
    const url = freshUrl()
    const stores = [1, 2, 3].map(() => storeOn(url, { poolSize: 2 }))
    await Promise.all(stores.map((s) => s.migrate()))
    const epochs = await Promise.all(stores.map((s) => s.epoch()))
    assert.match(epochs[0]!, /^[0-9a-z]{8}$/)
    assert.deepEqual(new Set(epochs).size, 1, 'every store sees the one epoch')
    const { schema } = parsePostgresUrl(url)
    const applied = await withTestClient((c) =>
      c.query(`SELECT version, name FROM ${schema}.schema_migrations ORDER BY version`),
    )
    assert.deepEqual(
      applied.rows,
      MIGRATIONS.map((m) => ({ version: m.version, name: m.name })),
    )
  })

  it('commits events appended concurrently by two stores in seq order, with no gap a reader could pass', async () => {
    const url = freshUrl()
    // The 100 appends queue for the pools' connections and commit one at a time in seq order; on a
    // loaded machine the last in a queue can wait past the 2 s default, which bounds a service's
    // wait for a connection and is not what this test asks.
    const writer = { connectTimeoutMs: 30_000 }
    const [a, b] = [storeOn(url, writer), storeOn(url, writer)]
    const reader = storeOn(url, { poolSize: 1 })
    await Promise.all([a.migrate(), b.migrate()])
    let written = false
    const writes = Promise.all(
      Array.from({ length: 50 }, () => [a.appendEvent(keyEvent()), b.appendEvent(keyEvent())]).flat(),
    ).finally(() => {
      written = true
    })
    // A reader polling `seq > cursor` while they write: a seq committing after a higher one would be
    // passed over for good, so once every write has committed a poll finds nothing more and the
    // reader stops short of 100.
    const seen: number[] = []
    let cursor = 0
    while (seen.length < 100) {
      const wasWritten = written
      const events = await reader.eventsAfter(cursor, 1_000)
      for (const event of events) {
        seen.push(event.seq)
        cursor = event.seq
      }
      if (wasWritten && events.length === 0) break
    }
    const appended = (await writes).map((e) => e.seq).sort((x, y) => x - y)
    for (let i = 1; i < seen.length; i++)
      assert.ok(seen[i]! > seen[i - 1]!, `${seen[i]} follows ${seen[i - 1]}`)
    assert.deepEqual(seen, appended, 'the reader collected every appended seq')
    assert.equal(await reader.latestSeq(), appended.at(-1))
  })

  it('recovers without a restart when its idle connections are killed underneath', async () => {
    const applicationName = `cs_kill_${randomBytes(4).toString('hex')}`
    const store = storeOn(freshUrl({ application_name: applicationName }), { poolSize: 3 })
    await store.migrate()
    const contest = makeContest()
    await store.openContest(contest)
    await Promise.all([store.latestSeq(), store.ping(), store.countContests()])
    const killed = await withTestClient((c) =>
      c.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = $1`,
        [applicationName],
      ),
    )
    assert.ok((killed.rowCount ?? 0) > 0, 'the store had connections to kill')
    await store.ping().catch(() => undefined) // may meet a connection that is not known dead yet
    assert.equal((await store.getContest(contest.ticker))?.ticker, contest.ticker)
    assert.ok(await store.addSignal(makeSignal(contest)), 'writes work again too')
  })

  it('recovers when a connection is killed in the middle of a transaction', async () => {
    const applicationName = `cs_kill_${randomBytes(4).toString('hex')}`
    const url = freshUrl({ application_name: applicationName })
    const store = storeOn(url, { poolSize: 2 })
    await store.migrate()
    const { schema } = parsePostgresUrl(url)
    const lock = [LOCK_CLASS.events, schemaLockId(schema)]
    // Another session holds the events lock, so the append waits inside its transaction until killed.
    await withTestClient(async (holder) => {
      await holder.query('SELECT pg_advisory_lock($1, $2)', lock)
      const append = store.appendEvent(keyEvent())
      append.catch(() => undefined)
      await waitUntil(
        async () => (await backendsOf(applicationName)).some((b) => b.wait === 'Lock'),
        'the append to wait for the lock',
      )
      await withTestClient((c) =>
        c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [
          applicationName,
        ]),
      )
      await assert.rejects(append)
      await holder.query('SELECT pg_advisory_unlock($1, $2)', lock)
    })
    await store.ping().catch(() => undefined)
    assert.equal(await store.latestSeq(), 0, 'the killed append left nothing behind')
    const event = await store.appendEvent(keyEvent())
    assert.equal(await store.latestSeq(), event.seq)
  })

  it('ends a statement that runs past statementTimeoutMs and stays usable', async () => {
    const url = freshUrl()
    // the schema is made by a store without the short timeout: on a loaded machine the migrations
    // themselves ran past 200 ms
    await storeOn(url).migrate()
    const store = storeOn(url, { statementTimeoutMs: 200, poolSize: 1 })
    const { schema } = parsePostgresUrl(url)
    const lock = [LOCK_CLASS.events, schemaLockId(schema)]
    await withTestClient(async (holder) => {
      await holder.query('SELECT pg_advisory_lock($1, $2)', lock)
      // ended by the statement timeout, not by the lock: the lock is held until after it rejects
      await assert.rejects(store.appendEvent(keyEvent()), /statement timeout/)
      await holder.query('SELECT pg_advisory_unlock($1, $2)', lock)
    })
    assert.equal(await store.latestSeq(), 0)
    assert.ok((await store.appendEvent(keyEvent())).seq > 0)
  })

  it('keeps two schemas of one database apart', async () => {
    const [urlA, urlB] = [freshUrl(), freshUrl()]
    const [a, b] = [storeOn(urlA), storeOn(urlB)]
    await Promise.all([a.migrate(), b.migrate()])
    assert.notEqual(await a.epoch(), await b.epoch())
    const contest = makeContest()
    await a.openContest(contest)
    await a.createKey(makeKey())
    assert.equal(await b.getContest(contest.ticker), null)
    assert.deepEqual(await b.listKeys(), [])
    assert.equal(await b.latestSeq(), 0)
    assert.equal(await b.countContests(), 0)
    const tables = await withTestClient((c) =>
      c.query<{ table_name: string }>(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
        [parsePostgresUrl(urlA).schema],
      ),
    )
    assert.deepEqual(
      tables.rows.map((r) => r.table_name),
      ['api_keys', 'contests', 'event_counter', 'events', 'leases', 'meta', 'schema_migrations', 'signals'],
    )
  })
})
