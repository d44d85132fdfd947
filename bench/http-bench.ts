// The HTTP half of the benchmark: one service, every read path measured in interleaved rounds against
// GET /v1/health, so each figure is a ratio to baseline runs just before and after it on the same machine.
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks'
import { rawRequest } from '../test/support/raw-request.ts'
import {
  type BodyProbe,
  type HttpScenario,
  type LoadResult,
  type LoadSettings,
  probeBody,
  runLoad,
  warmUp,
} from './http-load.ts'
import { BUSY_PCT, startLoadMeter } from './machine-load.ts'
import type { BenchReport, HttpFigure } from './report.ts'
import { type BenchService, startBenchService } from './service.ts'

export type HttpBenchOptions = {
  series: string
  backfillDays: number
  connections: number
  /** load seconds per request kind, split over `rounds` */
  durationS: number
  rounds: number
  log(line: string): void
}

/** Rounds run beyond `rounds` to replace ones during which other processes took the CPU. */
const MAX_EXTRA_ROUNDS = 2
/** Every path mixed, before the first round: the first seconds of a fresh process are JIT warm-up. */
const WARM_UP_S = 6
/** Share of unexpected answers (wrong status, errors) above which a run is repeated, then fails. */
const MAX_UNEXPECTED_SHARE = 0.01

type Discovery = { settledTicker: string; historyContests: number }

async function discover(service: BenchService, series: string): Promise<Discovery> {
  const res = await rawRequest(`${service.url}/v1/contests?series=${series}&limit=100`, {
    headers: { Authorization: `Bearer ${service.key}` },
  })
  if (res.status !== 200) throw new Error(`history answered ${res.status}`)
  const { contests } = JSON.parse(res.body.toString('utf8')) as {
    contests: { ticker: string; state: string; signals: unknown[] }[]
  }
  const settled = contests.find((c) => c.state === 'settled' && c.signals.length > 0)
  if (!settled) throw new Error('no settled contest with signals in the backfilled history')
  return { settledTicker: settled.ticker, historyContests: contests.length }
}

/** How many kinds of request each round runs, the baseline included. */
export const REQUEST_KINDS = 7

/** The baseline first, then the other REQUEST_KINDS − 1. */
function scenarios(service: BenchService, series: string, found: Discovery): HttpScenario[] {
  const auth = { Authorization: `Bearer ${service.key}` }
  const fixed = (headers: Record<string, string>) => async () => headers
  const history = `/v1/contests?series=${series}&limit=100`
  return [
    { name: 'GET /v1/health', path: '/v1/health', expectStatus: 200, headers: fixed({}) },
    {
      name: 'active contest',
      path: `/v1/contests/active?series=${series}`,
      expectStatus: 200,
      headers: fixed(auth),
    },
    {
      name: 'settled contest',
      path: `/v1/contests/${encodeURIComponent(found.settledTicker)}`,
      expectStatus: 200,
      headers: fixed(auth),
    },
    { name: 'history limit=100', path: history, expectStatus: 200, headers: fixed(auth) },
    {
      name: 'history limit=100, br',
      path: history,
      expectStatus: 200,
      headers: fixed({ ...auth, 'Accept-Encoding': 'br' }),
    },
    {
      name: 'history limit=100, 304',
      path: history,
      expectStatus: 304,
      // Read just before each run: a settlement changes the page and so its ETag.
      headers: async () => {
        const res = await rawRequest(`${service.url}${history}`, { headers: auth })
        const etag = res.headers.etag
        if (typeof etag !== 'string') throw new Error('history page has no ETag')
        return { ...auth, 'If-None-Match': etag }
      },
    },
    {
      name: '401 bad key',
      path: `/v1/contests/active?series=${series}`,
      expectStatus: 401,
      headers: fixed({ Authorization: 'Bearer cs_benchNotAKeyOfThisDeployment' }),
    },
  ]
}

/** One run of one scenario; a run with unexpected answers is repeated once (an ETag may have moved). */
async function run(
  service: BenchService,
  scenario: HttpScenario,
  settings: LoadSettings,
  latencyUs: RecordableHistogram,
  log: (line: string) => void,
): Promise<LoadResult> {
  for (let attempt = 1; ; attempt++) {
    const load = await runLoad(service.url, scenario, settings, latencyUs)
    if (!service.alive()) throw new Error(`the service exited during ${scenario.name}`)
    if (load.requests > 0 && load.unexpected / load.requests <= MAX_UNEXPECTED_SHARE) return load
    const counts = JSON.stringify(load.statusCounts)
    log(`  ${scenario.name}: ${load.unexpected} of ${load.requests} answers unexpected ${counts}`)
    if (attempt === 2) throw new Error(`${scenario.name}: too many unexpected answers twice in a row`)
  }
}

type Round = {
  /** per request kind, its runs in this round (several for the baseline) */
  loads: LoadResult[][]
  latency: RecordableHistogram[]
  /** per request kind, its req/s ÷ the baseline's around it (1 for the baseline) */
  ratios: number[]
  otherCpuPct: number | null
  quiet: boolean
}

const reqPerSec = (loads: readonly LoadResult[]) =>
  loads.reduce((n, l) => n + l.requests, 0) / loads.reduce((n, l) => n + l.durationS, 0)

/**
 * One round: B S1 B S2 B … Sn B. Each request kind sits between two baseline runs and is divided by
 * their mean, so a slow stretch of the machine (this one has them, other processes or not) falls on
 * a figure and its divisor alike.
 */
