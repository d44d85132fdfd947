// PostgresStore: the scaled-out Store on a pg connection pool, behaving exactly as SqliteStore.
import pg from 'pg'
import type { ApiKeyRecord } from '../../domain/api-key.ts'
import { type Contest, reviseContest, type Signal, settleContest } from '../../domain/contest.ts'
import {
  contestExpiredEvent,
  contestOpenedEvent,
  contestRevisedEvent,
  contestSettledEvent,
  historyImportedEvent,
  keyChangedEvent,
  type NewEvent,
  type StoredEvent,
  signalEmittedEvent,
} from '../../domain/events.ts'
import type { Clock } from '../../ports/clock.ts'
import type { EventScope, HistoryQuery, Lease, Store } from '../../ports/store.ts'
import { applyMigrations, LOCK_CLASS, schemaLockId } from './postgres-migrations.ts'
import {
  contestRecord,
  parseInt8,
  type Row,
  signalColumns,
  toApiKey,
  toContest,
  toStoredEvent,
} from './postgres-rows.ts'
import { parsePostgresUrl } from './postgres-url.ts'

export type PostgresStoreOptions = {
  /** Source of events' appendedAt and rows' updated_at (retention runs on the wall clock). */
  wallClock?: Clock
  /** Most connections the pool opens (default 10). */
  poolSize?: number
  /** Server-side limit on any one statement, in ms (default 5000). */
  statementTimeoutMs?: number
}

const DEFAULT_POOL_SIZE = 10
const DEFAULT_STATEMENT_TIMEOUT_MS = 5000
/** Named in pg_stat_activity, so an operator can tell the store's connections apart (a URL's application_name wins). */
const APPLICATION_NAME = 'contest-signals'
/** An unreachable server fails a call after this long instead of leaving it hanging. */
const CONNECT_TIMEOUT_MS = 10_000

/** There is one engine lease per deployment. */
const ENGINE_LEASE = 'engine'
const HEARTBEAT_KEY = 'engine_heartbeat'

// One statement reads a contest with its signals, so the two always come from one snapshot.
const CONTESTS = `SELECT c.*,
    (SELECT coalesce(json_agg(s ORDER BY s.minute), '[]'::json) FROM signals s WHERE s.ticker = c.ticker)
      AS signals
  FROM contests c`

