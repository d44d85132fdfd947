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
import { type StoreOrigin, storeOrigin } from '../main/store-origin.ts'
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
  let simSeed: number | undefined
  if (args.simSeed !== undefined) {
    if (!/^[0-9]{1,15}$/.test(args.simSeed)) return fail('--sim-seed must be a whole number')
    if (!oracleFor) return fail('--sim-seed needs the sandbox, which this build does not have')
    simSeed = Number(args.simSeed)
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
  const graded = await readGraded(config, query, { requireSeries: true })
  const refuse = (problem: string): number => {
    process.stderr.write(`contest-signals evaluate: ${problem}\n`)
    return 1
  }
  if (typeof graded === 'string') return refuse(graded)
  const { readings, origin } = graded
  let oracle: ((r: GradedReading) => number | null) | undefined
  if (simSeed !== undefined && oracleFor) {
    const problem = sandboxMismatch(origin, simSeed, config.simParams, series)
    if (problem !== null) return refuse(problem)
    // a service's timeline keeps its parameters: its truth is priced on them when SIM_PARAMS is unset
    const params = config.simParams ?? (origin?.kind === 'sandbox' ? origin.params : null)
    oracle = oracleFor(simSeed, params ?? undefined)
  }
  let against: GradedReading[] | undefined
  if (args.against !== undefined) {
    try {
      // a bare path is a SQLite file, as the message above promises; a URL is read as DATABASE_URL is
      const databaseUrl = /^[a-z][a-z0-9+.-]*:/i.test(args.against) ? args.against : `sqlite:${args.against}`
      const other = await readGraded({ ...config, databaseUrl }, query, { requireSeries: false })
      if (typeof other !== 'string') against = other.readings
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

/** The graded readings and where they came from, or why the store cannot judge the series (when `requireSeries`). */
async function readGraded(
  config: Config,
  query: ReadingQuery,
  { requireSeries }: { requireSeries: boolean },
): Promise<{ readings: GradedReading[]; origin: StoreOrigin | null } | string> {
  const { store } = await openCommandStore(config, { mustExist: true })
  try {
    if (requireSeries) {
      const absent = await seriesAbsence(store, query.series)
      if (absent !== null) return absent
    }
    return { readings: await store.listGradedReadings(query), origin: await storeOrigin(store, query.series) }
  } finally {
    await store.close()
  }
}

/**
 * Why the sandbox of `seed` is not the truth of these contests, null when it may be: the store says
 * they came from another seed, from a tape that is no simulator's, or from a timeline made with other
 * SIM_PARAMS. A store that says nothing (written before it kept its origin) is taken at its word.
 */
function sandboxMismatch(
  origin: StoreOrigin | null,
  seed: number,
  params: SimParams | null,
  series: string,
): string | null {
  if (origin === null) return null
  if (origin.kind === 'other')
    return `--sim-seed ${seed}: the store's ${series} contests are not the simulator's (${origin.what}): the sandbox has no truth of them`
  if (origin.seed !== seed)
    return `--sim-seed ${seed}: the store's ${series} contests come from sim seed ${origin.seed} (${origin.what}): score them with --sim-seed ${origin.seed}`
  if (params !== null && origin.params !== null && JSON.stringify(params) !== JSON.stringify(origin.params))
    return `SIM_PARAMS differs from the settings the store's timeline was made with: leave it unset to score its contests on their own sandbox`
  return null
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
