// A database that is neither empty nor a contest-signals store is refused in one line naming
// DATABASE_URL, with nothing written to it (decisions §9): on a real SQLite file and on the machine's
// PostgreSQL (a throwaway schema each), by the store opener and by every command and role. An empty
// database and a store at an older migration open as before; commands that only read never create a
// store where there was none.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { openStoreAt } from '../src/main/open-store.ts'
import { ForeignSchemaError } from '../src/store/foreign-schema.ts'
import { MIGRATIONS as PG_MIGRATIONS } from '../src/store/postgres/postgres-migrations.ts'
import { parsePostgresUrl } from '../src/store/postgres/postgres-url.ts'
import { MIGRATIONS } from '../src/store/sqlite/migrations.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { makeContest } from './support/contest-fixtures.ts'
import { dropSchema, uniqueSchemaUrl, withTestClient } from './support/postgres.ts'
import { runCli, startProcess, tempDir } from './support/service-process.ts'

const USERS = 'CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL)'

/** A SQLite file made by another program, holding only `sql`'s tables and a row. */
function foreignFile(file: string, sql: string = USERS): void {
  const db = new DatabaseSync(file)
  db.exec(sql)
  db.close()
}

/** The bytes of every file in `dir`, by name: what "nothing was written" is checked against. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {}
  for (const name of readdirSync(dir).sort())
    files[name] = createHash('sha256')
      .update(readFileSync(path.join(dir, name)))
      .digest('hex')
  return files
}

function sqliteTables(file: string): string[] {
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    return db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all()
      .map((r) => String(r.name))
  } finally {
    db.close()
  }
}

async function pgTables(url: string): Promise<string[]> {
  const { schema } = parsePostgresUrl(url)
  const result = await withTestClient((c) =>
    c.query<{ name: string }>(
      'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
      [schema],
    ),
  )
  return result.rows.map((r) => r.name)
}

/** A schema of the test database holding what `sql` makes in it (run with the schema as search path). */
async function schemaWith(url: string, sql: string): Promise<void> {
  const { schema } = parsePostgresUrl(url)
  await withTestClient(async (c) => {
    await c.query(`CREATE SCHEMA ${pg.escapeIdentifier(schema)}`)
    await c.query(`SET search_path = ${pg.escapeIdentifier(schema)}`)
    await c.query(sql)
  })
}