const SQL = {
  ping: 'SELECT 1',
  contest: `${CONTESTS} WHERE c.ticker = $1`,
  liveContest: `${CONTESTS} WHERE c.series = $1 AND c.state = 'live'
    ORDER BY c.opens_at DESC, c.ticker DESC LIMIT 1`,
  settled: `${CONTESTS}
    WHERE c.state = 'settled' AND c.series = $1 AND c.expires_at BETWEEN $2 AND $3
    ORDER BY c.expires_at DESC, c.ticker DESC LIMIT $4`,
  unsettled: `${CONTESTS} WHERE c.state <> 'settled' ORDER BY c.opens_at, c.ticker`,
  countAll: 'SELECT count(*) AS n FROM contests',
  countSeries: 'SELECT count(*) AS n FROM contests WHERE series = $1',
  // Bulk inserts take one JSON array, so a backfill of thousands of contests is two statements.
  insertContests: `INSERT INTO contests (ticker, series, state, opens_at, expires_at, strike_price_dollars,
      settled_side, settled_price_dollars, voided, updated_at)
    SELECT * FROM json_to_recordset($1::json) AS x(ticker text, series text, state text, opens_at bigint,
      expires_at bigint, strike_price_dollars double precision, settled_side text,
      settled_price_dollars double precision, voided boolean, updated_at bigint)
    ON CONFLICT (ticker) DO NOTHING
    RETURNING ticker`,
  insertSignals: `INSERT INTO signals (ticker, minute, raised_at, side, confidence, entry_price_cents,
      edge_cents, outcome, model_version)
    SELECT * FROM json_to_recordset($1::json) AS x(ticker text, minute integer, raised_at bigint, side text,
      confidence double precision, entry_price_cents double precision, edge_cents double precision,
      outcome text, model_version text)
    ON CONFLICT (ticker, minute) DO NOTHING`,
  // The row lock makes "is it live / not yet settled" hold until commit: no expiry or settlement
  // can slip between the check and the write, as SQLite's single writer guarantees.
  lockContest: 'SELECT state FROM contests WHERE ticker = $1 FOR UPDATE',
  touchContest: 'UPDATE contests SET updated_at = $1 WHERE ticker = $2',
  expire: `UPDATE contests SET state = 'expired', updated_at = $1 WHERE ticker = $2 AND state = 'live'`,
  revise: `UPDATE contests SET strike_price_dollars = $2, opens_at = $3, expires_at = $4, updated_at = $5
    WHERE ticker = $1 AND state = 'live'`,
  settle: `UPDATE contests SET state = 'settled', settled_side = $2, settled_price_dollars = $3,
      voided = $4, updated_at = $5
    WHERE ticker = $1 AND state <> 'settled'`,
  gradeSignals: `UPDATE signals s SET outcome = x.outcome
    FROM json_to_recordset($2::json) AS x(minute integer, outcome text)
    WHERE s.ticker = $1 AND s.minute = x.minute`,
  // Appenders queue here before taking a seq, so seqs commit in order: a reader following
  // `seq > cursor` never passes a seq that is still to commit. Transaction-scoped, so a dropped
  // connection releases it.
  lockEvents: 'SELECT pg_advisory_xact_lock($1, $2)',
  appendEvent: `WITH appended AS (
      INSERT INTO events (type, series, ticker, data, appended_at) VALUES ($1, $2, $3, $4, $5)
      RETURNING seq
    )
    UPDATE event_counter SET latest_seq = appended.seq FROM appended RETURNING appended.seq`,
  eventsAfter: 'SELECT * FROM events WHERE seq > $1 ORDER BY seq LIMIT $2',
  eventsAfterSeries: 'SELECT * FROM events WHERE series = $1 AND seq > $2 ORDER BY seq LIMIT $3',
  eventsAfterTicker: 'SELECT * FROM events WHERE ticker = $1 AND seq > $2 ORDER BY seq LIMIT $3',
  contestHistory: `SELECT * FROM events
    WHERE ticker = $1 AND seq <= $2 AND type IN ('contest.opened', 'signal.emitted') ORDER BY seq`,
  hasEvent: 'SELECT 1 AS found FROM events WHERE seq = $1',
  // the counter, not the sequence: it keeps the highest seq after pruning and never runs ahead of commits
  latestSeq: 'SELECT latest_seq FROM event_counter',
  prune: 'DELETE FROM events WHERE appended_at < $1',
  metaGet: 'SELECT value FROM meta WHERE key = $1',
  metaInit: 'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING',
  metaSet:
    'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  // One statement decides and writes: the lease changes hands only when free, expired or ours. When
  // it does not update, ON CONFLICT still locks the row, so the read that follows sees it as it stands.
  acquireLease: `INSERT INTO leases (name, holder, expires_at) VALUES ($1, $2, $3)
    ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
    WHERE leases.holder = excluded.holder OR leases.expires_at <= $4
    RETURNING holder, expires_at`,
  lease: 'SELECT holder, expires_at FROM leases WHERE name = $1',
  releaseLease: 'DELETE FROM leases WHERE name = $1 AND holder = $2',
  insertKey: `INSERT INTO api_keys (id, label, digest, prefix, created_at, last_used_at, revoked_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7)`,
  listKeys: 'SELECT * FROM api_keys ORDER BY created_at, id',
  keyByDigest: 'SELECT * FROM api_keys WHERE digest = $1',
  revokeKey: 'UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL',
  // Replicas flush overlapping batches: locking the rows in id order first means two flushes queue
  // instead of deadlocking.
  lockKeys: `SELECT 1 FROM api_keys WHERE id IN (SELECT id FROM json_to_recordset($1::json) AS x(id text))
    ORDER BY id FOR UPDATE`,
  // batches from several replicas may land out of order: last use only moves forward
  touchKeys: `UPDATE api_keys k SET last_used_at = greatest(coalesce(k.last_used_at, 0), x.at)
    FROM json_to_recordset($1::json) AS x(id text, at bigint) WHERE k.id = x.id`,
} as const

type Queryable = Pick<pg.ClientBase, 'query'>

/** A write transaction: its client, and the one way to append an event inside it. */
type Tx = {
  client: pg.PoolClient
  append(event: NewEvent): Promise<StoredEvent>
}

function first(result: pg.QueryResult<Row>): Row | undefined {
  return result.rows[0]
}

function toNumber(value: unknown): number {
  if (typeof value !== 'number') throw new TypeError(`expected a number, got ${typeof value}`)
  return value
}

/** The pg pool settings: search path and timeouts are startup parameters, so they hold from the first statement. */
function poolConfig(url: string, opts: PostgresStoreOptions): { config: pg.PoolConfig; schema: string } {
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
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
      types,
    },
  }
}

