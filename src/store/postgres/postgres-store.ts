// PostgresStore: the scaled-out Store on a pg connection pool, behaving exactly as SqliteStore.
import type pg from 'pg'
import type { ApiKeyRecord } from '../../domain/api-key.ts'
import { type Contest, reviseContest, type Signal, settleContest } from '../../domain/contest.ts'
import {
  contestExpiredEvent,
  contestOpenedEvent,
  contestRevisedEvent,
  contestSettledEvent,
  historyImportedEvent,
  keyChangedEvent,
  signalEmittedEvent,
} from '../../domain/events.ts'
import type { Clock } from '../../ports/clock.ts'
import type { EventScope, HistoryQuery, Lease, ReadingQuery, Store } from '../../ports/store.ts'
import { ENGINE_LEASE, EPOCH_KEY, HEARTBEAT_KEY, settingKey } from '../meta-keys.ts'
import { applyMigrations } from './postgres-migrations.ts'
import { createPostgresPool, first, type PoolOptions, type Queryable, toNumber } from './postgres-pool.ts'
import {
  contestColumns,
  type Row,
  signalColumns,
  toApiKey,
  toContest,
  toGradedReading,
  toStoredEvent,
} from './postgres-rows.ts'
import { SQL } from './postgres-sql.ts'

export type PostgresStoreOptions = PoolOptions & {
  /** Source of events' appendedAt and rows' updated_at (retention runs on the wall clock). */
  wallClock?: Clock
  /** migrate() refuses an empty schema instead of creating the store there (read-only commands) */
  mustExist?: boolean
}

/**
 * PostgreSQL text cannot hold U+0000 (the server refuses the parameter: "invalid byte sequence"), so
 * no stored ticker or series has one: a lookup by such text finds nothing, as on SQLite, instead of
 * failing. A request's ticker and series are whatever the client sent (`%00` decodes to it).
 */
const unstorable = (...texts: readonly string[]): boolean => texts.some((text) => text.includes('\u0000'))

export function createPostgresStore(url: string, opts: PostgresStoreOptions = {}): Store {
  const wallNow = opts.wallClock ? () => opts.wallClock!.now() : () => Date.now()
  // The pool connects lazily, on the first query.
  const { schema, query, read, tx, end } = createPostgresPool(url, opts, wallNow)

  async function readContest(db: Queryable, ticker: string): Promise<Contest | null> {
    const row = first(await db.query(SQL.contest, [ticker]))
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
      JSON.stringify(unique.map((c) => contestColumns(c, updatedAt))),
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
      await tx(({ client }) =>
        applyMigrations(client, schema, wallNow(), { mustExist: opts.mustExist === true }),
      )
    },
    async epoch() {
      const row = first(await read(SQL.metaGet, [EPOCH_KEY]))
      if (!row) throw new Error('the store has no epoch: run migrations first')
      return String(row.value)
    },
    async ping() {
      await read(SQL.ping)
    },
    async close() {
      await end()
    },

    async getContest(ticker) {
      if (unstorable(ticker)) return null
      return readContest({ query: read }, ticker)
    },
    async getLiveContest(series) {
      if (unstorable(series)) return null
      const row = first(await read(SQL.liveContest, [series]))
      return row ? toContest(row) : null
    },
    async listSettled(q: HistoryQuery) {
      if (unstorable(q.series)) return []
      const params = [
        q.series,
        q.since ?? Number.MIN_SAFE_INTEGER,
        q.before ?? Number.MAX_SAFE_INTEGER,
        q.limit,
      ]
      return (await read(SQL.settled, params)).rows.map(toContest)
    },
    async listGradedReadings(q: ReadingQuery) {
      if (unstorable(q.series)) return []
      const params = [q.series, q.since ?? Number.MIN_SAFE_INTEGER, q.before ?? Number.MAX_SAFE_INTEGER]
      return (await read(SQL.gradedReadings, params)).rows.map(toGradedReading)
    },
    async listUnsettled() {
      return (await read(SQL.unsettled)).rows.map(toContest)
    },
    async countContests(series) {
      if (series !== undefined && unstorable(series)) return 0
      const result = series === undefined ? await read(SQL.countAll) : await read(SQL.countSeries, [series])
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
        const state = await lockContest(t.client, ticker)
        if (state !== 'live' && state !== 'expired') return null
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
      if (scope && unstorable('series' in scope ? scope.series : scope.ticker)) return []
      if (!scope) result = await read(SQL.eventsAfter, [afterSeq, limit])
      else if ('series' in scope) result = await read(SQL.eventsAfterSeries, [scope.series, afterSeq, limit])
      else result = await read(SQL.eventsAfterTicker, [scope.ticker, afterSeq, limit])
      return result.rows.map(toStoredEvent)
    },
    async contestHistoryEvents(ticker, uptoSeq) {
      if (unstorable(ticker)) return []
      return (await read(SQL.contestHistory, [ticker, uptoSeq])).rows.map(toStoredEvent)
    },
    async hasEvent(seq, appendedSince) {
      return (await read(SQL.hasEvent, [seq, appendedSince])).rows.length > 0
    },
    async latestSeq() {
      const row = first(await read(SQL.latestSeq))
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
      const row = first(await read(SQL.metaGet, [HEARTBEAT_KEY]))
      return row ? Number(row.value) : null
    },
    async getSetting(key) {
      const row = first(await read(SQL.metaGet, [settingKey(key)]))
      return row ? String(row.value) : null
    },
    async initSetting(key, value) {
      await query(SQL.metaInit, [settingKey(key), value])
      return String(first(await query(SQL.metaGet, [settingKey(key)]))!.value)
    },
    async putSetting(key, value) {
      await query(SQL.metaSet, [settingKey(key), value])
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
      return (await read(SQL.listKeys)).rows.map(toApiKey)
    },
    async findKeyByDigest(digest) {
      const row = first(await read(SQL.keyByDigest, [digest]))
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