describe('opening a SQLite file that is not a contest-signals store', () => {
  const tmp = tempDir('cs-foreign-sqlite-')
  after(() => tmp.remove())
  let n = 0
  /** A directory of its own holding nothing yet, and the database path in it. */
  function place(): { dir: string; file: string } {
    const dir = path.join(tmp.dir, `case-${++n}`)
    mkdirSync(dir)
    return { dir, file: path.join(dir, 'other.db') }
  }

  it('refuses another application’s file in one line naming DATABASE_URL, and writes nothing', async () => {
    const { dir, file } = place()
    foreignFile(file)
    const before = snapshot(dir)
    await assert.rejects(openStoreAt({ databaseUrl: `sqlite:${file}` }), {
      message: `DATABASE_URL: sqlite:${file} holds tables of another application (users): point it at an empty database or a contest-signals store`,
    })
    assert.deepEqual(snapshot(dir), before, 'no byte changed, no -wal or -shm made')
  })

  it('refuses one whose tables share a name with the store’s for what it is, not for the clash', async () => {
    const { file } = place()
    foreignFile(
      file,
      'CREATE TABLE api_keys (id TEXT PRIMARY KEY, owner TEXT); CREATE TABLE orders (id INTEGER)',
    )
    await assert.rejects(openStoreAt({ databaseUrl: `sqlite:${file}` }), {
      message: /holds tables of another application \(api_keys, orders\): point it at/,
    })
    assert.deepEqual(sqliteTables(file), ['api_keys', 'orders'])
  })

  it('refuses another tool’s schema_migrations (Rails, golang-migrate), which is no mark of this store', async () => {
    const { file } = place()
    foreignFile(
      file,
      "CREATE TABLE schema_migrations (version TEXT PRIMARY KEY); INSERT INTO schema_migrations VALUES ('1')",
    )
    await assert.rejects(openStoreAt({ databaseUrl: `sqlite:${file}` }), {
      message: /holds tables of another application \(schema_migrations\)/,
    })
    // the same shape as the store's, but not the record its first migration leaves
    const { file: file2 } = place()
    foreignFile(
      file2,
      "CREATE TABLE schema_migrations (version INTEGER, name TEXT, applied_at INTEGER); INSERT INTO schema_migrations VALUES (1, 'create users', 0); CREATE TABLE users (id INTEGER)",
    )
    await assert.rejects(openStoreAt({ databaseUrl: `sqlite:${file2}` }), {
      message: /holds tables of another application \(schema_migrations, users\)/,
    })
  })

  it('names at most five tables, and how many more', async () => {
    const { file } = place()
    foreignFile(file, [1, 2, 3, 4, 5, 6, 7].map((i) => `CREATE TABLE t${i} (x INTEGER);`).join('\n'))
    await assert.rejects(openStoreAt({ databaseUrl: `sqlite:${file}` }), {
      message: /another application \(t1, t2, t3, t4, t5 and 2 more\)/,
    })
  })

  it('is refused by the migrations themselves too, inside their write transaction', async () => {
    const { file } = place()
    foreignFile(file)
    const store = createSqliteStore(file)
    try {
      await assert.rejects(store.migrate(), (err: unknown) => {
        assert.ok(err instanceof ForeignSchemaError)
        assert.deepEqual(err.tables, ['users'])
        return true
      })
    } finally {
      await store.close()
    }
    assert.deepEqual(sqliteTables(file), ['users'])
  })

  it('opens an empty file, and a store at its first migration, as before', async () => {
    const dir = path.join(tmp.dir, 'empty-file')
    mkdirSync(dir)
    const file = path.join(dir, 'cs.db')
    writeFileSync(file, '')
    const empty = await openStoreAt({ databaseUrl: `sqlite:${file}` })
    assert.match(await empty.store.epoch(), /^[0-9a-z]{8}$/)
    await empty.store.close()

    // a store written by the first release: migration 1 alone, with a contest in it
    const old = path.join(dir, 'old.db')
    const db = new DatabaseSync(old)
    db.exec(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT',
    )
    db.exec(MIGRATIONS[0]!.sql)
    MIGRATIONS[0]!.seed?.(db)
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(1, MIGRATIONS[0]!.name, 0)
    db.prepare(
      "INSERT INTO contests (ticker, series, state, opens_at, expires_at, updated_at) VALUES ('KXBTC15M-OLD', 'KXBTC15M', 'settled', 0, 900000, 0)",
    ).run()
    const epoch = String(db.prepare("SELECT value FROM meta WHERE key = 'epoch'").get()?.value)
    db.close()
    const opened = await openStoreAt({ databaseUrl: `sqlite:${old}` })
    try {
      assert.equal(await opened.store.epoch(), epoch)
      assert.equal((await opened.store.getContest('KXBTC15M-OLD'))?.series, 'KXBTC15M')
      const check = new DatabaseSync(old, { readOnly: true })
      const versions = check.prepare('SELECT version FROM schema_migrations ORDER BY version').all()
      check.close()
      assert.deepEqual(
        versions.map((r) => r.version),
        MIGRATIONS.map((m) => m.version),
      )
    } finally {
      await opened.store.close()
    }
  })

  it('opens a store that has gained a table of someone else’s beside its own', async () => {
    const { file } = place()
    const store = createSqliteStore(file)
    await store.migrate()
    await store.openContest(makeContest())
    await store.close()
    const db = new DatabaseSync(file)
    db.exec('CREATE TABLE operator_notes (note TEXT)')
    db.close()
    const opened = await openStoreAt({ databaseUrl: `sqlite:${file}` })
    assert.equal(await opened.store.countContests(), 1)
    await opened.store.close()
  })
})

