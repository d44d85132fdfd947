// `contest-signals evaluate` (decisions §13, §15): the stored readings scored against their outcomes,
// beside the venue's mid at the same instant, the mid recalibrated on a training period, the model
// alone and, on a sandbox store, the sandbox's hidden truth; optionally against another store.
import type { Config } from '../config/config.ts'
import { type EvaluationReport, evaluateReadings } from '../domain/evaluation.ts'
import type { GradedReading } from '../domain/graded-reading.ts'
import { parseInstant } from '../domain/instant.ts'
import { createSimOracle } from '../feeds/sim/oracle.ts'
import { POLYMARKET_SIM_SERIES } from '../feeds/sim/polymarket-world.ts'
import { createSeededRandom } from '../feeds/sim/seeded-random.ts'
import type { SimParams } from '../feeds/sim/sim-params.ts'
import type { ReadingQuery } from '../ports/store.ts'
import { openCommandStore } from './command-store.ts'
import { formatEvaluation } from './evaluate-report.ts'
import { parsePeriodArgs } from './period-args.ts'
import { seriesAbsence } from './series-presence.ts'

export type EvaluateArgs = {
  series: string | undefined
  since: string | undefined
  before: string | undefined
  json: boolean
  /** the sandbox seed whose hidden truth to score as the oracle */
  simSeed: string | undefined
  /** walk-forward: fit the recalibrated mid before this instant, judge the readings from it on */
  trainUntil: string | undefined
  /** another store (a DATABASE_URL, or a SQLite file's path) holding the same contests' readings under another model */
  against: string | undefined
}

/** The bootstrap's seed and stream: fixed, so the same store gives the same intervals every run. */
const BOOTSTRAP_SEED = 15
const BOOTSTRAP_STREAM = 0x0b5

export type OracleFactory = (seed: number, params?: SimParams) => (r: GradedReading) => number | null

/**
 * The sandbox's hidden P(up) at each reading's instant (decisions §13): the exact referee of seed
 * `seed` and the world SIM_PARAMS names (the tape's), by the venue's own rule — Kalshi's rounded
 * 60-s mean of the index, or, for a Polymarket window, its oracle's 60-s TWAP against its price to beat.
 */
export const sandboxOracle: OracleFactory = (seed, params) => {
  const oracle = createSimOracle({ seed, ...(params ? { params } : {}) })
  const polymarketPrefix = `${POLYMARKET_SIM_SERIES}-`
  return (r) => {
    try {
      return r.ticker.startsWith(polymarketPrefix)
        ? oracle.polymarketProbabilityUp(r.opensAt, r.raisedAt)
        : oracle.probabilityYes({ expiresAt: r.expiresAt }, r.raisedAt)
    } catch {
      return null
    }
  }
}

export async function runEvaluateCommand(
  config: Config,
  args: EvaluateArgs,
  oracleFor?: OracleFactory,
): Promise<number> {
  const fail = (problem: string): number => {
    process.stderr.write(`contest-signals evaluate: ${problem} (see contest-signals evaluate --help)\n`)
    return 2
  }
  const period = parsePeriodArgs(args, config.series[0]!)
  if (typeof period === 'string') return fail(period)
  const { series, ...bounds } = period
  let oracle: ((r: GradedReading) => number | null) | undefined
  if (args.simSeed !== undefined) {
    if (!/^[0-9]{1,15}$/.test(args.simSeed)) return fail('--sim-seed must be a whole number')
    if (!oracleFor) return fail('--sim-seed needs the sandbox, which this build does not have')
    oracle = oracleFor(Number(args.simSeed), config.simParams ?? undefined)
  }
  let trainUntil: number | undefined
  if (args.trainUntil !== undefined) {
    const t = parseInstant(args.trainUntil)
    if (t === null) return fail('--train-until must be an RFC 3339 instant or a YYYY-MM-DD date')
    trainUntil = t
  }
  if (args.against === '') return fail('--against must name a store (a path or a postgres:// URL)')
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(args.against ?? '')?.[1]?.toLowerCase()
  if (scheme !== undefined && !['sqlite', 'postgres', 'postgresql'].includes(scheme))
    return fail(`--against ${args.against} is neither a path, sqlite:PATH nor a postgres:// URL`)
  const query = { series, ...bounds }
  const readings = await readGraded(config, query, { requireSeries: true })
  if (typeof readings === 'string') {
    process.stderr.write(`contest-signals evaluate: ${readings}\n`)
    return 1
  }
  let against: GradedReading[] | undefined
  if (args.against !== undefined) {
    try {
      // a bare path is a SQLite file, as the message above promises; a URL is read as DATABASE_URL is
      const databaseUrl = /^[a-z][a-z0-9+.-]*:/i.test(args.against) ? args.against : `sqlite:${args.against}`
      const other = await readGraded({ ...config, databaseUrl }, query, { requireSeries: false })
      if (typeof other !== 'string') against = other
    } catch (err) {
      const message = err instanceof Error ? err.message.split('\n')[0] : String(err)
      return fail(`--against: ${message?.replace(/^DATABASE_URL: /, '')}`)
    }
  }
  const random = createSeededRandom(BOOTSTRAP_SEED)
  const report = evaluateReadings({
    ...query,
    readings,
    ...(oracle ? { oracle } : {}),
    ...(trainUntil === undefined ? {} : { trainUntil }),
    ...(against ? { against } : {}),
    resample: () => random.sequence(BOOTSTRAP_STREAM, 0),
  })
  process.stdout.write(
    args.json ? `${JSON.stringify(reportJson(report), null, 2)}\n` : formatEvaluation(report),
  )
  return 0
}

/** The graded readings, or why the store cannot judge the series (when `requireSeries`). */
async function readGraded(
  config: Config,
  query: ReadingQuery,
  { requireSeries }: { requireSeries: boolean },
): Promise<GradedReading[] | string> {
  const { store } = await openCommandStore(config, { mustExist: true })
  try {
    if (requireSeries) {
      const absent = await seriesAbsence(store, query.series)
      if (absent !== null) return absent
    }
    return await store.listGradedReadings(query)
  } finally {
    await store.close()
  }
}

function reportJson(report: EvaluationReport) {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
  return {
    ...report,
    since: iso(report.since),
    before: iso(report.before),
    trainUntil: iso(report.trainUntil),
  }
}
