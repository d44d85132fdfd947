// `contest-signals backup PATH`: a consistent copy of the SQLite store, WAL included, that never
// overwrites. PostgreSQL has its own tools (pg_dump).
import path from 'node:path'
import type { Config } from '../config/config.ts'
import { describeStore, storeLocation } from '../main/store-location.ts'
import { ForeignSchemaError } from '../store/foreign-schema.ts'
import { BackupRefused, backupSqlite } from '../store/sqlite/backup.ts'
import { checkSqliteOwner } from '../store/sqlite/foreign-check.ts'

export async function runBackupCommand(config: Pick<Config, 'databaseUrl'>, target: string): Promise<number> {
  // `-` reads as stdout elsewhere (replay's tape refuses stdin): a file named "-" is never meant
  if (target === '-') {
    process.stderr.write('contest-signals: backup writes a new file: give its path (stdout, -, is not one)\n')
    return 2
  }
  const location = storeLocation(config.databaseUrl)
  if (location.kind !== 'sqlite') {
    process.stderr.write(
      `contest-signals: backup copies a SQLite store; DATABASE_URL is ${location.display}: use pg_dump\n`,
    )
    return 2
  }
  if (location.path === ':memory:' || !location.exists) {
    process.stderr.write(`contest-signals: DATABASE_URL: no store at ${location.path} to back up\n`)
    return 1
  }
  // another application's database, or an empty one, is no store to back up (read without writing)
  try {
    if (checkSqliteOwner(location.path) === 'empty') {
      process.stderr.write(
        `contest-signals: DATABASE_URL: no store at ${location.path} to back up (the file is empty)\n`,
      )
      return 1
    }
  } catch (err) {
    if (!(err instanceof ForeignSchemaError)) throw err
    process.stderr.write(`contest-signals: DATABASE_URL: ${location.display} ${err.problem}\n`)
    return 1
  }
  process.stderr.write(`contest-signals: ${describeStore(location)}\n`)
  const absolute = path.resolve(target)
  try {
    const r = backupSqlite(location.path, absolute)
    process.stdout.write(
      `backed up to ${absolute}: ${r.contests} contests, ${r.signals} signals, ${r.keys} keys, ${r.bytes} bytes\n`,
    )
    return 0
  } catch (err) {
    if (err instanceof BackupRefused) {
      process.stderr.write(`contest-signals: backup refused: ${err.message}\n`)
      return 1
    }
    throw err
  }
}
