// Picks the store from DATABASE_URL (the one place that knows the concrete stores) and migrates it:
// every command works on a fresh store. A store that cannot be opened is reported naming DATABASE_URL
// (never with its password). A database that is neither empty nor a contest-signals store (at any
// migration) is refused before anything is written to it, by every command and role
// (store/foreign-schema.ts).
import type { Config } from '../config/config.ts'
import type { Store } from '../ports/store.ts'
import { ForeignSchemaError, NoStoreError } from '../store/foreign-schema.ts'
import { checkSqliteOwner } from '../store/sqlite/foreign-check.ts'
import { checkSqliteFile } from '../store/sqlite/integrity-check.ts'
import { createSqliteStore } from '../store/sqlite/sqlite-store.ts'
import { type StoreFaults, watchStoreFaults } from '../store/store-faults.ts'
import { type StoreLocation, storeLocation } from './store-location.ts'

export type StoreConfig = Pick<Config, 'databaseUrl'> &
  Partial<Pick<Config, 'pgStatementTimeoutMs' | 'pgConnectTimeoutMs'>>

/** The store with its faults watched (health reads them), and where it is. */
export type OpenedStore = { store: Store; faults: StoreFaults; location: StoreLocation }

export type OpenStoreOptions = {
  /** refuse a missing SQLite file, or an empty database or schema, instead of creating an empty store there (read-only commands) */
  mustExist?: boolean
}

/** Opens and migrates the store, and says where it is. */
export async function openStoreAt(config: StoreConfig, opts: OpenStoreOptions = {}): Promise<OpenedStore> {
  const location = storeLocation(config.databaseUrl)
  const mustExist = opts.mustExist === true && !(location.kind === 'sqlite' && location.path === ':memory:')
  if (location.kind === 'sqlite' && mustExist && !location.exists) throw noStore(location)
  let store: Store
  try {
    if (location.kind === 'sqlite') {
      checkSqliteFile(location.path)
      // on a connection of its own that writes nothing: the store's connection writes as it opens
      if (checkSqliteOwner(location.path) === 'empty' && mustExist) throw new NoStoreError()
    }
    store =
      location.kind === 'sqlite' ? createSqliteStore(location.path) : await openPostgres(config, mustExist)
  } catch (err) {
    throw storeError(location, err)
  }
  try {
    await store.migrate()
  } catch (err) {
    await store.close().catch(() => undefined)
    throw storeError(location, err)
  }
  const watched = watchStoreFaults(store, { now: () => Date.now() })
  return { ...watched, location }
}

export async function openStore(config: StoreConfig): Promise<Store> {
  return (await openStoreAt(config)).store
}

async function openPostgres(config: StoreConfig, mustExist: boolean): Promise<Store> {
  // Loaded lazily so the embedded default never loads the PostgreSQL client.
  const { createPostgresStore } = await import('../store/postgres/postgres-store.ts')
  return createPostgresStore(config.databaseUrl, {
    mustExist,
    ...(config.pgStatementTimeoutMs === undefined ? {} : { statementTimeoutMs: config.pgStatementTimeoutMs }),
    ...(config.pgConnectTimeoutMs === undefined ? {} : { connectTimeoutMs: config.pgConnectTimeoutMs }),
  })
}

/** No store where DATABASE_URL points, for a command that must not create one (opts.mustExist). */
export class StoreMissingError extends Error {
  override name = 'StoreMissingError'
  /** where the store was looked for: the SQLite path, or the URL without its password */
  readonly where: string
  constructor(message: string, where: string) {
    super(message)
    this.where = where
  }
}

function noStore(location: StoreLocation): Error {
  const what = location.kind === 'sqlite' ? 'file' : 'database or schema'
  const where = location.kind === 'sqlite' ? location.path : location.display
  return new StoreMissingError(
    `DATABASE_URL: no store at ${where} (run the service or \`contest-signals migrate\` there first, or point DATABASE_URL at the right ${what})`,
    where,
  )
}

/** The failure with the variable it comes from in front, and the URL without its password. */
function storeError(location: StoreLocation, err: unknown): Error {
  if (err instanceof NoStoreError) return noStore(location)
  if (err instanceof ForeignSchemaError)
    return new Error(`DATABASE_URL: ${location.display} ${err.problem}`, { cause: err })
  const e = err as { code?: unknown; message?: unknown }
  const code = typeof e.code === 'string' ? ` (${e.code})` : ''
  const message = typeof e.message === 'string' && e.message !== '' ? e.message.split('\n')[0] : String(err)
  const what = location.kind === 'postgres' ? 'cannot use PostgreSQL at' : 'cannot open the SQLite store at'
  return new Error(`DATABASE_URL: ${what} ${location.display}: ${message}${code}`, { cause: err })
}