export function createPostgresStore(url: string, opts: PostgresStoreOptions = {}): Store {
  const wallNow = opts.wallClock ? () => opts.wallClock!.now() : () => Date.now()
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
    return pool.query<Row>(sql, params)
  }

  /** One transaction; rolled back, and its client destroyed unless the rollback proves it healthy, on any error. */
  async function tx<T>(body: (t: Tx) => Promise<T>): Promise<T> {
    const client = await pool.connect()
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
      throw err
    }
  }

  async function readContest(db: Queryable, ticker: string): Promise<Contest | null> {
    const row = first(await db.query<Row>(SQL.contest, [ticker]))
    return row ? toContest(row) : null
  }

  async function lockContest(client: pg.PoolClient, ticker: string): Promise<string | null> {
    const row = first(await client.query<Row>(SQL.lockContest, [ticker]))
    return row ? String(row.state) : null
  }

  /** Inserts the contests whose tickers are new, with their signals; returns the tickers inserted. */
  async function insertContests(client: pg.PoolClient, contests: readonly Contest[]): Promise<Set<string>> {
    // SQLite inserts one by one, so the first of two contests with one ticker wins; keep that here.
    const seen = new Set<string>()
    const unique = contests.filter((c) => !seen.has(c.ticker) && seen.add(c.ticker))
    const updatedAt = wallNow()
    const result = await client.query<Row>(SQL.insertContests, [
      JSON.stringify(unique.map((c) => contestRecord(c, updatedAt))),
    ])
    const inserted = new Set(result.rows.map((r) => String(r.ticker)))
    const signals = unique.filter((c) => inserted.has(c.ticker)).flatMap((c) => c.signals)
    if (signals.length > 0) await insertSignals(client, signals)
    return inserted
  }

  async function insertSignals(client: pg.PoolClient, signals: readonly Signal[]): Promise<number> {
    const result = await client.query(SQL.insertSignals, [JSON.stringify(signals.map(signalColumns))])
    return result.rowCount ?? 0
  }

  return {
    async migrate() {
      await tx(({ client }) => applyMigrations(client, schema, wallNow()))
    },
    async epoch() {
      const row = first(await query(SQL.metaGet, ['epoch']))
      if (!row) throw new Error('the store has no epoch: run migrations first')
      return String(row.value)
    },
    async ping() {
      await query(SQL.ping)
    },
    async close() {
      if (closed) return
      closed = true
      await pool.end()
    },

    async getContest(ticker) {
      return readContest(pool, ticker)
    },
    async getLiveContest(series) {
      const row = first(await query(SQL.liveContest, [series]))
      return row ? toContest(row) : null
    },
    async listSettled(q: HistoryQuery) {
      const params = [
        q.series,
        q.since ?? Number.MIN_SAFE_INTEGER,
        q.before ?? Number.MAX_SAFE_INTEGER,
        q.limit,
      ]
      return (await query(SQL.settled, params)).rows.map(toContest)
    },
    async listUnsettled() {
      return (await query(SQL.unsettled)).rows.map(toContest)
    },
    async countContests(series) {
      const result = series === undefined ? await query(SQL.countAll) : await query(SQL.countSeries, [series])
      return toNumber(first(result)?.n)
    },

    async openContest(contest) {
      return tx(async (t) => {
        if ((await insertContests(t.client, [contest])).size === 0) return null
        return t.append(contestOpenedEvent((await readContest(t.client, contest.ticker))!))
      })
    },
    async addSignal(signal) {
      return tx(async (t) => {
        if ((await lockContest(t.client, signal.ticker)) !== 'live') return null
        if ((await insertSignals(t.client, [signal])) === 0) return null
        await t.client.query(SQL.touchContest, [wallNow(), signal.ticker])
        const after = (await readContest(t.client, signal.ticker))!
        const stored = after.signals.find((s) => s.minute === signal.minute)!
        return t.append(signalEmittedEvent(after, stored))
      })
    },
    async expireContest(ticker) {
      return tx(async (t) => {
        const result = await t.client.query(SQL.expire, [wallNow(), ticker])
        if (result.rowCount === 0) return null
        return t.append(contestExpiredEvent((await readContest(t.client, ticker))!))
      })
    },
    async reviseContest(ticker, revision) {
      return tx(async (t) => {
        if ((await lockContest(t.client, ticker)) !== 'live') return null
        const revised = reviseContest((await readContest(t.client, ticker))!, revision)
        if (!revised) return null
        const { strikePriceDollars, opensAt, expiresAt } = revised
        await t.client.query(SQL.revise, [ticker, strikePriceDollars, opensAt, expiresAt, wallNow()])
        return t.append(contestRevisedEvent((await readContest(t.client, ticker))!))
      })
    },
    async settleContest(ticker, settlement) {
      return tx(async (t) => {
        const state = await lockContest(t.client, ticker)
        if (state === null || state === 'settled') return null
        const before = (await readContest(t.client, ticker))!
        const settled = settleContest(before, settlement)
        await t.client.query(SQL.settle, [
          ticker,
          settled.settledSide,
          settled.settledPriceDollars,
          settled.voided,
          wallNow(),
        ])
        if (settled.signals.length > 0) {
          const grades = settled.signals.map((s) => ({ minute: s.minute, outcome: s.outcome }))
          await t.client.query(SQL.gradeSignals, [ticker, JSON.stringify(grades)])
        }
        return t.append(contestSettledEvent((await readContest(t.client, ticker))!))
      })
    },
    async importHistory(contests) {
      if (contests.length === 0) return 0
      return tx(async (t) => {
        const inserted = await insertContests(t.client, contests)
        // counted in input order, so the events come out per series in order of first appearance
        const perSeries = new Map<string, number>()
        for (const c of contests) {
          if (!inserted.delete(c.ticker)) continue
          perSeries.set(c.series, (perSeries.get(c.series) ?? 0) + 1)
        }
        let total = 0
        for (const [series, n] of perSeries) {
          await t.append(historyImportedEvent(series, n))
          total += n
        }
        return total
      })
    },

    async eventsAfter(afterSeq, limit, scope?: EventScope) {
      let result: pg.QueryResult<Row>
      if (!scope) result = await query(SQL.eventsAfter, [afterSeq, limit])
      else if ('series' in scope) result = await query(SQL.eventsAfterSeries, [scope.series, afterSeq, limit])
      else result = await query(SQL.eventsAfterTicker, [scope.ticker, afterSeq, limit])
      return result.rows.map(toStoredEvent)
    },
    async contestHistoryEvents(ticker, uptoSeq) {
      return (await query(SQL.contestHistory, [ticker, uptoSeq])).rows.map(toStoredEvent)
    },
    async hasEvent(seq) {
      return (await query(SQL.hasEvent, [seq])).rows.length > 0
    },
    async latestSeq() {
      const row = first(await query(SQL.latestSeq))
      return row ? toNumber(row.latest_seq) : 0
    },
    async pruneEvents(appendedBefore) {
      return (await query(SQL.prune, [appendedBefore])).rowCount ?? 0
    },
    async appendEvent(event) {
      return tx((t) => t.append(event))
    },

    async recordEngineHeartbeat(at) {
      await query(SQL.metaSet, [HEARTBEAT_KEY, String(at)])
    },
    async lastEngineHeartbeat() {
      const row = first(await query(SQL.metaGet, [HEARTBEAT_KEY]))
      return row ? Number(row.value) : null
    },
    async getSetting(key) {
      const row = first(await query(SQL.metaGet, [`setting:${key}`]))
      return row ? String(row.value) : null
    },
    async initSetting(key, value) {
      await query(SQL.metaInit, [`setting:${key}`, value])
      return String(first(await query(SQL.metaGet, [`setting:${key}`]))!.value)
    },
    async putSetting(key, value) {
      await query(SQL.metaSet, [`setting:${key}`, value])
    },
    async acquireLease(holder, now, ttlMs): Promise<Lease> {
      return tx(async ({ client }) => {
        const taken = first(
          await client.query<Row>(SQL.acquireLease, [ENGINE_LEASE, holder, now + ttlMs, now]),
        )
        const row = taken ?? first(await client.query<Row>(SQL.lease, [ENGINE_LEASE]))
        if (!row) throw new Error('the engine lease vanished while locked')
        return { holder: String(row.holder), expiresAt: toNumber(row.expires_at) }
      })
    },
    async releaseLease(holder) {
      await query(SQL.releaseLease, [ENGINE_LEASE, holder])
    },

    async createKey(key: ApiKeyRecord) {
      await tx(async (t) => {
        await t.client.query(SQL.insertKey, [
          key.id,
          key.label,
          key.digest,
          key.prefix,
          key.createdAt,
          key.lastUsedAt,
          key.revokedAt,
        ])
        await t.append(keyChangedEvent(key.id))
      })
    },
    async listKeys() {
      return (await query(SQL.listKeys)).rows.map(toApiKey)
    },
    async findKeyByDigest(digest) {
      const row = first(await query(SQL.keyByDigest, [digest]))
      return row ? toApiKey(row) : null
    },
    async revokeKey(id, at) {
      return tx(async (t) => {
        if ((await t.client.query(SQL.revokeKey, [at, id])).rowCount === 0) return false
        await t.append(keyChangedEvent(id))
        return true
      })
    },
    async touchKeys(lastUsed) {
      if (lastUsed.size === 0) return
      const batch = JSON.stringify([...lastUsed].map(([id, at]) => ({ id, at })))
      await tx(async ({ client }) => {
        await client.query(SQL.lockKeys, [batch])
        await client.query(SQL.touchKeys, [batch])
      })
    },
  }
}