describe('opening a PostgreSQL schema that is not a contest-signals store', () => {
  const cleanup: string[] = []
  after(async () => {
    for (const url of cleanup) await dropSchema(url)
  })
  function freshUrl(): string {
    const url = uniqueSchemaUrl('cs_foreign')
    cleanup.push(url)
    return url
  }

  it('refuses a schema holding another application’s tables in one line, and creates nothing', async () => {
    const url = freshUrl()
    await schemaWith(url, 'CREATE TABLE users (id INT PRIMARY KEY); CREATE TABLE api_keys (id TEXT)')
    const { schema } = parsePostgresUrl(url)
    await assert.rejects(openStoreAt({ databaseUrl: url }), {
      message: `DATABASE_URL: ${url} holds tables of another application in schema ${schema} (api_keys, users): point it at an empty database, a schema of its own (?schema=NAME) or a contest-signals store`,
    })
    assert.deepEqual(await pgTables(url), ['api_keys', 'users'])
  })

  it('refuses a schema holding only a view, or another tool’s schema_migrations', async () => {
    const viewUrl = freshUrl()
    await schemaWith(viewUrl, 'CREATE VIEW report AS SELECT 1 AS one')
    await assert.rejects(openStoreAt({ databaseUrl: viewUrl }), {
      message: /another application in schema \w+ \(report\)/,
    })
    const railsUrl = freshUrl()
    await schemaWith(
      railsUrl,
      "CREATE TABLE schema_migrations (version VARCHAR PRIMARY KEY); INSERT INTO schema_migrations VALUES ('20240101')",
    )
    await assert.rejects(openStoreAt({ databaseUrl: railsUrl }), { message: /\(schema_migrations\)/ })
    assert.deepEqual(await pgTables(railsUrl), ['schema_migrations'])
  })

  it('creates a store in a schema that does not exist yet, while other schemas hold other applications', async () => {
    const foreign = freshUrl()
    await schemaWith(foreign, 'CREATE TABLE users (id INT)')
    const url = freshUrl()
    const opened = await openStoreAt({ databaseUrl: url })
    try {
      assert.match(await opened.store.epoch(), /^[0-9a-z]{8}$/)
    } finally {
      await opened.store.close()
    }
    assert.ok((await pgTables(url)).includes('schema_migrations'))
  })

  it('takes an existing schema whose only table belongs to an extension as empty', async () => {
    const url = freshUrl()
    const { schema } = parsePostgresUrl(url)
    const table = `${pg.escapeIdentifier(schema)}.spatial_ref_sys`
    // what PostGIS leaves in public, made here with an extension every server has
    await schemaWith(url, 'CREATE TABLE spatial_ref_sys (srid INT)')
    await withTestClient((c) => c.query(`ALTER EXTENSION plpgsql ADD TABLE ${table}`))
    try {
      const opened = await openStoreAt({ databaseUrl: url })
      await opened.store.close()
      assert.ok((await pgTables(url)).includes('schema_migrations'))
    } finally {
      await withTestClient((c) => c.query(`ALTER EXTENSION plpgsql DROP TABLE ${table}`))
    }
  })

  it('migrates a store at its first migration as before', async () => {
    const url = freshUrl()
    const first = PG_MIGRATIONS[0]!
    const { schema } = parsePostgresUrl(url)
    await withTestClient(async (c) => {
      await c.query(`CREATE SCHEMA ${schema}; SET search_path = ${schema}`)
      await c.query(
        'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
      )
      await c.query(first.sql)
      await first.seed?.(c)
      await c.query('INSERT INTO schema_migrations VALUES ($1, $2, 0)', [first.version, first.name])
    })
    const opened = await openStoreAt({ databaseUrl: url })
    try {
      await opened.store.openContest(makeContest())
      assert.equal(await opened.store.countContests(), 1)
    } finally {
      await opened.store.close()
    }
    const versions = await withTestClient((c) =>
      c.query<{ version: number }>(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`),
    )
    assert.deepEqual(
      versions.rows.map((r) => r.version),
      PG_MIGRATIONS.map((m) => m.version),
    )
  })
})

/**
 * Runs a command that must stop at once. A server role that starts listening instead is killed (and
 * the test fails on its exit code); one that neither listens nor stops is killed when its start
 * watch gives up (support/service-process.ts), so a refusal that regressed never hangs the run.
 */
async function runToRefusal(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string }> {
  const p = startProcess(args, env)
  await p.url.then(
    () => p.kill('SIGKILL'),
    () => undefined,
  )
  const { code } = await p.exited
  return { code, stderr: p.stderr() }
}

describe('every command on a database that is not a contest-signals store', () => {
  const tmp = tempDir('cs-foreign-cli-')
  let tape = ''
  before(async () => {
    // replay checks its tape before it opens the store: give it a real one
    tape = path.join(tmp.dir, 'day.ndjson.gz')
    const made = await runCli(['sim', 'tape', '--days', '1', '--seed', '3', '--out', tape], {})
    assert.equal(made.code, 0, made.stderr)
  })
  after(() => tmp.remove())

  const COMMANDS: readonly string[][] = [
    ['serve'],
    ['api'],
    ['engine'],
    ['migrate'],
    ['keys', 'list'],
    ['keys', 'create', '--label', 'bot'],
    ['keys', 'revoke', 'key_0000'],
    ['backtest'],
    ['evaluate'],
    ['venue', 'check'],
    ['backup', 'BACKUP'],
    ['replay', '--tape', 'TAPE'],
  ]
  const argsOf = (command: readonly string[], dir: string) =>
    command.map((a) => (a === 'TAPE' ? tape : a === 'BACKUP' ? path.join(dir, 'copy.db') : a))

  it('refuses a SQLite file of another application with one line, and leaves it as it was', async () => {
    const dir = path.join(tmp.dir, 'sqlite')
    mkdirSync(dir)
    const file = path.join(dir, 'other.db')
    foreignFile(file)
    const before = snapshot(dir)
    const env = { DATABASE_URL: `sqlite:${file}`, PORT: '0' }
    for (const command of COMMANDS) {
      const run = await runToRefusal(argsOf(command, dir), env)
      assert.equal(run.code, 1, `${command.join(' ')}: ${run.stderr}`)
      assert.equal(
        run.stderr,
        `contest-signals: DATABASE_URL: sqlite:${file} holds tables of another application (users): point it at an empty database or a contest-signals store\n`,
        command.join(' '),
      )
      assert.deepEqual(snapshot(dir), before, command.join(' '))
    }
  })

  it('refuses a PostgreSQL schema of another application with one line, and leaves it as it was', async () => {
    const url = uniqueSchemaUrl('cs_foreign_cli')
    try {
      await schemaWith(url, 'CREATE TABLE users (id INT)')
      const { schema } = parsePostgresUrl(url)
      for (const command of [['serve'], ['engine'], ['migrate'], ['keys', 'list'], ['backtest']]) {
        const run = await runToRefusal(command, { DATABASE_URL: url, PORT: '0' })
        assert.equal(run.code, 1, `${command.join(' ')}: ${run.stderr}`)
        assert.equal(
          run.stderr,
          `contest-signals: DATABASE_URL: ${url} holds tables of another application in schema ${schema} (users): point it at an empty database, a schema of its own (?schema=NAME) or a contest-signals store\n`,
        )
        assert.deepEqual(await pgTables(url), ['users'], command.join(' '))
      }
    } finally {
      await dropSchema(url)
    }
  })

  it('never creates a store to read: no file appears where none was', async () => {
    const dir = path.join(tmp.dir, 'nothing-here')
    const file = path.join(dir, 'cs.db')
    // a fresh deployment has no keys yet: said, and still nothing is created
    const keys = await runCli(['keys', 'list', '--json'], { DATABASE_URL: `sqlite:${file}` })
    assert.equal(keys.code, 0, keys.stderr)
    assert.deepEqual(JSON.parse(keys.stdout), [])
    assert.equal(keys.stderr, `contest-signals: no store at ${file} yet, so no keys; none was created\n`)
    assert.ok(!existsSync(dir), 'keys list')
    for (const command of [['backtest'], ['evaluate'], ['backup', path.join(tmp.dir, 'copy.db')]]) {
      const run = await runCli(command, { DATABASE_URL: `sqlite:${file}` })
      assert.equal(run.code, 1, `${command.join(' ')}: ${run.stderr}`)
      assert.match(
        run.stderr,
        new RegExp(`^contest-signals: DATABASE_URL: no store at ${file} `),
        command.join(' '),
      )
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr)
      assert.ok(!existsSync(dir), command.join(' '))
    }
    // venue check looks at the sandbox SIM_SEED names instead, and creates nothing either
    await runCli(['venue', 'check'], { DATABASE_URL: `sqlite:${file}` })
    assert.ok(!existsSync(dir), 'venue check')
  })

  it('refuses an empty SQLite file to read, and leaves it empty', async () => {
    const dir = path.join(tmp.dir, 'empty-file')
    mkdirSync(dir)
    const file = path.join(dir, 'cs.db')
    writeFileSync(file, '')
    const before = snapshot(dir)
    const keys = await runCli(['keys', 'list'], { DATABASE_URL: `sqlite:${file}` })
    assert.equal(keys.code, 0, keys.stderr)
    assert.match(keys.stdout, /^ID +LABEL/)
    assert.equal(keys.stderr, `contest-signals: no store at ${file} yet, so no keys; none was created\n`)
    assert.deepEqual(snapshot(dir), before, 'keys list')
    for (const command of [['backtest'], ['evaluate']]) {
      const run = await runCli(command, { DATABASE_URL: `sqlite:${file}` })
      assert.equal(run.code, 1, `${command.join(' ')}: ${run.stderr}`)
      assert.match(
        run.stderr,
        new RegExp(`^contest-signals: DATABASE_URL: no store at ${file} \\(run the service`),
      )
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr)
      assert.deepEqual(snapshot(dir), before, command.join(' '))
    }
  })
})

describe('reading a PostgreSQL schema that holds no store', () => {
  it('refuses in one line and creates nothing, whether the schema is missing or empty', async () => {
    for (const made of [false, true]) {
      const url = uniqueSchemaUrl('cs_nostore_')
      const { schema } = parsePostgresUrl(url)
      try {
        if (made) await withTestClient((c) => c.query(`CREATE SCHEMA ${pg.escapeIdentifier(schema)}`))
        const keys = await runCli(['keys', 'list', '--json'], { DATABASE_URL: url })
        assert.equal(keys.code, 0, keys.stderr)
        assert.deepEqual(JSON.parse(keys.stdout), [])
        assert.match(
          keys.stderr,
          /^contest-signals: no store at postgres:\/\/.* yet, so no keys; none was created\n$/,
        )
        assert.deepEqual(await pgTables(url), [], 'keys list')
        for (const command of [['backtest'], ['evaluate']]) {
          const run = await runCli(command, { DATABASE_URL: url })
          assert.equal(run.code, 1, `${command.join(' ')}: ${run.stderr}`)
          assert.match(
            run.stderr,
            /^contest-signals: DATABASE_URL: no store at postgres:\/\/.* \(run the service/,
          )
          assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr)
          assert.deepEqual(await pgTables(url), [], command.join(' '))
        }
        const exists = await withTestClient((c) =>
          c.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]),
        )
        assert.equal(exists.rowCount, made ? 1 : 0, 'a missing schema stays missing')
        // what reads refuse, a writer still creates
        const opened = await openStoreAt({ databaseUrl: url })
        await opened.store.close()
        assert.ok((await pgTables(url)).includes('schema_migrations'))
      } finally {
        await dropSchema(url)
      }
    }
  })
})
