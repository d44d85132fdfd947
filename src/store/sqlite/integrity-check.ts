// The start-up check of a SQLite file (PRAGMA quick_check): a damaged file is refused with one line
// before anything reads it, instead of answering 500s on whichever page happens to be bad. It runs
// on a connection of its own, closed before the store opens, so the check leaves nothing in the
// store's page cache.
import { existsSync } from 'node:fs'
import { DatabaseSync } from 'node:sqlite'
import { StoreCorruptError } from '../../ports/store-errors.ts'
import { BUSY_TIMEOUT_MS } from './open-database.ts'

/** Throws StoreCorruptError naming the first problem quick_check finds, or when the file is no database. */
export function checkSqliteFile(path: string): void {
  if (path === ':memory:' || !existsSync(path)) return
  let db: DatabaseSync | undefined
  try {
    // another process may be creating the same file at this moment (an api beside its engine): wait for
    // its lock as the store's own connection would, rather than refuse to start
    db = new DatabaseSync(path, { readOnly: true, timeout: BUSY_TIMEOUT_MS })
    const rows = db.prepare('PRAGMA quick_check(1)').all()
    const verdict = String(Object.values(rows[0] ?? {})[0] ?? '')
    if (verdict !== 'ok') throw new StoreCorruptError(`PRAGMA quick_check says: ${verdict.split('\n')[0]}`)
  } catch (err) {
    if (err instanceof StoreCorruptError) throw err
    const code = (err as { errcode?: unknown }).errcode
    // SQLITE_CORRUPT (11) and SQLITE_NOTADB (26), plain or extended
    if (typeof code === 'number' && ((code & 0xff) === 11 || (code & 0xff) === 26))
      throw new StoreCorruptError((err as Error).message)
    throw err
  } finally {
    db?.close()
  }
}
