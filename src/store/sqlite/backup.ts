// A consistent copy of a live SQLite store, WAL included: `VACUUM INTO` reads one snapshot of the
// database (committed pages still in the -wal file included) and writes a compact, self-contained
// file. Unlike the page-by-page backup API it never restarts while the service keeps writing.
import { existsSync, linkSync, rmSync, statSync } from 'node:fs'
import path from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { BUSY_TIMEOUT_MS } from './open-database.ts'

export type BackupResult = { bytes: number; contests: number; signals: number; keys: number }

export class BackupRefused extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'BackupRefused'
  }
}

/** Writes a copy of the database at `source` to `target`, which must not exist; reports what it holds. */
export function backupSqlite(source: string, target: string): BackupResult {
  if (existsSync(target)) throw new BackupRefused(`${target} already exists; a backup never overwrites`)
  if (!existsSync(path.dirname(target)))
    throw new BackupRefused(`the directory ${path.dirname(target)} does not exist`)
  // Written beside the target, then linked into place: a failed or interrupted run leaves no
  // half-written backup under the target's name, and link() refuses an existing file atomically.
  const partial = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.partial`)
  const db = new DatabaseSync(source, { readOnly: true })
  try {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
    db.prepare('VACUUM INTO ?').run(partial)
  } finally {
    db.close()
  }
  try {
    const result = inspect(partial)
    linkSync(partial, target)
    return result
  } catch (err) {
    if ((err as { code?: unknown }).code === 'EEXIST')
      throw new BackupRefused(`${target} already exists; a backup never overwrites`)
    throw err
  } finally {
    rmSync(partial, { force: true })
  }
}

/** Opens the copy on its own and counts its rows: a backup that cannot be read is no backup. */
function inspect(file: string): BackupResult {
  const copy = new DatabaseSync(file, { readOnly: true })
  try {
    const check = copy.prepare('PRAGMA integrity_check').get() as { integrity_check?: unknown }
    if (check.integrity_check !== 'ok')
      throw new Error(`the copy failed its integrity check: ${String(check.integrity_check)}`)
    const count = (table: string) =>
      Number((copy.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n)
    return {
      bytes: statSync(file).size,
      contests: count('contests'),
      signals: count('signals'),
      keys: count('api_keys'),
    }
  } finally {
    copy.close()
  }
}
