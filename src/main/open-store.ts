// Picks the store from DATABASE_URL (the one place that knows the concrete stores) and migrates it:
// every command works on a fresh store.
import type { Config } from '../config/config.ts'
import type { Store } from '../ports/store.ts'
import { createSqliteStore } from '../store/sqlite/sqlite-store.ts'

export type StoreConfig = Pick<Config, 'databaseUrl'> &
  Partial<Pick<Config, 'pgStatementTimeoutMs' | 'pgConnectTimeoutMs'>>

export async function openStore(config: StoreConfig): Promise<Store> {
  const url = config.databaseUrl
  const store = url.startsWith('sqlite:')
    ? createSqliteStore(url.slice('sqlite:'.length))
    : await openPostgres(config)
  try {
    await store.migrate()
  } catch (err) {
    await store.close().catch(() => undefined)
    throw err
  }
  return store
}

async function openPostgres(config: StoreConfig): Promise<Store> {
  // Loaded lazily so the embedded default never loads the PostgreSQL client.
  const { createPostgresStore } = await import('../store/postgres/postgres-store.ts')
  return createPostgresStore(config.databaseUrl, {
    ...(config.pgStatementTimeoutMs === undefined ? {} : { statementTimeoutMs: config.pgStatementTimeoutMs }),
    ...(config.pgConnectTimeoutMs === undefined ? {} : { connectTimeoutMs: config.pgConnectTimeoutMs }),
  })
}
