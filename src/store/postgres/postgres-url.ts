// DATABASE_URL for PostgreSQL may carry `?schema=NAME` (default `public`): the store creates and
// uses that schema, so several deployments or test runs can share one database without colliding.
export type PostgresUrl = { connectionString: string; schema: string }

const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/

export function parsePostgresUrl(url: string): PostgresUrl {
  const u = new URL(url)
  const schema = u.searchParams.get('schema') ?? 'public'
  if (!SCHEMA_PATTERN.test(schema)) {
    throw new Error('DATABASE_URL schema must be lower-case letters, digits and _ (at most 63 characters)')
  }
  u.searchParams.delete('schema')
  return { connectionString: u.toString(), schema }
}
