// Versioned schema migrations of the PostgreSQL store: the SQLite store's versions, tables and indexes
// in PostgreSQL DDL, applied inside one transaction under a per-schema advisory lock.

import { createHash, randomInt } from 'node:crypto'
import pg from 'pg'
import { generateEpoch } from '../../domain/event-id.ts'
import { refuseNewerSchema } from '../../ports/store-errors.ts'
import {
  ForeignSchemaError,
  judgeSchema,
  markerShaped,
  NoStoreError,
  SCHEMA_MARKER,
  type SchemaVerdict,
} from '../foreign-schema.ts'
import { EPOCH_KEY } from '../meta-keys.ts'

export type PostgresMigration = {
  version: number
  name: string
  sql: string
  /** Runs after `sql` in the same transaction, for values SQL cannot make (the random epoch). */
  seed?: (client: pg.ClientBase) => Promise<void>
}

/**
 * First halves of the store's two-key advisory locks (the second half is schemaLockId), chosen to be
 * unlikely to clash with other applications' locks in a shared database.
 */
export const LOCK_CLASS = {
  migrate: 0x63_73_6d_67,
  events: 0x63_73_65_76,
} as const

/**
 * A stable 32-bit id of the schema, so deployments (and test runs) sharing a database lock
 * independently. A hash collision between two schemas only serializes them, it never breaks them.
 */
export function schemaLockId(schema: string): number {
  return createHash('sha256').update(schema).digest().readInt32BE(0)
}

// Text that is compared or ordered (tickers, series, ids) uses the "C" collation: byte order, as
// SQLite's BINARY, so ordering never depends on the server's locale. Times are BIGINT epoch ms.
export const MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'initial schema',
    sql: `
      CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );

      CREATE TABLE contests (
        ticker TEXT COLLATE "C" PRIMARY KEY,
        series TEXT COLLATE "C" NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('live', 'expired', 'settled')),
        opens_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        strike_price_dollars DOUBLE PRECISION,
        settled_side TEXT CHECK (settled_side IN ('up', 'down')),
        settled_price_dollars DOUBLE PRECISION,
        voided BOOLEAN NOT NULL DEFAULT false,
        updated_at BIGINT NOT NULL
      );
      -- partial indexes: the live contest of a series, and the settled history in its published order
      CREATE INDEX contests_live_by_series ON contests (series, opens_at) WHERE state = 'live';
      CREATE INDEX contests_settled_history ON contests (series, expires_at DESC, ticker DESC)
        WHERE state = 'settled';
      CREATE INDEX contests_unsettled ON contests (opens_at, ticker) WHERE state <> 'settled';

      -- the primary key IS the one-signal-per-minute rule, so a duplicated engine cannot break it
      CREATE TABLE signals (
        ticker TEXT COLLATE "C" NOT NULL REFERENCES contests (ticker),
        minute INTEGER NOT NULL,
        raised_at BIGINT NOT NULL,
        side TEXT NOT NULL CHECK (side IN ('up', 'down')),
        confidence DOUBLE PRECISION NOT NULL,
        entry_price_cents DOUBLE PRECISION NOT NULL,
        edge_cents DOUBLE PRECISION NOT NULL,
        outcome TEXT NOT NULL CHECK (outcome IN ('pending', 'win', 'loss', 'void')),
        model_version TEXT,
        PRIMARY KEY (ticker, minute)
      );

      -- A sequence never hands a value out twice, so a client's Last-Event-ID can never name a
      -- different event. Its cache stays at 1: appenders take seqs one at a time under the events
      -- advisory lock, and a cache would let a later transaction take a lower seq.
      CREATE TABLE events (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        type TEXT NOT NULL,
        series TEXT COLLATE "C" NOT NULL,
        ticker TEXT COLLATE "C" NOT NULL,
        data TEXT NOT NULL,
        appended_at BIGINT NOT NULL
      );
      CREATE INDEX events_by_series ON events (series, seq);
      CREATE INDEX events_by_ticker ON events (ticker, seq);
      CREATE INDEX events_by_appended_at ON events (appended_at);

      -- The counterpart of SQLite's sqlite_sequence: the highest seq committed, kept even when pruning
      -- empties the log. Unlike the sequence itself it is transactional, so it never names an event a
      -- reader cannot see yet (a follower starting at latestSeq would otherwise skip it).
      CREATE TABLE event_counter (
        singleton BOOLEAN PRIMARY KEY DEFAULT true CHECK (singleton),
        latest_seq BIGINT NOT NULL
      );
      INSERT INTO event_counter (latest_seq) VALUES (0);

      CREATE TABLE api_keys (
        id TEXT COLLATE "C" PRIMARY KEY,
        label TEXT NOT NULL,
        digest TEXT NOT NULL UNIQUE,
        prefix TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        last_used_at BIGINT,
        revoked_at BIGINT
      );

      CREATE TABLE leases (
        name TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        expires_at BIGINT NOT NULL
      );
    `,
    async seed(client) {
      await client.query('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [
        EPOCH_KEY,
        generateEpoch(randomInt),
      ])
    },
  },
  {
    version: 2,
    name: 'reading inputs',
    // what produced each reading (decisions §11): internal columns, null on rows written before
    sql: `
      ALTER TABLE signals
        ADD COLUMN spot_observed_at BIGINT,
        ADD COLUMN book_observed_at BIGINT,
        ADD COLUMN spot_dollars DOUBLE PRECISION,
        ADD COLUMN fresh_sources INTEGER,
        ADD COLUMN up_ask_cents DOUBLE PRECISION,
        ADD COLUMN down_ask_cents DOUBLE PRECISION,
        ADD COLUMN sigma_per_minute DOUBLE PRECISION,
        ADD COLUMN effective_minutes DOUBLE PRECISION,
        ADD COLUMN probability_up DOUBLE PRECISION;
    `,
  },
  {
    version: 3,
    name: 'model alone',
    // P(up) before any pooling with the venue's mid (decisions §15): internal, null on older rows
    sql: 'ALTER TABLE signals ADD COLUMN model_alone_up DOUBLE PRECISION;',
  },
  {
    version: 4,
    name: 'venue references',
    // where each contest trades and the venue's references (decisions §16): null on rows written
    // before, which read back with the venue their series names and no references (row-mapping.ts)
    sql: `
      ALTER TABLE contests
        ADD COLUMN venue TEXT CHECK (venue IN ('kalshi', 'polymarket')),
        ADD COLUMN venue_refs TEXT;
    `,
  },
]

