// SqliteStore: the embedded default Store on one node:sqlite file in WAL mode.
import type { SQLInputValue, StatementSync } from 'node:sqlite'
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
import { ENGINE_LEASE, EPOCH_KEY, HEARTBEAT_KEY, settingKey } from '../meta-keys.ts'
import { applyMigrations } from './migrations.ts'
import { openDatabase } from './open-database.ts'
import {
  contestParams,
  type Row,
  signalColumns,
  toApiKey,
  toContest,
  toContests,
  toGradedReading,
  toSignal,
  toStoredEvent,
} from './sqlite-rows.ts'

export type SqliteStoreOptions = {
  /** Source of events' appendedAt and rows' updated_at (retention runs on the wall clock). */
  wallClock?: Clock
}

const SQL = {
  ping: 'SELECT 1',
  contest: 'SELECT * FROM contests WHERE ticker = ?',
  signalsOf: 'SELECT * FROM signals WHERE ticker = ? ORDER BY minute',
  signalsOfMany: `SELECT * FROM signals WHERE ticker IN (SELECT value FROM json_each(?))
    ORDER BY ticker, minute`,
  liveContest: `SELECT * FROM contests WHERE series = ? AND state = 'live'
    ORDER BY opens_at DESC, ticker DESC LIMIT 1`,
  settled: `SELECT * FROM contests
    WHERE state = 'settled' AND series = :series AND expires_at BETWEEN :since AND :before
    ORDER BY expires_at DESC, ticker DESC LIMIT :limit`,
  gradedReadings: `SELECT s.*, c.opens_at, c.expires_at, c.settled_side FROM contests c
    JOIN signals s ON s.ticker = c.ticker
    WHERE c.state = 'settled' AND c.series = :series AND c.expires_at BETWEEN :since AND :before
      AND s.outcome IN ('win', 'loss')
    ORDER BY c.expires_at, c.ticker, s.minute`,
  unsettled: `SELECT * FROM contests WHERE state <> 'settled' ORDER BY opens_at, ticker`,
  countAll: 'SELECT count(*) AS n FROM contests',
  countSeries: 'SELECT count(*) AS n FROM contests WHERE series = ?',
  insertContest: `INSERT INTO contests (ticker, series, state, opens_at, expires_at, strike_price_dollars,
      settled_side, settled_price_dollars, voided, updated_at, venue, venue_refs)
    VALUES (:ticker, :series, :state, :opens_at, :expires_at, :strike_price_dollars,
      :settled_side, :settled_price_dollars, :voided, :updated_at, :venue, :venue_refs)
    ON CONFLICT (ticker) DO NOTHING`,
  insertSignal: `INSERT INTO signals (ticker, minute, raised_at, side, confidence, entry_price_cents,
      edge_cents, outcome, model_version, spot_observed_at, book_observed_at, spot_dollars, fresh_sources,
      up_ask_cents, down_ask_cents, sigma_per_minute, effective_minutes, probability_up, model_alone_up)
    VALUES (:ticker, :minute, :raised_at, :side, :confidence, :entry_price_cents,
      :edge_cents, :outcome, :model_version, :spot_observed_at, :book_observed_at, :spot_dollars,
      :fresh_sources, :up_ask_cents, :down_ask_cents, :sigma_per_minute, :effective_minutes, :probability_up,
      :model_alone_up)
    ON CONFLICT (ticker, minute) DO NOTHING`,
  touchContest: 'UPDATE contests SET updated_at = ? WHERE ticker = ?',
  expire: `UPDATE contests SET state = 'expired', updated_at = ? WHERE ticker = ? AND state = 'live'`,
  revise: `UPDATE contests SET strike_price_dollars = ?, opens_at = ?, expires_at = ?, updated_at = ?
    WHERE ticker = ? AND state IN ('live', 'expired')`,
  settle: `UPDATE contests SET state = 'settled', settled_side = :settled_side,
      settled_price_dollars = :settled_price_dollars, voided = :voided, updated_at = :updated_at
    WHERE ticker = :ticker AND state <> 'settled'`,
  gradeSignal: 'UPDATE signals SET outcome = ? WHERE ticker = ? AND minute = ?',
  appendEvent: `INSERT INTO events (type, series, ticker, data, appended_at) VALUES (?, ?, ?, ?, ?)
    RETURNING seq`,
  eventsAfter: 'SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?',
  eventsAfterSeries: 'SELECT * FROM events WHERE series = ? AND seq > ? ORDER BY seq LIMIT ?',
  eventsAfterTicker: 'SELECT * FROM events WHERE ticker = ? AND seq > ? ORDER BY seq LIMIT ?',
  contestHistory: `SELECT * FROM events
    WHERE ticker = ? AND seq <= ? AND type IN ('contest.opened', 'signal.emitted') ORDER BY seq`,
  hasEvent: 'SELECT 1 AS found FROM events WHERE seq = ? AND appended_at >= ?',
  // sqlite_sequence remembers the highest seq ever handed out, even once pruning empties the table
  latestSeq: `SELECT seq FROM sqlite_sequence WHERE name = 'events'`,
  prune: 'DELETE FROM events WHERE appended_at < ?',
  metaGet: 'SELECT value FROM meta WHERE key = ?',
  metaInit: 'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING',
  metaSet:
    'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  // one statement decides and writes: the lease changes hands only when free, expired or ours
  acquireLease: `INSERT INTO leases (name, holder, expires_at) VALUES (:name, :holder, :expires_at)
    ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
    WHERE leases.holder = excluded.holder OR leases.expires_at <= :now`,
  lease: 'SELECT holder, expires_at FROM leases WHERE name = ?',
  releaseLease: 'DELETE FROM leases WHERE name = ? AND holder = ?',
  insertKey: `INSERT INTO api_keys (id, label, digest, prefix, created_at, last_used_at, revoked_at)
    VALUES (?, ?, ?, ?, ?, ?, ?)`,
  listKeys: 'SELECT * FROM api_keys ORDER BY created_at, id',
  keyByDigest: 'SELECT * FROM api_keys WHERE digest = ?',
  revokeKey: 'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
  // batches from several replicas may land out of order: last use only moves forward
  touchKey: 'UPDATE api_keys SET last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?',
} as const

