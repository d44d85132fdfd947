// Opens the SQLite file with the store's connection settings (WAL, busy timeout, foreign keys).
import { dirname, resolve } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { makeDirectories } from '../../platform/make-directories.ts'

export const BUSY_TIMEOUT_MS = 5000
const SQLITE_BUSY = 5
const RETRY_PAUSE_MS = 10

/** Creates the parent directory if needed (`:memory:` excepted) and opens a configured connection. */
export function openDatabase(path: string): DatabaseSync {
  if (path !== ':memory:') makeDirectories(dirname(resolve(path)))
  const db = new DatabaseSync(path)
  try {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
    enableWal(db)
    db.exec('PRAGMA synchronous = NORMAL')
    db.exec('PRAGMA foreign_keys = ON')
    return db
  } catch (err) {
    db.close()
    throw err
  }
}

/**
 * Switching a fresh file to WAL needs an exclusive lock, and SQLite does not run the busy handler
 * for it: two processes starting on a new file at once would see SQLITE_BUSY at once. Retry for as
 * long as busy_timeout would have waited. Blocking is fine here: it only happens while opening.
 */
function enableWal(db: DatabaseSync): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS
  const pause = new Int32Array(new SharedArrayBuffer(4))
  for (;;) {
    try {
      db.exec('PRAGMA journal_mode = WAL')
      return
    } catch (err) {
      if ((err as { errcode?: unknown }).errcode !== SQLITE_BUSY || Date.now() >= deadline) throw err
      Atomics.wait(pause, 0, 0, RETRY_PAUSE_MS)
    }
  }
}
