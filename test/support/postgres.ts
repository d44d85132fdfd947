// PostgreSQL for tests: every store gets a schema of its own in one shared database, so runs never collide.
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { parsePostgresUrl } from '../../src/store/postgres/postgres-url.ts'

/** The machine's server (trust auth, database `test`), used when it answers and nothing else is set. */
export const MACHINE_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test'

/** Set by the test run's prerequisite step (test/prerequisites/) to the server it settled on. */
export const POSTGRES_TEST_URL = process.env.TEST_DATABASE_URL ?? MACHINE_POSTGRES_URL

/** The test database's URL with `?schema=<prefix>_<random>`; prefix is lower-case letters, digits and _. */
export function uniqueSchemaUrl(prefix: string): string {
  const u = new URL(POSTGRES_TEST_URL)
  u.searchParams.set('schema', `${prefix}_${randomBytes(6).toString('hex')}`)
  return u.toString()
}

/**
 * Runs `fn` on a connection of its own to the database of `url` (the test database by default). The
 * connection ignores any `?schema=`: name objects in full.
 */
export async function withTestClient<T>(
  fn: (client: pg.Client) => Promise<T>,
  url: string = POSTGRES_TEST_URL,
): Promise<T> {
  const { connectionString } = parsePostgresUrl(url)
  const client = new pg.Client({ connectionString, application_name: 'contest-signals-test' })
  client.on('error', () => undefined)
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end()
  }
}

/** Drops the schema named by `url` and everything in it. */
export async function dropSchema(url: string): Promise<void> {
  const { schema } = parsePostgresUrl(url)
  await withTestClient(
    (client) => client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`),
    url,
  )
}