type SqlName = keyof typeof SQL

export function createSqliteStore(path: string, opts: SqliteStoreOptions = {}): Store {
  const wallNow = opts.wallClock ? () => opts.wallClock!.now() : () => Date.now()
  const db = openDatabase(path)

  // Prepared lazily: the tables do not exist until migrate() has run.
  const statements = new Map<SqlName, StatementSync>()
  function q(name: SqlName): StatementSync {
    let stmt = statements.get(name)
    if (!stmt) {
      stmt = db.prepare(SQL[name])
      statements.set(name, stmt)
    }
    return stmt
  }

  function all(name: SqlName, ...params: SQLInputValue[]): Row[] {
    return q(name).all(...params)
  }
  function get(name: SqlName, ...params: SQLInputValue[]): Row | undefined {
    return q(name).get(...params)
  }
  function changes(name: SqlName, ...params: SQLInputValue[]): number {
    return Number(q(name).run(...params).changes)
  }

  /**
   * One write transaction. Bodies are synchronous, so nothing else in this process can interleave;
   * BEGIN IMMEDIATE takes the write lock up front, so other processes wait rather than conflict.
   */
  function tx<T>(body: () => T): T {
    db.exec('BEGIN IMMEDIATE')
    try {
      const result = body()
      db.exec('COMMIT')
      return result
    } catch (err) {
      if (db.isTransaction) db.exec('ROLLBACK')
      throw err
    }
  }

  function readContest(ticker: string): Contest | null {
    const row = get('contest', ticker)
    return row ? toContest(row, all('signalsOf', ticker).map(toSignal)) : null
  }

  function readContests(rows: Row[]): Contest[] {
    if (rows.length === 0) return []
    const tickers = JSON.stringify(rows.map((r) => r.ticker))
    return toContests(rows, all('signalsOfMany', tickers))
  }

  function append(event: NewEvent): StoredEvent {
    const appendedAt = wallNow()
    const row = get('appendEvent', event.type, event.series, event.ticker, event.data, appendedAt)
    return { ...event, seq: Number(row!.seq), appendedAt }
  }

  function insertSignal(signal: Signal): boolean {
    return Number(q('insertSignal').run(signalColumns(signal)).changes) > 0
  }

  function insertContest(contest: Contest): boolean {
    if (Number(q('insertContest').run(contestParams(contest, wallNow())).changes) === 0) return false
    for (const s of contest.signals) insertSignal(s)
    return true
  }

  function readLease(): Lease {
    const row = get('lease', ENGINE_LEASE)!
    return { holder: String(row.holder), expiresAt: Number(row.expires_at) }
  }

  return {
    async migrate() {
      applyMigrations(db, wallNow())
    },
    async epoch() {
      const row = get('metaGet', EPOCH_KEY)
      if (!row) throw new Error('the store has no epoch: run migrations first')
      return String(row.value)
    },
    async ping() {
      get('ping')
    },
    async close() {
      if (!db.isOpen) return
      statements.clear()
      db.close()
    },

    async getContest(ticker) {
      return readContest(ticker)
    },
    async getLiveContest(series) {
      const row = get('liveContest', series)
      return row ? readContests([row])[0]! : null
    },
    async listSettled(query: HistoryQuery) {
      const rows = q('settled').all({
        series: query.series,
        since: query.since ?? Number.MIN_SAFE_INTEGER,
        before: query.before ?? Number.MAX_SAFE_INTEGER,
        limit: query.limit,
      })
      return readContests(rows)
    },
    async listGradedReadings(query) {
      return q('gradedReadings')
        .all({
          series: query.series,
          since: query.since ?? Number.MIN_SAFE_INTEGER,
          before: query.before ?? Number.MAX_SAFE_INTEGER,
        })
        .map(toGradedReading)
    },
    async listUnsettled() {
      return readContests(all('unsettled'))
    },
    async countContests(series) {
      const row = series === undefined ? get('countAll') : get('countSeries', series)
      return Number(row!.n)
    },

    async openContest(contest) {
      return tx(() => {
        if (!insertContest(contest)) return null
        return append(contestOpenedEvent(readContest(contest.ticker)!))
      })
    },
    async addSignal(signal) {
      return tx(() => {
        const before = readContest(signal.ticker)
        if (before?.state !== 'live') return null
        if (!insertSignal(signal)) return null
        changes('touchContest', wallNow(), signal.ticker)
        const after = readContest(signal.ticker)!
        const stored = after.signals.find((s) => s.minute === signal.minute)!
        return append(signalEmittedEvent(after, stored))
      })
    },
    async expireContest(ticker) {
      return tx(() => {
        if (changes('expire', wallNow(), ticker) === 0) return null
        return append(contestExpiredEvent(readContest(ticker)!))
      })
    },
    async reviseContest(ticker, revision) {
      return tx(() => {
        const before = readContest(ticker)
        const revised = before && reviseContest(before, revision)
        if (!revised) return null
        const { strikePriceDollars, opensAt, expiresAt } = revised
        changes('revise', strikePriceDollars, opensAt, expiresAt, wallNow(), ticker)
        return append(contestRevisedEvent(readContest(ticker)!))
      })
    },
    async settleContest(ticker, settlement) {
      return tx(() => {
        const before = readContest(ticker)
        if (!before || before.state === 'settled') return null
        const settled = settleContest(before, settlement)
        q('settle').run({
          ticker,
          settled_side: settled.settledSide,
          settled_price_dollars: settled.settledPriceDollars,
          voided: settled.voided ? 1 : 0,
          updated_at: wallNow(),
        })
        for (const s of settled.signals) changes('gradeSignal', s.outcome, ticker, s.minute)
        return append(contestSettledEvent(readContest(ticker)!))
      })
    },
    async importHistory(contests) {
      return tx(() => {
        const inserted = new Map<string, number>()
        for (const contest of contests) {
          if (insertContest(contest)) inserted.set(contest.series, (inserted.get(contest.series) ?? 0) + 1)
        }
        let total = 0
        for (const [series, n] of inserted) {
          append(historyImportedEvent(series, n))
          total += n
        }
        return total
      })
    },

    async eventsAfter(afterSeq, limit, scope?: EventScope) {
      let rows: Row[]
      if (!scope) rows = all('eventsAfter', afterSeq, limit)
      else if ('series' in scope) rows = all('eventsAfterSeries', scope.series, afterSeq, limit)
      else rows = all('eventsAfterTicker', scope.ticker, afterSeq, limit)
      return rows.map(toStoredEvent)
    },
    async contestHistoryEvents(ticker, uptoSeq) {
      return all('contestHistory', ticker, uptoSeq).map(toStoredEvent)
    },
    async hasEvent(seq, appendedSince) {
      return get('hasEvent', seq, appendedSince) !== undefined
    },
    async latestSeq() {
      const row = get('latestSeq')
      return row ? Number(row.seq) : 0
    },
    async pruneEvents(appendedBefore) {
      return changes('prune', appendedBefore)
    },
    async appendEvent(event) {
      return tx(() => append(event))
    },

    async recordEngineHeartbeat(at) {
      changes('metaSet', HEARTBEAT_KEY, String(at))
    },
    async lastEngineHeartbeat() {
      const row = get('metaGet', HEARTBEAT_KEY)
      return row ? Number(row.value) : null
    },
    async getSetting(key) {
      const row = get('metaGet', settingKey(key))
      return row ? String(row.value) : null
    },
    async initSetting(key, value) {
      return tx(() => {
        changes('metaInit', settingKey(key), value)
        return String(get('metaGet', settingKey(key))!.value)
      })
    },
    async putSetting(key, value) {
      changes('metaSet', settingKey(key), value)
    },
    async acquireLease(holder, now, ttlMs) {
      return tx(() => {
        q('acquireLease').run({ name: ENGINE_LEASE, holder, expires_at: now + ttlMs, now })
        return readLease()
      })
    },
    async releaseLease(holder) {
      changes('releaseLease', ENGINE_LEASE, holder)
    },

    async createKey(key: ApiKeyRecord) {
      tx(() => {
        changes(
          'insertKey',
          key.id,
          key.label,
          key.digest,
          key.prefix,
          key.createdAt,
          key.lastUsedAt,
          key.revokedAt,
        )
        append(keyChangedEvent(key.id))
      })
    },
    async listKeys() {
      return all('listKeys').map(toApiKey)
    },
    async findKeyByDigest(digest) {
      const row = get('keyByDigest', digest)
      return row ? toApiKey(row) : null
    },
    async revokeKey(id, at) {
      return tx(() => {
        if (changes('revokeKey', at, id) === 0) return false
        append(keyChangedEvent(id))
        return true
      })
    },
    async touchKeys(lastUsed) {
      if (lastUsed.size === 0) return
      tx(() => {
        for (const [id, at] of lastUsed) changes('touchKey', at, id)
      })
    },
  }
}