async function runRound(
  service: BenchService,
  all: HttpScenario[],
  settings: LoadSettings,
  log: (line: string) => void,
): Promise<Round> {
  const meter = startLoadMeter(() => [service.pid])
  const [baseline, ...others] = all as [HttpScenario, ...HttpScenario[]]
  const latency = all.map(() => createHistogram())
  const loads: LoadResult[][] = all.map(() => [])
  const ratios = all.map(() => 1)
  loads[0]!.push(await run(service, baseline, settings, latency[0]!, log))
  for (const [k, scenario] of others.entries()) {
    const i = k + 1
    const load = await run(service, scenario, settings, latency[i]!, log)
    const before = loads[0]!.at(-1)!
    const after = await run(service, baseline, settings, latency[0]!, log)
    loads[i]!.push(load)
    loads[0]!.push(after)
    ratios[i] = load.reqPerSec / ((before.reqPerSec + after.reqPerSec) / 2)
    log(
      `  ${scenario.name.padEnd(24)} ${String(Math.round(load.reqPerSec)).padStart(6)} req/s  ratio ${ratios[i]!.toFixed(2)}`,
    )
  }
  const otherCpuPct = meter.otherCpuPct()
  const quiet = otherCpuPct === null || otherCpuPct <= BUSY_PCT
  log(`  ${baseline.name.padEnd(24)} ${String(Math.round(reqPerSec(loads[0]!))).padStart(6)} req/s (mean)`)
  if (!quiet) log(`  other processes used ${otherCpuPct?.toFixed(0)}% of the CPU: round not counted`)
  return { loads, latency, ratios, otherCpuPct, quiet }
}

/**
 * A scenario's ratio is the median of its per-round ratios. Rounds during which other processes used
 * more than BUSY_PCT of the CPU are replaced (up to MAX_EXTRA_ROUNDS more) and left out when enough
 * quiet ones remain.
 */
export async function benchHttp(opts: HttpBenchOptions): Promise<BenchReport['http']> {
  const { log } = opts
  log(`HTTP: starting the service (SIM_SPEED=1, ${opts.backfillDays} days of history)`)
  const service = await startBenchService({ simSpeed: 1, backfillDays: opts.backfillDays })
  try {
    const found = await discover(service, opts.series)
    const all = scenarios(service, opts.series, found)
    const bodies: BodyProbe[] = []
    for (const scenario of all) {
      const body = await probeBody(service.url, scenario)
      if (body.status !== scenario.expectStatus)
        throw new Error(`${scenario.name}: expected ${scenario.expectStatus}, got ${body.status}`)
      bodies.push(body)
    }
    const phase = startLoadMeter(() => [service.pid])
    log('HTTP: warming up')
    await warmUp(service.url, all, { connections: opts.connections, durationS: WARM_UP_S })
    const settings = { connections: opts.connections, durationS: runSeconds(opts) }
    const rounds: Round[] = []
    const quietRounds = () => rounds.filter((r) => r.quiet).length
    while (quietRounds() < opts.rounds && rounds.length < opts.rounds + MAX_EXTRA_ROUNDS) {
      log(`HTTP: round ${rounds.length + 1}`)
      rounds.push(await runRound(service, all, settings, log))
    }
    // On a machine that never went quiet, every round counts and the report says the machine was busy.
    const counted = quietRounds() >= Math.ceil(opts.rounds / 2) ? rounds.filter((r) => r.quiet) : rounds
    return {
      baseline: all[0]!.name,
      historyPageContests: found.historyContests,
      otherCpuPct: phase.otherCpuPct(),
      rounds: rounds.map((r) => ({ otherCpuPct: r.otherCpuPct, counted: counted.includes(r) })),
      scenarios: all.map((scenario, i) => figure(scenario, bodies[i]!, counted, i)),
    }
  } finally {
    await service.stop()
  }
}

/** Seconds of one run: BENCH_DURATION_S is each request kind's load time over all its rounds. */
export function runSeconds(opts: Pick<HttpBenchOptions, 'durationS' | 'rounds'>): number {
  return Math.max(1, Math.round(opts.durationS / opts.rounds))
}

/** The longest the HTTP half can take under load (extra rounds included), start-up and probes aside. */
export function maxLoadSeconds(opts: Pick<HttpBenchOptions, 'durationS' | 'rounds'>): number {
  return WARM_UP_S + (opts.rounds + MAX_EXTRA_ROUNDS) * (2 * REQUEST_KINDS - 1) * runSeconds(opts)
}

function figure(scenario: HttpScenario, body: BodyProbe, rounds: Round[], i: number): HttpFigure {
  const loads = rounds.flatMap((r) => r.loads[i]!)
  const latency = createHistogram()
  for (const r of rounds) latency.add(r.latency[i]!)
  const ratios = rounds.map((r) => r.ratios[i]!).sort((a, b) => a - b)
  const statusCounts: Record<string, number> = {}
  for (const l of loads)
    for (const [code, n] of Object.entries(l.statusCounts)) statusCounts[code] = (statusCounts[code] ?? 0) + n
  return {
    name: scenario.name,
    path: scenario.path,
    ...body,
    requests: loads.reduce((n, l) => n + l.requests, 0),
    reqPerSec: reqPerSec(loads),
    p50Ms: latency.percentile(50) / 1000,
    p99Ms: latency.percentile(99) / 1000,
    ratio: median(ratios),
    ratioMin: ratios[0]!,
    ratioMax: ratios.at(-1)!,
    rounds: rounds.map((r) => reqPerSec(r.loads[i]!)),
    unexpected: loads.reduce((n, l) => n + l.unexpected, 0),
    statusCounts,
  }
}

function median(sorted: readonly number[]): number {
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
