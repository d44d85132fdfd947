// `contest-signals evaluate` (decisions §13): the stored readings scored against their outcomes,
// beside the venue's mid at the same instant and, on a sandbox store, the sandbox's hidden truth.
import type { Config } from '../config/config.ts'
import { type EvaluationReport, evaluateReadings } from '../domain/evaluation.ts'
import type { GradedReading } from '../domain/graded-reading.ts'
import { createSimOracle } from '../feeds/sim/oracle.ts'
import { openCommandStore } from './command-store.ts'
import { formatEvaluation } from './evaluate-report.ts'
import { parsePeriodArgs } from './period-args.ts'

export type EvaluateArgs = {
  series: string | undefined
  since: string | undefined
  before: string | undefined
  json: boolean
  /** the sandbox seed whose hidden truth to score as the oracle */
  simSeed: string | undefined
}

export type OracleFactory = (seed: number) => (r: GradedReading) => number | null

/** The sandbox's hidden P(up) at each reading's instant (decisions §13): the oracle of seed `seed`. */
export const sandboxOracle: OracleFactory = (seed) => {
  const oracle = createSimOracle({ seed })
  return (r) => {
    try {
      return oracle.probabilityYes({ expiresAt: r.expiresAt }, r.raisedAt)
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
    oracle = oracleFor(Number(args.simSeed))
  }
  const { store } = await openCommandStore(config, { mustExist: true })
  let readings: GradedReading[]
  try {
    readings = await store.listGradedReadings({ series, ...bounds })
  } finally {
    await store.close()
  }
  const report = evaluateReadings({ series, ...bounds, readings, ...(oracle ? { oracle } : {}) })
  process.stdout.write(
    args.json ? `${JSON.stringify(reportJson(report), null, 2)}\n` : formatEvaluation(report),
  )
  return 0
}

function reportJson(report: EvaluationReport) {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
  return { ...report, since: iso(report.since), before: iso(report.before) }
}
