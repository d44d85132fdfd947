// npm run bench:growth: does a request cost more as history piles up? For 1, 30 and 365 days of
// settled history (96 contests a day, 14 signals each) in SQLite and in PostgreSQL it measures, at
// the store: the history page at limit 1, 20 and 100 and the by-ticker read (median of repeated
// reads), the query plans, and the store's size; over HTTP (the real CLI on the seeded SQLite file):
// the by-ticker and history reads, both a cache hit and a miss (a distinct `before` per request makes
// every request read the store). Then the backfill time of a fresh `serve` for 1, 7 and 30 days, its
// RSS when ready and after the same reads on each (history-load.ts), and the 30-day ÷ 1-day ratio of
// both (issue 32). Writes bench/results/growth.json.
// Unlike the rest of bench/, this script seeds stores through src/store directly: no command imports a
// year of history, and SIM_BACKFILL_DAYS stops at 90.
import { mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { DatabaseSync } from 'node:sqlite'
import type { Contest } from '../src/domain/contest.ts'
import type { Store } from '../src/ports/store.ts'
import { createPostgresStore } from '../src/store/postgres/postgres-store.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'
import { makeSettledContest, makeSignal } from '../test/support/contest-fixtures.ts'
import { dropSchema, uniqueSchemaUrl, withTestClient } from '../test/support/postgres.ts'
import { tempDir } from '../test/support/service-process.ts'
import { createWireClient } from '../test/support/wire-client.ts'
import { loadHistoryReads } from './history-load.ts'
import { killAllServices, readProcMemory, startBenchService } from './service.ts'

const SERIES = 'KXBTC15M'
const QUARTER = 15 * 60_000
const DAYS = [1, 30, 365]
const BACKFILL_DAYS = [1, 7, 30]
const READS = 300
/** reads on each backfilled serve before its memory is read again: the same load on every store */
const LOAD_REQUESTS = 2000
const RESULTS_FILE = path.join(import.meta.dirname, 'results', 'growth.json')
const log = (line: string) => process.stderr.write(`${line}\n`)

function history(days: number, newest: number): Contest[] {
  return Array.from({ length: days * 96 }, (_, i) => {
    const expiresAt = newest - i * QUARTER
    const base = makeSettledContest({
      series: SERIES,
      ticker: `${SERIES}-H${i}`,
      opensAt: expiresAt - QUARTER,
      expiresAt,
    })
    const signals = Array.from({ length: 14 }, (_, m) => ({
      ...makeSignal(base, { minute: m + 1, side: m % 2 === 0 ? ('up' as const) : ('down' as const) }),
      outcome: m % 2 === 0 ? ('win' as const) : ('loss' as const),
    }))
    return { ...base, signals }
  })
}

async function seed(store: Store, contests: Contest[]): Promise<void> {
  for (let i = 0; i < contests.length; i += 2000) await store.importHistory(contests.slice(i, i + 2000))
}

async function medianUs(read: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 20; i++) await read()
  const times: number[] = []
  for (let i = 0; i < READS; i++) {
    const t = performance.now()
    await read()
    times.push((performance.now() - t) * 1000)
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!
}

type StoreFigures = {
  days: number
  contests: number
  sizeMiB: number
  limit1Us: number
  limit20Us: number
  limit100Us: number
  byTickerUs: number
}

async function storeFigures(
  store: Store,
  days: number,
  ticker: string,
  size: () => Promise<number>,
): Promise<StoreFigures> {
  const page = (limit: number) => () =>
    store.listSettled({ series: SERIES, limit, since: undefined, before: undefined })
  return {
    days,
    contests: days * 96,
    sizeMiB: (await size()) / 1024 / 1024,
    limit1Us: await medianUs(page(1)),
    limit20Us: await medianUs(page(20)),
    limit100Us: await medianUs(page(100)),
    byTickerUs: await medianUs(() => store.getContest(ticker)),
  }
}

async function httpFigures(dbFile: string, days: number, newest: number) {
  const service = await startBenchService({
    simSpeed: 1,
    backfillDays: 0,
    env: { DATABASE_URL: `sqlite:${dbFile}`, TRUST_PROXY: '127.0.0.1' },
  })
  const client = createWireClient(Number(new URL(service.url).port))
  try {
    const auth = { Authorization: `Bearer ${service.key}` }
    let n = 0
    const timed = async (path: () => string, reads = READS) => {
      const times: number[] = []
      for (let i = 0; i < reads; i++) {
        const t = performance.now()
        const res = await client.send('GET', path(), {
          ...auth,
          'X-Forwarded-For': `11.0.${(n >> 8) & 255}.${n++ & 255}`,
        })
        if (!res.statusLine.includes(' 200 ')) throw new Error(`${path()}: ${res.statusLine}`)
        times.push((performance.now() - t) * 1000)
      }
      return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!
    }
    const ticker = `/v1/contests/${SERIES}-H${Math.floor((days * 96) / 2)}`
    await timed(() => ticker)
    let before = newest
    let miss = 0
    return {
      days,
      byTickerHitUs: await timed(() => ticker),
      historyHitUs: await timed(() => `/v1/contests?series=${SERIES}&limit=100`),
      // Each `before` is a new cache key, so each request reads the store (still the newest 100 rows).
      historyMissUs: await timed(
        () => `/v1/contests?series=${SERIES}&limit=100&before=${new Date(before++).toISOString()}`,
      ),
      // Tickers not asked for yet (one day holds only 96), so each is read from the store.
      byTickerMissUs: await timed(() => `/v1/contests/${SERIES}-H${miss++}`, Math.min(READS, days * 96 - 1)),
      rssMiB: ((await service.memory()).rssKiB ?? 0) / 1024,
    }
  } finally {
    client.close()
    await service.stop()
  }
}

async function main(): Promise<void> {
  const newest = Math.floor(Date.now() / QUARTER) * QUARTER - QUARTER
  const sqlite: StoreFigures[] = []
  const postgres: StoreFigures[] = []
  const http = []
  const plans: Record<string, string[]> = {}
  for (const days of DAYS) {
    const contests = history(days, newest)
    const ticker = contests[Math.floor(contests.length / 2)]!.ticker
    const dir = tempDir('cs-growth-')
    const file = path.join(dir.dir, 'growth.db')
    try {
      const lite = createSqliteStore(file)
      await lite.migrate()
      const seeded = performance.now()
      await seed(lite, contests)
      log(
        `${days} days: ${contests.length} contests seeded in SQLite in ${Math.round(performance.now() - seeded)} ms`,
      )
      const walSize = () => {
        try {
          return statSync(`${file}-wal`).size
        } catch {
          return 0
        }
      }
      sqlite.push(await storeFigures(lite, days, ticker, async () => statSync(file).size + walSize()))
      await lite.close()
      if (days === DAYS.at(-1)) {
        const db = new DatabaseSync(file)
        const explain = (sql: string) =>
          (
            db
              .prepare(`EXPLAIN QUERY PLAN ${sql}`)
              .all({ series: SERIES, since: 0, before: newest, limit: 100 }) as { detail: string }[]
          ).map((r) => r.detail)
        plans.sqliteHistory = explain(
          `SELECT * FROM contests WHERE state = 'settled' AND series = :series AND expires_at BETWEEN :since AND :before ORDER BY expires_at DESC, ticker DESC LIMIT :limit`,
        )
        plans.sqliteSignals = (
          db
            .prepare(
              'EXPLAIN QUERY PLAN SELECT * FROM signals WHERE ticker IN (SELECT value FROM json_each(?)) ORDER BY ticker, minute',
            )
            .all('[]') as { detail: string }[]
        ).map((r) => r.detail)
        plans.sqliteByTicker = (
          db.prepare('EXPLAIN QUERY PLAN SELECT * FROM contests WHERE ticker = ?').all(ticker) as {
            detail: string
          }[]
        ).map((r) => r.detail)
        db.close()
      }
      http.push(await httpFigures(file, days, newest))
      log(`  over HTTP: ${JSON.stringify(http.at(-1))}`)
    } finally {
      dir.remove()
    }
    const url = uniqueSchemaUrl('growth')
    const pgStore = createPostgresStore(url)
    try {
      await pgStore.migrate()
      await seed(pgStore, contests)
      const schema = new URL(url).searchParams.get('schema')!
      postgres.push(
        await storeFigures(pgStore, days, ticker, () =>
          withTestClient(async (c) => {
            const r = await c.query(
              "SELECT sum(pg_total_relation_size(format('%I.%I', schemaname, tablename)))::bigint AS n FROM pg_tables WHERE schemaname = $1",
              [schema],
            )
            return Number(r.rows[0].n)
          }),
        ),
      )
      if (days === DAYS.at(-1)) {
        await withTestClient(async (c) => {
          await c.query(`SET search_path TO ${schema}`)
          await c.query('ANALYZE')
          const plan = async (sql: string, params: unknown[]) =>
            (await c.query(`EXPLAIN ${sql}`, params)).rows.map(
              (r: Record<string, string>) => r['QUERY PLAN']!,
            )
          plans.postgresHistory = await plan(
            `SELECT * FROM contests WHERE state = 'settled' AND series = $1 AND expires_at BETWEEN $2 AND $3 ORDER BY expires_at DESC, ticker DESC LIMIT $4`,
            [SERIES, 0, newest, 100],
          )
          plans.postgresByTicker = await plan('SELECT * FROM contests WHERE ticker = $1', [ticker])
          plans.postgresSignals = await plan(
            'SELECT * FROM signals WHERE ticker = ANY($1) ORDER BY ticker, minute',
            [[ticker]],
          )
        }, url)
      }
    } finally {
      await pgStore.close()
      await dropSchema(url)
    }
    log(`  SQLite ${JSON.stringify(sqlite.at(-1))}\n  PostgreSQL ${JSON.stringify(postgres.at(-1))}`)
  }

  const backfill = []
  for (const days of BACKFILL_DAYS) {
    const started = performance.now()
    const service = await startBenchService({ simSpeed: 1, backfillDays: days, env: { LOG_LEVEL: 'info' } })
    const ms = performance.now() - started
    // The engine's own figure, from its "history backfilled" log line.
    const line = service
      .stdout()
      .split('\n')
      .find((l) => l.includes('"history backfilled"'))
    const backfillMs = line ? (JSON.parse(line) as { ms: number }).ms : null
    const ready = readProcMemory(service.pid)
    await loadHistoryReads(service, LOAD_REQUESTS)
    const afterLoad = readProcMemory(service.pid)
    await service.stop()
    backfill.push({
      days,
      backfillMs,
      startToReadyMs: Math.round(ms),
      rssMiBAfterStart: ready.rssMiB,
      rssMiBAfterLoad: afterLoad.rssMiB,
    })
    log(
      `backfill ${days} days: ${backfillMs} ms (process ready in ${Math.round(ms)} ms), RSS ${ready.rssMiB.toFixed(1)} MiB, ${afterLoad.rssMiB.toFixed(1)} after ${LOAD_REQUESTS} reads`,
    )
  }
  const [fewest, most] = [backfill[0]!, backfill.at(-1)!]
  const rssRatio = {
    days: `${most.days}/${fewest.days}`,
    afterStart: most.rssMiBAfterStart / fewest.rssMiBAfterStart,
    afterLoad: most.rssMiBAfterLoad / fewest.rssMiBAfterLoad,
  }

  const result = {
    date: new Date().toISOString(),
    reads: READS,
    sqlite,
    postgres,
    http,
    plans,
    backfill,
    rssRatio,
  }
  mkdirSync(path.dirname(RESULTS_FILE), { recursive: true })
  writeFileSync(`${RESULTS_FILE}.tmp`, `${JSON.stringify(result, null, 2)}\n`)
  renameSync(`${RESULTS_FILE}.tmp`, RESULTS_FILE)
  const f = (n: number) => n.toFixed(0).padStart(6)
  const lines = ['store       days  contests  size MiB  limit=1 µs  limit=20 µs  limit=100 µs  by-ticker µs']
  for (const [name, rows] of [
    ['SQLite', sqlite],
    ['PostgreSQL', postgres],
  ] as const) {
    for (const r of rows)
      lines.push(
        `${name.padEnd(10)}  ${String(r.days).padStart(4)}  ${String(r.contests).padStart(8)}  ${r.sizeMiB.toFixed(1).padStart(8)}  ${f(r.limit1Us).padStart(10)}  ${f(r.limit20Us).padStart(11)}  ${f(r.limit100Us).padStart(12)}  ${f(r.byTickerUs).padStart(12)}`,
      )
  }
  lines.push(
    '',
    'HTTP (SQLite, median µs per request, one connection)   days  by-ticker hit  by-ticker miss  history hit  history miss  RSS MiB',
  )
  for (const h of http)
    lines.push(
      `${''.padEnd(55)}${String(h.days).padStart(5)}  ${f(h.byTickerHitUs).padStart(13)}  ${f(h.byTickerMissUs).padStart(14)}  ${f(h.historyHitUs).padStart(11)}  ${f(h.historyMissUs).padStart(12)}  ${h.rssMiB.toFixed(1).padStart(7)}`,
    )
  lines.push(
    '',
    `backfill (fresh serve, SIM_BACKFILL_DAYS): days  backfill ms  start → ready ms  RSS MiB ready  RSS MiB after ${LOAD_REQUESTS} reads`,
  )
  for (const b of backfill)
    lines.push(
      `${''.padEnd(42)}${String(b.days).padStart(5)}  ${String(b.backfillMs).padStart(11)}  ${String(b.startToReadyMs).padStart(16)}  ${b.rssMiBAfterStart.toFixed(1).padStart(13)}  ${b.rssMiBAfterLoad.toFixed(1).padStart(14)}`,
    )
  lines.push(
    `RSS ${rssRatio.days} days: ${rssRatio.afterStart.toFixed(2)}× when ready, ${rssRatio.afterLoad.toFixed(2)}× after the same reads (target ≤ 1.5×, issue 32)`,
  )
  lines.push(
    '',
    'plans:',
    ...Object.entries(plans).flatMap(([k, v]) => [`  ${k}:`, ...v.map((l) => `    ${l}`)]),
  )
  process.stdout.write(`${lines.join('\n')}\n\nwritten: ${path.relative(process.cwd(), RESULTS_FILE)}\n`)
}

process.on('exit', killAllServices)
try {
  await main()
} catch (err) {
  log(`growth failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`)
  process.exitCode = 1
}
