// `contest-signals backtest`: the threshold backtest over the graded history in the store the service
// uses (read page by page, newest first, like a client of the history endpoint), printed as a report
// or as JSON. The numbers come from src/domain/backtest.ts, the same module a dashboard calls.
import type { Config } from '../config/config.ts'
import { type BacktestFilter, DEFAULT_GRID, runBacktest, thresholdGrid } from '../domain/backtest.ts'
import type { Contest } from '../domain/contest.ts'
import type { Store } from '../ports/store.ts'
import { formatBacktest, formatGrid } from './backtest-report.ts'
import { openCommandStore } from './command-store.ts'
import { parsePeriodArgs } from './period-args.ts'
import { seriesAbsence } from './series-presence.ts'

export type BacktestArgs = {
  series: string | undefined
  since: string | undefined
  before: string | undefined
  minConfidence: string | undefined
  minEdge: string | undefined
  side: string | undefined
  json: boolean
  grid: boolean
}

const PAGE = 500

export async function runBacktestCommand(config: Config, args: BacktestArgs): Promise<number> {
  const parsed = parseBacktestArgs(args, config.series[0]!)
  if (typeof parsed === 'string') {
    process.stderr.write(`contest-signals backtest: ${parsed} (see contest-signals backtest --help)\n`)
    return 2
  }
  const filter = parsed
  // Reading never creates: a backtest of a store that is not there would only ever say "0 signals".
  const { store } = await openCommandStore(config, { mustExist: true })
  let contests: Contest[]
  try {
    const absent = filter.series === undefined ? null : await seriesAbsence(store, filter.series)
    if (absent !== null) {
      process.stderr.write(`contest-signals backtest: ${absent}\n`)
      return 1
    }
    contests = await readSettled(store, filter)
  } finally {
    await store.close()
  }
  if (args.grid) {
    const grid = thresholdGrid(contests, filter, DEFAULT_GRID)
    process.stdout.write(
      args.json
        ? `${JSON.stringify({ filter: filterJson(filter), contests: contests.length, grid }, null, 2)}\n`
        : formatGrid(filter, contests.length, grid),
    )
    return 0
  }
  const report = runBacktest(contests, filter)
  process.stdout.write(
    args.json
      ? `${JSON.stringify({ ...report, filter: filterJson(filter) }, null, 2)}\n`
      : formatBacktest(report),
  )
  return 0
}

/** Every settled contest of the filter's series and window, newest first, paging on the inclusive `before`. */
export async function readSettled(store: Store, filter: BacktestFilter): Promise<Contest[]> {
  const all: Contest[] = []
  const seen = new Set<string>()
  let before = filter.before
  for (;;) {
    const page = await store.listSettled({
      series: filter.series!,
      limit: PAGE,
      ...(filter.since === undefined ? {} : { since: filter.since }),
      ...(before === undefined ? {} : { before }),
    })
    const fresh = page.filter((c) => !seen.has(c.ticker))
    for (const c of fresh) {
      seen.add(c.ticker)
      all.push(c)
    }
    // A short page is the last; a page of nothing new means the rest share one expiry already read.
    if (page.length < PAGE || fresh.length === 0) return all
    before = page[page.length - 1]!.expiresAt
  }
}

/** The arguments as a filter, or what is wrong with them. */
export function parseBacktestArgs(args: BacktestArgs, defaultSeries: string): BacktestFilter | string {
  const period = parsePeriodArgs(args, defaultSeries)
  if (typeof period === 'string') return period
  const filter: BacktestFilter = period
  // the grid's cells are its own thresholds: one given beside it would be silently dropped
  if (args.grid && (args.minConfidence !== undefined || args.minEdge !== undefined))
    return '--grid sets its own confidence and edge thresholds: leave out --min-confidence and --min-edge'
  if (args.minConfidence !== undefined) {
    const n = parseNumber(args.minConfidence)
    if (n === null || n < 0 || n > 100) return '--min-confidence must be a number from 0 to 100'
    filter.minConfidence = n
  }
  if (args.minEdge !== undefined) {
    const n = parseNumber(args.minEdge)
    if (n === null || n < -100 || n > 100) return '--min-edge must be a number from -100 to 100'
    filter.minEdge = n
  }
  if (args.side !== undefined) {
    if (args.side !== 'up' && args.side !== 'down') return '--side must be up or down'
    filter.side = args.side
  }
  return filter
}

function parseNumber(raw: string): number | null {
  return /^-?[0-9]+(\.[0-9]+)?$/.test(raw) ? Number(raw) : null
}

function filterJson(filter: BacktestFilter) {
  const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString())
  return {
    series: filter.series,
    since: iso(filter.since),
    before: iso(filter.before),
    minConfidence: filter.minConfidence ?? null,
    minEdge: filter.minEdge ?? null,
    side: filter.side ?? null,
  }
}
