// Versioned schema migrations of the SQLite store, applied in order inside one write transaction.

import { randomInt } from 'node:crypto'
import type { DatabaseSync } from 'node:sqlite'
import { generateEpoch } from '../../domain/event-id.ts'
import { refuseNewerSchema } from '../../ports/store-errors.ts'
import { EPOCH_KEY } from '../meta-keys.ts'
import { refuseForeignSchema } from './foreign-check.ts'

export type Migration = {
  version: number
  name: string
  sql: string
  /** Runs after `sql` in the same transaction, for values SQL cannot make (the random epoch). */
  seed?: (db: DatabaseSync) => void
}

// STRICT tables make SQLite reject a value of the wrong type instead of silently storing it.
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema',
    sql: `
      CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;

      CREATE TABLE contests (
        ticker TEXT PRIMARY KEY,
        series TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('live', 'expired', 'settled')),
        opens_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        strike_price_dollars REAL,
        settled_side TEXT CHECK (settled_side IN ('up', 'down')),
        settled_price_dollars REAL,
        voided INTEGER NOT NULL DEFAULT 0 CHECK (voided IN (0, 1)),
        updated_at INTEGER NOT NULL
      ) STRICT;
      -- partial indexes: the live contest of a series, and the settled history in its published order
      CREATE INDEX contests_live_by_series ON contests (series, opens_at) WHERE state = 'live';
      CREATE INDEX contests_settled_history ON contests (series, expires_at DESC, ticker DESC)
        WHERE state = 'settled';
      CREATE INDEX contests_unsettled ON contests (opens_at, ticker) WHERE state <> 'settled';

      -- the primary key IS the one-signal-per-minute rule, so a duplicated engine cannot break it
      CREATE TABLE signals (
        ticker TEXT NOT NULL REFERENCES contests (ticker),
        minute INTEGER NOT NULL,
        raised_at INTEGER NOT NULL,
        side TEXT NOT NULL CHECK (side IN ('up', 'down')),
        confidence REAL NOT NULL,
        entry_price_cents REAL NOT NULL,
        edge_cents REAL NOT NULL,
        outcome TEXT NOT NULL CHECK (outcome IN ('pending', 'win', 'loss', 'void')),
        model_version TEXT,
        PRIMARY KEY (ticker, minute)
      ) STRICT;

      -- AUTOINCREMENT: a seq is never handed out twice, even after pruning empties the table,
      -- so a client's Last-Event-ID can never name a different event
      CREATE TABLE events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        type TEXT NOT NULL,
        series TEXT NOT NULL,
        ticker TEXT NOT NULL,
        data TEXT NOT NULL,
        appended_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX events_by_series ON events (series, seq);
      CREATE INDEX events_by_ticker ON events (ticker, seq);
      CREATE INDEX events_by_appended_at ON events (appended_at);

      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        label TEXT NOT NULL,
        digest TEXT NOT NULL UNIQUE,
        prefix TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        last_used_at INTEGER,
        revoked_at INTEGER
      ) STRICT;

      CREATE TABLE leases (
        name TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT;
    `,
    seed(db) {
      db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING').run(
        EPOCH_KEY,
        generateEpoch(randomInt),
      )
    },
  },
  {
    version: 2,
    name: 'reading inputs',
    // what produced each reading (decisions §11): internal columns, null on rows written before
    sql: `
      ALTER TABLE signals ADD COLUMN spot_observed_at INTEGER;
      ALTER TABLE signals ADD COLUMN book_observed_at INTEGER;
      ALTER TABLE signals ADD COLUMN spot_dollars REAL;
      ALTER TABLE signals ADD COLUMN fresh_sources INTEGER;
      ALTER TABLE signals ADD COLUMN up_ask_cents REAL;
      ALTER TABLE signals ADD COLUMN down_ask_cents REAL;
      ALTER TABLE signals ADD COLUMN sigma_per_minute REAL;
      ALTER TABLE signals ADD COLUMN effective_minutes REAL;
      ALTER TABLE signals ADD COLUMN probability_up REAL;
    `,
  },
  {
    version: 3,
    name: 'model alone',
    // P(up) before any pooling with the venue's mid (decisions §15): internal, null on older rows
    sql: 'ALTER TABLE signals ADD COLUMN model_alone_up REAL;',
  },
  {
    version: 4,
    name: 'venue references',
    // where each contest trades and the venue's references (decisions §16): null on rows written
    // before, which read back with the venue their series names and no references (row-mapping.ts)
    sql: `
      ALTER TABLE contests ADD COLUMN venue TEXT CHECK (venue IN ('kalshi', 'polymarket'));
      ALTER TABLE contests ADD COLUMN venue_refs TEXT;
    `,
  },
]

/**
 * Applies every pending migration and returns how many ran. BEGIN IMMEDIATE takes the write lock
 * before reading which versions exist, so two processes starting at once apply each migration once:
 * the second waits (busy_timeout), then finds nothing left to do. A database holding another
 * application's tables is refused (ForeignSchemaError) before anything is created in it.
 */
export function applyMigrations(db: DatabaseSync, now: number): number {
  db.exec('BEGIN IMMEDIATE')
  try {
    refuseForeignSchema(db)
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at INTEGER NOT NULL
    ) STRICT`)
    const applied = new Set(
      db
        .prepare('SELECT version FROM schema_migrations')
        .all()
        .map((row) => Number(row.version)),
    )
    refuseNewerSchema(applied, MIGRATIONS)
    const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
    let count = 0
    for (const m of MIGRATIONS) {
      if (applied.has(m.version)) continue
      db.exec(m.sql)
      m.seed?.(db)
      record.run(m.version, m.name, now)
      count++
    }
    db.exec('COMMIT')
    return count
  } catch (err) {
    if (db.isTransaction) db.exec('ROLLBACK')
    throw err
  }
}
