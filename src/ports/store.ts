// The store port: everything durable. Each engine change commits together with its event, so the
// event log and the contest tables can never disagree. Implementations: SQLite (embedded default)
// and PostgreSQL (scaled out); both pass test/store-contract.ts.
import type { ApiKeyRecord } from '../domain/api-key.ts'
import type { Contest, MarketRevision, Settlement, Signal } from '../domain/contest.ts'
import type { NewEvent, StoredEvent } from '../domain/events.ts'
import type { GradedReading } from '../domain/graded-reading.ts'

export type HistoryQuery = {
  series: string
  limit: number
  /** inclusive lower bound on expiresAt */
  since?: number
  /** inclusive upper bound on expiresAt */
  before?: number
}

export type ReadingQuery = Omit<HistoryQuery, 'limit'>

export type EventScope = { series: string } | { ticker: string }

export type Lease = { holder: string; expiresAt: number }

export interface Store {
  /** Applies pending migrations; safe to call on every start and from several processes. */
  migrate(): Promise<void>
  /** The deployment epoch of this store (created by the first migration). */
  epoch(): Promise<string>
  /** Throws when the store cannot be reached. */
  ping(): Promise<void>
  close(): Promise<void>

  // ---- reads (api and engine)
  getContest(ticker: string): Promise<Contest | null>
  /** The contest of `series` whose stored state is `live`, if any. */
  getLiveContest(series: string): Promise<Contest | null>
  /** Settled contests of `series`, expiresAt descending then ticker descending. */
  listSettled(query: HistoryQuery): Promise<Contest[]>
  /** Contests not yet settled (live or expired), any series, oldest first: what the engine must finish. */
  listUnsettled(): Promise<Contest[]>
  countContests(series?: string): Promise<number>
  /**
   * Graded readings (win or loss) of settled contests of `series` expiring within the inclusive
   * bounds, with their stored inputs, ordered by expiresAt, ticker, minute (decisions §13).
   */
  listGradedReadings(query: ReadingQuery): Promise<GradedReading[]>

  // ---- engine writes: each is one transaction holding the change and its event.
  /** Inserts a live contest with contest.opened; null (and no event) when the ticker already exists. */
  openContest(contest: Contest): Promise<StoredEvent | null>
  /** Adds a signal with signal.emitted; null when (ticker, minute) already has one or the contest is not live. */
  addSignal(signal: Signal): Promise<StoredEvent | null>
  /** live → expired with the internal contest.expired; null when not live. */
  expireContest(ticker: string): Promise<StoredEvent | null>
  /**
   * Applies the venue's latest window and (once known) strike to a live contest, with the internal
   * contest.revised; null (and no event) when nothing changes or the contest is not live.
   */
  reviseContest(ticker: string, revision: MarketRevision): Promise<StoredEvent | null>
  /** → settled, grading every signal, with contest.settled; null when already settled or unknown. */
  settleContest(ticker: string, settlement: Settlement): Promise<StoredEvent | null>
  /**
   * Bulk import of already settled contests (simulator backfill), with one history.imported event
   * per series touched. Existing tickers are skipped. Returns how many contests were inserted.
   */
  importHistory(contests: Contest[]): Promise<number>

  // ---- event log
  /** Events with seq > afterSeq in seq order, at most `limit`, optionally restricted to a scope. */
  eventsAfter(afterSeq: number, limit: number, scope?: EventScope): Promise<StoredEvent[]>
  /** Public events of one contest (contest.opened, signal.emitted) with seq <= uptoSeq, in order. */
  contestHistoryEvents(ticker: string, uptoSeq: number): Promise<StoredEvent[]>
  /**
   * True when an event with this seq is retained and was appended at or after `appendedSince` (wall
   * ms): a resume point older than the retention is expired even before the next prune removes it.
   */
  hasEvent(seq: number, appendedSince: number): Promise<boolean>
  /** Highest seq appended so far (0 when none). */
  latestSeq(): Promise<number>
  /** Deletes events appended before `appendedBefore` (wall ms); returns how many. */
  pruneEvents(appendedBefore: number): Promise<number>
  /** Appends an event that has no state change of its own (key changes). */
  appendEvent(event: NewEvent): Promise<StoredEvent>

  // ---- engine liveness and leadership
  recordEngineHeartbeat(at: number): Promise<void>
  lastEngineHeartbeat(): Promise<number | null>
  /**
   * Takes or renews the engine lease: succeeds when the lease is free, expired (expiresAt <= now) or
   * already held by `holder`. Returns the lease as it stands after the call.
   */
  acquireLease(holder: string, now: number, ttlMs: number): Promise<Lease>
  releaseLease(holder: string): Promise<void>

  // ---- deployment settings shared by every process of a deployment (e.g. the virtual clock's anchor)
  getSetting(key: string): Promise<string | null>
  /** Stores `value` unless `key` already has one; returns the value stored after the call. */
  initSetting(key: string, value: string): Promise<string>
  putSetting(key: string, value: string): Promise<void>

  // ---- API keys
  createKey(key: ApiKeyRecord): Promise<void>
  listKeys(): Promise<ApiKeyRecord[]>
  findKeyByDigest(digest: string): Promise<ApiKeyRecord | null>
  /** Sets revokedAt (and appends key.changed); false when no such key or already revoked. */
  revokeKey(id: string, at: number): Promise<boolean>
  /** Records last use for several keys at once (batched by the api). */
  touchKeys(lastUsed: ReadonlyMap<string, number>): Promise<void>
}

/** The Store methods that write: the rest only read. */
export const STORE_WRITES: ReadonlySet<keyof Store> = new Set<keyof Store>([
  'openContest',
  'addSignal',
  'expireContest',
  'reviseContest',
  'settleContest',
  'importHistory',
  'pruneEvents',
  'appendEvent',
  'recordEngineHeartbeat',
  'acquireLease',
  'releaseLease',
  'initSetting',
  'putSetting',
  'createKey',
  'revokeKey',
  'touchKeys',
])
