// Whose database it is: both SQL stores migrate a database only when it is empty or already a
// contest-signals store. Anything else (another application's tables) is refused before anything is
// written to it, so a mistyped DATABASE_URL can never scatter this service's tables over someone
// else's data, nor fail only by the accident of a table name both happen to use.

/**
 * The mark of a contest-signals store at any migration: its `schema_migrations` table, with these
 * columns, holding the record the first migration has always left. A table of that name alone is
 * no mark: Rails and golang-migrate make one too (with other columns).
 */
export const SCHEMA_MARKER = {
  table: 'schema_migrations',
  columns: ['version', 'name', 'applied_at'],
  first: { version: 1, name: 'initial schema' },
} as const

/** What a database holds, as the migrations see it. */
export type SchemaVerdict =
  | { kind: 'empty' }
  | { kind: 'store' }
  /** tables (and views) of another application, by name */
  | { kind: 'foreign'; tables: readonly string[] }

/** Whether a `schema_migrations` with these columns may be this service's (and so may be queried for its first record). */
export function markerShaped(columns: readonly string[]): boolean {
  return SCHEMA_MARKER.columns.every((c) => columns.includes(c))
}

/**
 * The verdict on a database holding `tables` (its own tables and views, the engine's internal ones
 * left out), whose `schema_migrations` names its version 1 `firstName` (null: no such table, another
 * shape, or no such record).
 */
export function judgeSchema(tables: readonly string[], firstName: string | null): SchemaVerdict {
  if (tables.length === 0) return { kind: 'empty' }
  if (firstName === SCHEMA_MARKER.first.name) return { kind: 'store' }
  return { kind: 'foreign', tables }
}

const LISTED = 5

/** The database holds another application's tables: refused before anything is written to it. */
export class ForeignSchemaError extends Error {
  readonly tables: readonly string[]
  /** the PostgreSQL schema judged; undefined for SQLite */
  readonly schema: string | undefined
  /** what is wrong and what to do, without naming the database: "holds tables of … (users): point it at …" */
  readonly problem: string

  constructor(tables: readonly string[], schema?: string) {
    const listed = tables.slice(0, LISTED).join(', ')
    const more = tables.length > LISTED ? ` and ${tables.length - LISTED} more` : ''
    const problem =
      schema === undefined
        ? `holds tables of another application (${listed}${more}): point it at an empty database or a contest-signals store`
        : `holds tables of another application in schema ${schema} (${listed}${more}): point it at an empty database, a schema of its own (?schema=NAME) or a contest-signals store`
    super(`the database ${problem}`)
    this.name = 'ForeignSchemaError'
    this.tables = tables
    this.schema = schema
    this.problem = problem
  }
}

/**
 * A read-only command found no store where DATABASE_URL points (an empty database or PostgreSQL
 * schema): refused before anything is created, so a mistyped URL is not answered from an empty store.
 */
export class NoStoreError extends Error {
  constructor(schema?: string) {
    super(schema === undefined ? 'the database is empty' : `schema ${schema} holds no store`)
    this.name = 'NoStoreError'
  }
}
