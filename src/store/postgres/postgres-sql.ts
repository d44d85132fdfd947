// Every statement of PostgresStore, by name. Each mirrors one of SqliteStore's (same effect, same
// order), with the locks that make PostgreSQL's concurrent writers behave like SQLite's single one.

// One statement reads a contest with its signals, so the two always come from one snapshot.
const CONTESTS = `SELECT c.*,
    (SELECT coalesce(json_agg(s ORDER BY s.minute), '[]'::json) FROM signals s WHERE s.ticker = c.ticker)
      AS signals
  FROM contests c`

export const SQL = {
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
  gradedReadings: `SELECT s.*, c.opens_at, c.expires_at, c.settled_side FROM contests c
    JOIN signals s ON s.ticker = c.ticker
    WHERE c.state = 'settled' AND c.series = $1 AND c.expires_at BETWEEN $2 AND $3
      AND s.outcome IN ('win', 'loss')
    ORDER BY c.expires_at, c.ticker, s.minute`,
  // Bulk inserts take one JSON array, so a backfill of thousands of contests is two statements.
  insertContests: `INSERT INTO contests (ticker, series, state, opens_at, expires_at, strike_price_dollars,
      settled_side, settled_price_dollars, voided, updated_at, venue, venue_refs)
    SELECT * FROM json_to_recordset($1::json) AS x(ticker text, series text, state text, opens_at bigint,
      expires_at bigint, strike_price_dollars double precision, settled_side text,
      settled_price_dollars double precision, voided boolean, updated_at bigint, venue text, venue_refs text)
    ON CONFLICT (ticker) DO NOTHING
    RETURNING ticker`,
  insertSignals: `INSERT INTO signals (ticker, minute, raised_at, side, confidence, entry_price_cents,
      edge_cents, outcome, model_version, spot_observed_at, book_observed_at, spot_dollars, fresh_sources,
      up_ask_cents, down_ask_cents, sigma_per_minute, effective_minutes, probability_up, model_alone_up)
    SELECT * FROM json_to_recordset($1::json) AS x(ticker text, minute integer, raised_at bigint, side text,
      confidence double precision, entry_price_cents double precision, edge_cents double precision,
      outcome text, model_version text, spot_observed_at bigint, book_observed_at bigint,
      spot_dollars double precision, fresh_sources integer, up_ask_cents double precision,
      down_ask_cents double precision, sigma_per_minute double precision, effective_minutes double precision,
      probability_up double precision, model_alone_up double precision)
    ON CONFLICT (ticker, minute) DO NOTHING`,
  // The row lock makes "is it live / not yet settled" hold until commit: no expiry or settlement
  // can slip between the check and the write, as SQLite's single writer guarantees.
  lockContest: 'SELECT state FROM contests WHERE ticker = $1 FOR UPDATE',
  touchContest: 'UPDATE contests SET updated_at = $1 WHERE ticker = $2',
  expire: `UPDATE contests SET state = 'expired', updated_at = $1 WHERE ticker = $2 AND state = 'live'`,
  revise: `UPDATE contests SET strike_price_dollars = $2, opens_at = $3, expires_at = $4, updated_at = $5
    WHERE ticker = $1 AND state IN ('live', 'expired')`,
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
  hasEvent: 'SELECT 1 AS found FROM events WHERE seq = $1 AND appended_at >= $2',
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
