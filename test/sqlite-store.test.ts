// SqliteStore against the store contract, plus what only a file-backed SQLite store can promise.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { after, describe, it } from 'node:test'
import { toContestView } from '../src/domain/contest-view.ts'
import type { Store } from '../src/ports/store.ts'
import { applyMigrations, MIGRATIONS } from '../src/store/sqlite/migrations.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { runStoreContract } from './store-contract.ts'
import { kalshiVenue, makeContest, makeKey, makeSignal } from './support/contest-fixtures.ts'
import { waitUntil } from './support/wait.ts'

const dirs = new Map<Store, string>()

runStoreContract('SqliteStore', {
  async create(opts) {
    const dir = await mkdtemp(join(tmpdir(), 'sqlite-store-'))
    const store = createSqliteStore(join(dir, 'store.db'), opts)
    dirs.set(store, dir)
    return store
  },
  async reopen(store) {
    return createSqliteStore(join(dirs.get(store)!, 'store.db'))
  },
  async destroy(store) {
    await rm(dirs.get(store)!, { recursive: true, force: true })
    dirs.delete(store)
  },
})

describe('SqliteStore on a file', () => {
  const cleanup: string[] = []
  after(async () => {
    for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
  })
  async function tempPath(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'sqlite-store-'))
    cleanup.push(dir)
    // a missing parent directory is created, as for the default ./data/contest-signals.db
    return join(dir, 'nested', 'store.db')
  }

  it('runs in WAL mode and records each migration once', async () => {
    const path = await tempPath()
    const store = createSqliteStore(path)
    await store.migrate()
    await store.migrate()
    const db = new DatabaseSync(path)
    try {
      assert.equal(db.prepare('PRAGMA journal_mode').get()?.journal_mode, 'wal')
      const versions = db.prepare('SELECT version FROM schema_migrations ORDER BY version').all()
      assert.deepEqual(
        versions.map((r) => r.version),
        MIGRATIONS.map((m) => m.version),
      )
      assert.equal(applyMigrations(db, Date.now()), 0)
    } finally {
      db.close()
      await store.close()
    }
  })

  it('reads a contest stored before migration 3 with the venue of its series and no references', async () => {
    const path = await tempPath()
    const store = createSqliteStore(path)
    try {
      await store.migrate()
      const kalshi = makeContest({ series: 'KXBTC15M' })
      const other = makeContest({ series: 'SIMSERIES' })
      await store.importHistory([kalshi, other])
      // what ALTER TABLE … ADD COLUMN leaves on the rows that were there before it ran
      const db = new DatabaseSync(path)
      db.exec('UPDATE contests SET venue = NULL, venue_refs = NULL')
      db.close()
      assert.deepEqual((await store.getContest(kalshi.ticker))?.venue, { name: 'kalshi', refs: null })
      assert.equal((await store.getContest(other.ticker))?.venue, null)
    } finally {
      await store.close()
    }
  })

  it('replays an event appended before migration 3 with the venue members its contest reads back with', async () => {
    const path = await tempPath()
    const store = createSqliteStore(path)
    try {
      await store.migrate()
      const kalshi = makeContest({ series: 'KXBTC15M', venue: kalshiVenue('KXBTC15M-26NOV221415-15') })
      const other = makeContest({ series: 'SIMSERIES' })
      for (const c of [kalshi, other]) {
        await store.openContest(c)
        await store.addSignal(makeSignal(c, { minute: 1, side: 'up' }))
      }
      // the events as they were written before contests carried a venue: neither member
      const db = new DatabaseSync(path)
      const strip = (view: Record<string, unknown>) => {
        delete view.venue
        delete view.venue_refs
      }
      for (const row of db.prepare('SELECT seq, type, data FROM events').all()) {
        const data = JSON.parse(row.data as string)
        strip(row.type === 'signal.emitted' ? data.contest : data)
        db.prepare('UPDATE events SET data = ? WHERE seq = ?').run(JSON.stringify(data), row.seq as number)
      }
      db.exec('UPDATE contests SET venue = NULL, venue_refs = NULL')
      db.close()
      // a client typed by the API document reads both members on every contest, as REST sends them
      const events = await store.eventsAfter(0, 10)
      assert.equal(events.length, 4)
      for (const e of events) {
        const data = JSON.parse(e.data)
        const contest = e.type === 'signal.emitted' ? data.contest : data
        const stored = toContestView((await store.getContest(e.ticker))!)
        assert.equal(contest.venue, stored.venue)
        assert.equal(contest.venue_refs, null)
        assert.deepEqual(Object.keys(contest), Object.keys(stored))
      }
      assert.deepEqual(
        events.map((e) => JSON.parse(e.data)).map((d) => (d.contest ?? d).venue),
        ['kalshi', 'kalshi', null, null],
      )
    } finally {
      await store.close()
    }
  })

  it('lets two instances on one file see each other’s writes, as the CLI does beside the server', async () => {
    const path = await tempPath()
    const server = createSqliteStore(path)
    const cli = createSqliteStore(path)
    try {
      await Promise.all([server.migrate(), cli.migrate()])
      assert.equal(await cli.epoch(), await server.epoch())
      const key = makeKey()
      await cli.createKey(key)
      assert.deepEqual(await server.findKeyByDigest(key.digest), key)
      await cli.revokeKey(key.id, key.createdAt + 1)
      assert.equal((await server.findKeyByDigest(key.digest))?.revokedAt, key.createdAt + 1)
      const contest = makeContest()
      await server.openContest(contest)
      assert.equal((await cli.getContest(contest.ticker))?.ticker, contest.ticker)
      assert.equal(await cli.latestSeq(), await server.latestSeq())
    } finally {
      await server.close()
      await cli.close()
    }
  })

  it('checks a file another process holds locked by waiting for the lock, not by refusing to start', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sqlite-store-'))
    cleanup.push(dir)
    const path = join(dir, 'store.db')
    const checkModule = new URL('../src/store/sqlite/integrity-check.ts', import.meta.url).href
    // the holder is another process creating the file: it keeps the exclusive lock of a fresh file (not
    // yet in WAL, where readers would not wait) until told
    const holder = child(
      `import { DatabaseSync } from 'node:sqlite'
      const db = new DatabaseSync(process.argv[1])
      db.exec('BEGIN EXCLUSIVE')
      db.exec('CREATE TABLE held (x INTEGER)')
      process.stdout.write('locked\\n')
      await new Promise((resolve) => process.stdin.once('data', resolve))
      db.exec('COMMIT')
      db.close()`,
      path,
    )
    const checker = child(
      `import { checkSqliteFile } from ${JSON.stringify(checkModule)}
      // only once the holder has the lock, or the check could pass on a file nobody holds
      await new Promise((resolve) => process.stdin.once('data', resolve))
      process.stdin.pause()
      process.stdout.write('checking\\n')
      checkSqliteFile(process.argv[1])
      process.stdout.write('checked\\n')`,
      path,
    )
    try {
      await waitUntil(() => holder.out() === 'locked\n', 'the holder to lock the file')
      checker.child.stdin.end('go\n')
      await waitUntil(() => checker.out().startsWith('checking\n'), 'the check to start')
      holder.child.stdin.end('release\n')
      assert.deepEqual(await Promise.all([holder.exited, checker.exited]), [0, 0])
      assert.equal(checker.out(), 'checking\nchecked\n')
    } finally {
      holder.child.kill()
      checker.child.kill()
    }
  })

  it('applies migrations once when two processes start on a fresh file at once', async () => {
    const path = await tempPath()
    const storeModule = new URL('../src/store/sqlite/sqlite-store.ts', import.meta.url).href
    // both children say they are ready, then wait for one shared go, so their migrations really overlap
    const script = `import { createSqliteStore } from ${JSON.stringify(storeModule)}
      process.stdout.write('ready\\n')
      await new Promise((resolve) => process.stdin.once('data', resolve))
      process.stdin.pause()
      const store = createSqliteStore(process.argv[1])
      await store.migrate()
      process.stdout.write(await store.epoch())
      await store.close()`
    const children = [0, 1].map(() => child(script, path))
    await waitUntil(() => children.every((c) => c.out() === 'ready\n'), 'both processes to be ready')
    for (const c of children) c.child.stdin.end('go\n')
    assert.deepEqual(await Promise.all(children.map((c) => c.exited)), [0, 0])
    const [a, b] = children.map((c) => c.out().slice('ready\n'.length)) as [string, string]
    assert.match(a, /^[0-9a-z]{8}$/)
    assert.equal(b, a, 'both processes see the one epoch')
    const db = new DatabaseSync(path)
    try {
      const count = db.prepare('SELECT count(*) AS n FROM schema_migrations').get()?.n
      assert.equal(count, MIGRATIONS.length)
    } finally {
      db.close()
    }
  })
})

/** A Node process running `script` (an ES module) with `path` as its argument; its stdout kept. */
function child(script: string, path: string) {
  const proc = spawn(process.execPath, ['--input-type=module', '-e', script, path], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  let out = ''
  proc.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d
  })
  const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve))
  return { child: proc, out: () => out, exited }
}
