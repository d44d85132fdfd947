// Whose SQLite file it is (store/foreign-schema.ts): judged on a read-only connection of its own before
// the store's connection opens, since opening it already writes (WAL mode is recorded in the file's
// header, beside new -wal and -shm files), and again by the migrations under their write lock.
import { existsSync } from 'node:fs'
import { DatabaseSync } from 'node:sqlite'
import {
  ForeignSchemaError,
  judgeSchema,
  markerShaped,
  SCHEMA_MARKER,
  type SchemaVerdict,
} from '../foreign-schema.ts'
import { BUSY_TIMEOUT_MS } from './open-database.ts'

/** The verdict on the main database of `db`: its tables and views, SQLite's own (sqlite_…) left out. */
export function sqliteSchemaVerdict(db: DatabaseSync): SchemaVerdict {
  const tables = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
    )
    .all()
    .map((row) => String(row.name))
  let firstName: string | null = null
  if (tables.includes(SCHEMA_MARKER.table)) {
    const columns = db
      .prepare(`PRAGMA table_info(${SCHEMA_MARKER.table})`)
      .all()
      .map((row) => String(row.name))
    if (markerShaped(columns)) {
      const row = db
        .prepare(`SELECT name FROM ${SCHEMA_MARKER.table} WHERE version = ?`)
        .get(SCHEMA_MARKER.first.version)
      firstName = typeof row?.name === 'string' ? row.name : null
    }
  }
  return judgeSchema(tables, firstName)
}

/** Throws ForeignSchemaError when the main database of `db` holds another application's tables. */
export function refuseForeignSchema(db: DatabaseSync): void {
  const verdict = sqliteSchemaVerdict(db)
  if (verdict.kind === 'foreign') throw new ForeignSchemaError(verdict.tables)
}

/**
 * What the file at `path` holds, read without writing anything; a missing file (or `:memory:`) is
 * empty. Throws ForeignSchemaError when it holds another application's tables.
 */
export function checkSqliteOwner(path: string): 'empty' | 'store' {
  if (path === ':memory:' || !existsSync(path)) return 'empty'
  // waits for a writer's lock as the store's own connection would (an api starting beside its engine)
  const db = new DatabaseSync(path, { readOnly: true, timeout: BUSY_TIMEOUT_MS })
  try {
    const verdict = sqliteSchemaVerdict(db)
    if (verdict.kind === 'foreign') throw new ForeignSchemaError(verdict.tables)
    return verdict.kind
  } finally {
    db.close()
  }
}
