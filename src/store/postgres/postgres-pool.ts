// PostgresStore's connection pool and its transactions: startup parameters that hold from the first
// statement, a pool that survives dropped connections, and write transactions whose events take
// their seqs in commit order.
import pg from 'pg'
import type { NewEvent, StoredEvent } from '../../domain/events.ts'
import { isConnectionLost, translate } from './postgres-errors.ts'
import { LOCK_CLASS, schemaLockId } from './postgres-migrations.ts'
import { parseInt8, type Row } from './postgres-rows.ts'
import { SQL } from './postgres-sql.ts'
import { parsePostgresUrl } from './postgres-url.ts'

export type PoolOptions = {
  /** Most connections the pool opens (default 10). */
  poolSize?: number
  /** Server-side limit on any one statement, in ms (default 5000). */
  statementTimeoutMs?: number
  /** Limit on opening a connection or waiting for a free one, in ms (default 2000). */
  connectTimeoutMs?: number
}

const DEFAULT_POOL_SIZE = 10
const DEFAULT_STATEMENT_TIMEOUT_MS = 5000
/** Named in pg_stat_activity, so an operator can tell the store's connections apart (a URL's application_name wins). */
const APPLICATION_NAME = 'contest-signals'
/** An unreachable server (or a pool with no free connection) fails a call after this long: a 503 beats a hang. */
const DEFAULT_CONNECT_TIMEOUT_MS = 2000
/** Beyond the server's statement timeout, how long the client waits for a server that does not answer at all. */
const CLIENT_TIMEOUT_SLACK_MS = 2000

/** A pooled query or a transaction's client: anything a read can run on. */
export type Queryable = { query(sql: string, params?: unknown[]): Promise<pg.QueryResult<Row>> }

/** A write transaction: its client, and the one way to append an event inside it. */
export type Tx = {
  client: pg.PoolClient
  append(event: NewEvent): Promise<StoredEvent>
}

export function first(result: pg.QueryResult<Row>): Row | undefined {
  return result.rows[0]
}

export function toNumber(value: unknown): number {
  if (typeof value !== 'number') throw new TypeError(`expected a number, got ${typeof value}`)
  return value
}

/** The pg pool settings: search path and timeouts are startup parameters, so they hold from the first statement. */
function poolConfig(url: string, opts: PoolOptions): { config: pg.PoolConfig; schema: string } {
  const { connectionString, schema } = parsePostgresUrl(url)
  const statementTimeoutMs = opts.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS
  // pg lets URL parameters override the config object, so `options` from the URL is merged into
  // ours here instead of silently replacing it.
  const u = new URL(connectionString)
  const given = u.searchParams.get('options')
  u.searchParams.delete('options')
  const options = [
    given,
    `-c search_path=${schema}`,
    `-c statement_timeout=${statementTimeoutMs}`,
    // A stalled process must not hold the events lock (and so every writer) for long.
    `-c idle_in_transaction_session_timeout=${Math.max(statementTimeoutMs, DEFAULT_STATEMENT_TIMEOUT_MS)}`,
  ]
    .filter(Boolean)
    .join(' ')
  const types = new pg.TypeOverrides()
  types.setTypeParser(pg.types.builtins.INT8, parseInt8)
  return {
    schema,
    config: {
      connectionString: u.toString(),
      options,
      application_name: APPLICATION_NAME,
      max: opts.poolSize ?? DEFAULT_POOL_SIZE,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      // A paused or partitioned server never sends the statement timeout's error: bound it here too.
      query_timeout: statementTimeoutMs + CLIENT_TIMEOUT_SLACK_MS,
      keepAlive: true,
      types,
    },
  }
}

export type PostgresPool = {
  /** the schema every statement runs in (the URL's ?schema=, default public) */
  schema: string
  /** One statement on any pooled connection; failures that mean "unavailable" become StoreUnavailableError. */
  query(sql: string, params?: unknown[]): Promise<pg.QueryResult<Row>>
  /** A read-only statement: like query, and tried once more on a fresh connection when the first was lost. */
  read(sql: string, params?: unknown[]): Promise<pg.QueryResult<Row>>
  /** One transaction; rolled back, and its client destroyed unless the rollback proves it healthy, on any error. */
  tx<T>(body: (t: Tx) => Promise<T>): Promise<T>
  /** Ends the pool once; later calls do nothing. */
  end(): Promise<void>
}

/** `wallNow` stamps each appended event's appendedAt. */
export function createPostgresPool(url: string, opts: PoolOptions, wallNow: () => number): PostgresPool {
  const { config, schema } = poolConfig(url, opts)
  const eventLock = [LOCK_CLASS.events, schemaLockId(schema)]
  // The pool connects lazily, on the first query.
  const pool = new pg.Pool(config)
  // An idle connection dropped by the server (restart, failover, pg_terminate_backend) surfaces here;
  // the pool has already discarded it and the next call opens a fresh one. Without a listener the
  // error would crash the process.
  pool.on('error', () => undefined)
  let closed = false

  async function query(sql: string, params: unknown[] = []): Promise<pg.QueryResult<Row>> {
    // pool.query releases its client with the error on failure, so a broken connection is destroyed
    try {
      return await pool.query<Row>(sql, params)
    } catch (err) {
      throw translate(err)
    }
  }

  async function read(sql: string, params: unknown[] = []): Promise<pg.QueryResult<Row>> {
    try {
      return await pool.query<Row>(sql, params)
    } catch (err) {
      // A read that lost its connection did nothing: once more, on a connection the pool opens or
      // still holds (the dead one was destroyed). A statement timeout or a refused connect is not retried.
      if (closed || !isConnectionLost(err)) throw translate(err)
    }
    return query(sql, params)
  }

  async function tx<T>(body: (t: Tx) => Promise<T>): Promise<T> {
    const client = await pool.connect().catch((err: unknown) => {
      throw translate(err)
    })
    // A checked-out client has no pool listener: a connection lost between two statements would
    // otherwise emit an unhandled 'error'. The failure reaches us through the next query instead.
    const ignore = () => undefined
    client.on('error', ignore)
    let ordered = false
    const t: Tx = {
      client,
      async append(event) {
        if (!ordered) {
          await client.query(SQL.lockEvents, eventLock)
          ordered = true
        }
        const appendedAt = wallNow()
        const result = await client.query<Row>(SQL.appendEvent, [
          event.type,
          event.series,
          event.ticker,
          event.data,
          appendedAt,
        ])
        const row = first(result)
        if (!row) throw new Error('the event counter is missing: run migrations first')
        return { ...event, seq: toNumber(row.seq), appendedAt }
      },
    }
    try {
      await client.query('BEGIN')
      const result = await body(t)
      await client.query('COMMIT')
      client.off('error', ignore)
      client.release()
      return result
    } catch (err) {
      const healthy = await client.query('ROLLBACK').then(
        () => true,
        () => false,
      )
      client.off('error', ignore)
      client.release(healthy ? undefined : (err as Error))
      throw translate(err)
    }
  }

  return {
    schema,
    query,
    read,
    tx,
    async end() {
      if (closed) return
      closed = true
      await pool.end()
    },
  }
}