/**
 * What `schema` holds, judged on it alone: a shared database may hold any number of other schemas,
 * and those are other deployments' business (`?schema=NAME` is how deployments share one). A schema
 * that does not exist is empty, and so is one whose only tables and views belong to extensions
 * (PostGIS puts `spatial_ref_sys` in `public`); sequences, functions and types are not looked at.
 */
export async function postgresSchemaVerdict(client: pg.ClientBase, schema: string): Promise<SchemaVerdict> {
  // r table, p partitioned table, v view, m materialized view, f foreign table; deptype e: an extension's member
  const found = await client.query<{ name: string }>(
    `SELECT c.relname AS name
       FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
        AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d
                         WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
      ORDER BY c.relname COLLATE "C"`,
    [schema],
  )
  const tables = found.rows.map((r) => r.name)
  let firstName: string | null = null
  if (tables.includes(SCHEMA_MARKER.table)) {
    const columns = await client.query<{ name: string }>(
      `SELECT a.attname AS name
         FROM pg_catalog.pg_attribute a
         JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
         JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped`,
      [schema, SCHEMA_MARKER.table],
    )
    if (markerShaped(columns.rows.map((r) => r.name))) {
      // compared as text, so a version column of another type is no error
      const row = await client.query<{ name: unknown }>(
        `SELECT name FROM ${pg.escapeIdentifier(schema)}.${SCHEMA_MARKER.table} WHERE version::text = $1`,
        [String(SCHEMA_MARKER.first.version)],
      )
      const name = row.rows[0]?.name
      firstName = typeof name === 'string' ? name : null
    }
  }
  return judgeSchema(tables, firstName)
}

/**
 * Applies every pending migration inside the caller's transaction and returns how many ran. The
 * advisory lock is taken before anything is read or created, so several processes starting at once
 * on a fresh schema queue up: the first creates everything, the others then find nothing left to do
 * (CREATE … IF NOT EXISTS alone races on the catalogs). A schema holding another application's
 * tables is refused (ForeignSchemaError) before anything is created, the schema itself included, and
 * so is an empty one when `mustExist` (NoStoreError: a read-only command).
 */
export async function applyMigrations(
  client: pg.ClientBase,
  schema: string,
  now: number,
  opts: { mustExist?: boolean } = {},
): Promise<number> {
  await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_CLASS.migrate, schemaLockId(schema)])
  const verdict = await postgresSchemaVerdict(client, schema)
  if (verdict.kind === 'foreign') throw new ForeignSchemaError(verdict.tables, schema)
  if (verdict.kind === 'empty' && opts.mustExist) throw new NoStoreError(schema)
  // CREATE SCHEMA IF NOT EXISTS checks the CREATE privilege even when the schema exists: look first,
  // so a role that may only use an existing schema can still start.
  const found = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])
  if (found.rowCount === 0) await client.query(`CREATE SCHEMA IF NOT EXISTS ${pg.escapeIdentifier(schema)}`)
  await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at BIGINT NOT NULL
  )`)
  const rows = await client.query<{ version: number }>('SELECT version FROM schema_migrations')
  const applied = new Set(rows.rows.map((r) => r.version))
  refuseNewerSchema(applied, MIGRATIONS)
  let count = 0
  for (const m of MIGRATIONS) {
    if (applied.has(m.version)) continue
    await client.query(m.sql)
    await m.seed?.(client)
    await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
      m.version,
      m.name,
      now,
    ])
    count++
  }
  return count
}
