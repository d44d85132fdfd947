// The HTTP half of the benchmark: each request kind against the service and against a bare node:http
// server replaying the very bytes the service sent for it (bare-server.ts), in interleaved pairs, so
// every figure is a ratio to Node's own limit on the same machine, measured minutes apart at most.
// Load comes from separate client processes (load-client.ts), every request with an
// X-Forwarded-For from a pool of addresses, so the key check and the limiter run on every request.

import { createWireClient } from '../test/support/wire-client.ts'
import type { CapturedResponse } from './bare-server.ts'
import type { LoadOrder, LoadReport } from './load-client.ts'
import { BUSY_PCT, startLoadMeter } from './machine-load.ts'
import { type Helper, startHelper } from './processes.ts'
import type { HttpFigure, HttpReport, SideFigure } from './report.ts'
import { type BenchService, startBenchService } from './service.ts'

export type HttpBenchOptions = {
  series: string
  backfillDays: number
  /** connections over all client processes */
  connections: number
  clientProcesses: number
  /** distinct X-Forwarded-For addresses over all client processes */
  forwardedPool: number
  /** seconds of each side of a pair */
  runS: number
  /** a pair's sides take turns in slices this long (≥ runS × 1000: one whole run each) */
  sliceMs: number
  /** interleaved service/bare pairs per request kind */
  rounds: number
  /** one service configuration: its name in the report, its environment, and its targets */
  configuration: HttpConfiguration
  log(line: string): void
}

export type HttpConfiguration = {
  name: string
  env: Record<string, string>
  /** stdout (the access log at info) appended to a file, as a log collector would take it */
  logToFile: boolean
  /** the least ratio to bare each target kind must reach in this configuration */
  targets: Readonly<Record<string, number>>
  /** only the target kinds (the second configuration, to keep the run short) */
  targetsOnly: boolean
}

/**
 * The two configurations: the defaults (request logging at info, so one access-log line per
 * request, written to a file) and LOG_LEVEL=warn, each with its targets as ratios to bare.
 */
export const HTTP_CONFIGURATIONS: readonly HttpConfiguration[] = [
  {
    name: 'defaults (LOG_LEVEL=info, access log to a file)',
    env: { LOG_LEVEL: 'info' },
    logToFile: true,
    targets: { 'settled contest': 0.85, 'active contest': 0.85, 'history limit=100': 0.9 },
    targetsOnly: false,
  },
  {
    name: 'LOG_LEVEL=warn',
    env: { LOG_LEVEL: 'warn' },
    logToFile: false,
    targets: { 'settled contest': 0.9, 'active contest': 0.9, 'history limit=100': 0.9 },
    targetsOnly: true,
  },
]

/** Rounds run beyond `rounds` to replace ones during which other processes took the CPU. */
const MAX_EXTRA_ROUNDS = 2
/** Seconds a side of each kind's warm-up pair, every round (fresh processes compile their code anew). */
const WARM_UP_S = 1
/** A service start with its week of history takes about 3 s on this machine; room for a slow one. */
const SERVICE_START_S = 10
/** Share of unexpected answers (wrong status, errors) above which a run is repeated, then fails. */
const MAX_UNEXPECTED_SHARE = 0.01
/** The service trusts the load clients' X-Forwarded-For (decisions §5). */
export const HTTP_SERVICE_ENV = { TRUST_PROXY: '127.0.0.1' }

export type Kind = {
  name: string
  path: string
  method: 'GET' | 'HEAD'
  headers(service: BenchService): Promise<Record<string, string>>
  expectStatus: number
}

export async function discoverTicker(
  service: Pick<BenchService, 'url' | 'key'>,
  series: string,
): Promise<string> {
  const res = await capture(service, `/v1/contests?series=${series}&limit=100`, {
    Authorization: `Bearer ${service.key}`,
  })
  const { contests } = JSON.parse(Buffer.from(res.bodyBase64, 'base64').toString('utf8')) as {
    contests: { ticker: string; signals: unknown[] }[]
  }
  const settled = contests.find((c) => c.signals.length > 0)
  if (!settled) throw new Error('no settled contest with signals in the backfilled history')
  return settled.ticker
}

/** The request kinds the one-off scripts take by a short name (BENCH_CPU_KIND, BENCH_PROFILE_KIND). */
export const KIND_NAMES: Readonly<Record<string, string>> = {
  settled: 'settled contest',
  active: 'active contest',
  history: 'history limit=100',
}

export function kinds(series: string, ticker: string): Kind[] {
  const auth = async (s: BenchService) => ({ Authorization: `Bearer ${s.key}` })
  const history = `/v1/contests?series=${series}&limit=100`
  return [
    {
      name: 'settled contest',
      path: `/v1/contests/${ticker}`,
      method: 'GET',
      headers: auth,
      expectStatus: 200,
    },
    {
      name: 'active contest',
      path: `/v1/contests/active?series=${series}`,
      method: 'GET',
      headers: auth,
      expectStatus: 200,
    },
    {
      name: 'history limit=100',
      path: history,
      method: 'GET',
      headers: auth,
      expectStatus: 200,
    },
    {
      name: 'history limit=100, br',
      path: history,
      method: 'GET',
      headers: async (s) => ({ ...(await auth(s)), 'Accept-Encoding': 'br' }),
      expectStatus: 200,
    },
    {
      name: 'history limit=100, 304',
      path: history,
      method: 'GET',
      // Read just before each run: a settlement changes the page and so its ETag.
      headers: async (s) => {
        const res = await capture(s, history, await auth(s))
        const etag = res.headers.find(([k]) => k === 'etag')?.[1]
        if (!etag) throw new Error('history page has no ETag')
        return { ...(await auth(s)), 'If-None-Match': etag }
      },
      expectStatus: 304,
    },
    {
      name: '401 bad key',
      path: `/v1/contests/active?series=${series}`,
      method: 'GET',
      headers: async () => ({ Authorization: 'Bearer cs_benchNotAKeyOfThisDeployment' }),
      expectStatus: 401,
    },
  ]
}

/** One response as the service put it on the wire; Node adds Date, Connection and Keep-Alive on both servers. */
export async function capture(
  service: Pick<BenchService, 'url'>,
  path: string,
  headers: Record<string, string>,
): Promise<CapturedResponse> {
  const client = createWireClient(Number(new URL(service.url).port))
  try {
    const res = await client.send('GET', path, { ...headers, 'X-Forwarded-For': '192.0.2.1' })
    const nodeOwn = new Set(['date', 'connection', 'keep-alive'])
    return {
      status: Number(res.statusLine.split(' ')[1]),
      headers: res.headers.filter(([k]) => !nodeOwn.has(k.toLowerCase())),
      bodyBase64: res.body.toString('base64'),
    }
  } finally {
    client.close()
  }
}

export type Run = {
  reqPerSec: number
  responses: number
  durationS: number
  unexpected: number
  latency10us: Record<string, number>
  statusCounts: Record<string, number>
}

/** The HTTP load of every benchmark, as the wrk runs: 64 connections over the client processes. */
export const HTTP_LOAD = {
  connections: 64,
  clientProcesses: 2,
  /** X-Forwarded-For addresses, so the limiter's map holds as many clients as behind a busy proxy. */
  forwardedPool: 200_000,
} as const

/** How a pair is loaded: slices of `sliceMs`, each followed by `gapMs`, the servers in `schedule`'s order. */
export type Slicing = { schedule: number[]; sliceMs: number; gapMs: number }

/** Time for every client process to connect before the first slice starts. */
const START_DELAY_MS = 300
/** Between slices: every process's last answers in, before the next server's turn (history's p99 ≈ 30 ms). */
export const SLICE_GAP_MS = 30

/** A plain run: one server for `runS` seconds. */
export const wholeRun = (runS: number): Slicing => ({ schedule: [0], sliceMs: runS * 1000, gapMs: 0 })

/**
 * Two servers in turn, `runS` seconds each in slices of `sliceMs`, in the order ABBA ABBA… so that a
 * steady drift falls on both alike; `firstIs` says which of the two (0 or 1) is A.
 */
export function interleaved(runS: number, sliceMs: number, firstIs: 0 | 1): Slicing {
  const slice = Math.min(sliceMs, runS * 1000)
  const perSide = Math.max(1, Math.round((runS * 1000) / slice))
  const schedule = Array.from({ length: 2 * perSide }, (_, k) => (((k + 1) >> 1) % 2) ^ firstIs)
  return { schedule, sliceMs: slice, gapMs: SLICE_GAP_MS }
}

/** One load of `kind` on `urls` as `slicing` says, its connections and addresses shared out over the clients. */
export function loadReports(
  clients: Helper[],
  urls: string[],
  kind: Kind,
  headers: Record<string, string>,
  opts: { connections: number; forwardedPool: number; slicing: Slicing },
): Promise<LoadReport[]> {
  const per = Math.ceil(opts.connections / clients.length)
  const pool = Math.ceil(opts.forwardedPool / clients.length)
  const startAt = Date.now() + START_DELAY_MS
  return Promise.all(
    clients.map((c, i) =>
      c.ask<LoadReport>(
        {
          run: {
            urls,
            path: kind.path,
            method: kind.method,
            headers,
            connections: per,
            ...opts.slicing,
            startAt,
            forwardedPool: pool,
            poolOffset: i * pool,
          } satisfies LoadOrder,
        },
        'done',
      ),
    ),
  )
}

/** Server `index`'s figures over every client process: its rate is the sum of each process's rate. */
export function runOf(reports: LoadReport[], index: number, kind: Kind): Run {
  const latency10us: Record<string, number> = {}
  const statusCounts: Record<string, number> = {}
  let responses = 0
  let errors = 0
  let reqPerSec = 0
  for (const report of reports) {
    const r = report.servers[index]!
    responses += r.responses
    errors += r.errors
    reqPerSec += r.durationS > 0 ? r.responses / r.durationS : 0
    for (const [k, n] of Object.entries(r.latency10us)) latency10us[k] = (latency10us[k] ?? 0) + n
    for (const [k, n] of Object.entries(r.statusCounts)) statusCounts[k] = (statusCounts[k] ?? 0) + n
  }
  const durationS = Math.max(...reports.map((r) => r.servers[index]!.durationS))
  const unexpected = responses - (statusCounts[kind.expectStatus] ?? 0) + errors
  return { reqPerSec, responses, durationS, unexpected, latency10us, statusCounts }
}

type Pair = { svc: Run; bare: Run; captured: CapturedResponse }

/** One round's own processes: a fresh service and a fresh bare server (see benchHttp). */
type Instances = { service: BenchService; bare: Helper; bareUrl: string; kinds: Kind[] }

/**
 * Seven rounds (`rounds`), each with a fresh service and a fresh bare server: one process of the same
 * code on the same machine is not the next (two identical bare servers differ by up to 7% for as
 * long as they live: `npm run bench:noise`, BENCHMARKS.md), so a ratio measured on one pair of
 * processes carries their luck. The median over rounds is over as many instances of each side.
 */
export async function benchHttp(opts: HttpBenchOptions): Promise<HttpReport> {
  const { log } = opts
  const config = opts.configuration
  log(
    `HTTP, ${config.name}: a fresh service (SIM_SPEED=1, ${opts.backfillDays} days of history, TRUST_PROXY=127.0.0.1) and bare server each round`,
  )
  let logBytes = 0
  let serviceSeconds = 0
  const clients = Array.from({ length: opts.clientProcesses }, () => startHelper('load-client.ts'))
  let current: Instances | null = null

  async function startInstances(): Promise<Instances> {
    const bare = startHelper('bare-server.ts')
    let service: BenchService | null = null
    try {
      service = await startBenchService({
        simSpeed: 1,
        backfillDays: opts.backfillDays,
        env: { ...HTTP_SERVICE_ENV, ...config.env },
        logToFile: config.logToFile,
      })
      const bareUrl = `http://127.0.0.1:${await bare.next<number>('port')}`
      const all = kinds(opts.series, await discoverTicker(service, opts.series)).filter(
        (k) => !config.targetsOnly || config.targets[k.name] !== undefined,
      )
      return { service, bare, bareUrl, kinds: all }
    } catch (err) {
      bare.stop()
      await service?.stop()
      throw err
    }
  }

  async function stopInstances(i: Instances): Promise<void> {
    i.bare.stop()
    await i.service.stop()
  }

  /**
   * Service and bare in turns (interleaved), the service's turn first or the bare server's: the
   * bare server replays what the service just sent.
   * A pair with unexpected answers is run again once with fresh headers and bytes (a settlement
   * changes the history page, its ETag, and so what a 304 run must send), then fails the run.
   */
  async function pair(i: Instances, kind: Kind, bareFirst: boolean, runS: number): Promise<Pair> {
    const { service, bare, bareUrl } = i
    for (let attempt = 1; ; attempt++) {
      const headers = await kind.headers(service)
      const captured = await capture(service, kind.path, headers)
      if (captured.status !== kind.expectStatus)
        throw new Error(`${kind.name}: expected ${kind.expectStatus}, got ${captured.status}`)
      await bare.ask({ replay: captured }, 'ready')
      service.rotateLog()
      const reports = await loadReports(clients, [service.url, bareUrl], kind, headers, {
        ...opts,
        slicing: interleaved(runS, opts.sliceMs, bareFirst ? 1 : 0),
      })
      const svc = runOf(reports, 0, kind)
      const base = runOf(reports, 1, kind)
      logBytes += service.rotateLog()
      serviceSeconds += svc.durationS
      if (!service.alive()) throw new Error(`the service exited during ${kind.name}`)
      const bad = [svc, base].filter(
        (r) => r.responses === 0 || r.unexpected / r.responses > MAX_UNEXPECTED_SHARE,
      )
      if (bad.length === 0) return { svc, bare: base, captured }
      for (const r of bad)
        log(
          `  ${kind.name}: ${r.unexpected} of ${r.responses} answers unexpected ${JSON.stringify(r.statusCounts)}`,
        )
      if (attempt === 2) throw new Error(`${kind.name}: too many unexpected answers twice in a row`)
    }
  }

  try {
    await Promise.all(clients.map((c) => c.next('ready')))
    type Round = { pairs: Pair[]; kinds: Kind[]; otherCpuPct: number | null; quiet: boolean }
    const rounds: Round[] = []
    const quietRounds = () => rounds.filter((r) => r.quiet).length
    while (quietRounds() < opts.rounds && rounds.length < opts.rounds + MAX_EXTRA_ROUNDS) {
      const n = rounds.length
      log(`HTTP: round ${n + 1}: starting a service and a bare server, warming both up`)
      const inst = await startInstances()
      current = inst
      // Both processes' code is compiled for the work before anything is measured. In reverse
      // order, so the kind measured first comes right after its own warm-up, not after the 401s,
      // whose trips through the framework leave garbage for whatever runs next to collect.
      for (const kind of inst.kinds.toReversed()) await pair(inst, kind, false, WARM_UP_S)
      const meter = startLoadMeter(() => [inst.service.pid, inst.bare.pid, ...clients.map((c) => c.pid)])
      const pairs: Pair[] = []
      for (const kind of inst.kinds) {
        // Alternate which side runs first, so a drift within a round falls on both alike.
        const p = await pair(inst, kind, n % 2 === 1, opts.runS)
        pairs.push(p)
        log(
          `  ${kind.name.padEnd(24)} service ${String(Math.round(p.svc.reqPerSec)).padStart(6)} req/s  bare ${String(Math.round(p.bare.reqPerSec)).padStart(6)} req/s  ratio ${(p.svc.reqPerSec / p.bare.reqPerSec).toFixed(2)}`,
        )
      }
      const otherCpuPct = meter.otherCpuPct()
      const quiet = otherCpuPct === null || otherCpuPct <= BUSY_PCT
      if (!quiet) log(`  other processes used ${otherCpuPct?.toFixed(0)}% of the CPU: round not counted`)
      rounds.push({ pairs, kinds: inst.kinds, otherCpuPct, quiet })
      current = null
      await stopInstances(inst)
    }
    const counted = quietRounds() >= Math.ceil(opts.rounds / 2) ? rounds.filter((r) => r.quiet) : rounds
    const last = counted.at(-1)!
    const scenarios = last.kinds.map((kind, i): HttpFigure => {
      // what the service sent in the last counted round (the same in every round but for the ticker)
      const body = last.pairs[i]!.captured
      const enc = body.headers.find(([k]) => k === 'content-encoding')?.[1] ?? null
      const pairs = counted.map((r) => r.pairs[i]!)
      const ratios = pairs.map((p) => p.svc.reqPerSec / p.bare.reqPerSec).sort((a, b) => a - b)
      return {
        name: kind.name,
        path: kind.path,
        target: opts.configuration.targets[kind.name] ?? null,
        status: body.status,
        bodyBytes: Buffer.from(body.bodyBase64, 'base64').length,
        headerBytes: body.headers.reduce((n, [k, v]) => n + k.length + v.length + 4, 0),
        contentEncoding: enc,
        service: side(pairs.map((p) => p.svc)),
        bare: side(pairs.map((p) => p.bare)),
        ratio: median(ratios),
        ratioMin: ratios[0]!,
        ratioMax: ratios.at(-1)!,
        ratios: pairs.map((p) => p.svc.reqPerSec / p.bare.reqPerSec),
      }
    })
    return {
      configuration: config.name,
      env: config.env,
      logBytesPerSecond: config.logToFile && serviceSeconds > 0 ? logBytes / serviceSeconds : null,
      clientProcesses: opts.clientProcesses,
      connections: opts.connections,
      forwardedPool: opts.forwardedPool,
      runS: opts.runS,
      sliceMs: Math.min(opts.sliceMs, opts.runS * 1000),
      otherCpuPct: rounds.map((r) => r.otherCpuPct),
      rounds: rounds.map((r) => ({ otherCpuPct: r.otherCpuPct, counted: counted.includes(r) })),
      scenarios,
    }
  } finally {
    for (const c of clients) c.stop()
    if (current) await stopInstances(current)
  }
}

function side(runs: Run[]): SideFigure {
  const merged: Record<string, number> = {}
  for (const r of runs) for (const [k, n] of Object.entries(r.latency10us)) merged[k] = (merged[k] ?? 0) + n
  return {
    reqPerSec: runs.reduce((n, r) => n + r.responses, 0) / runs.reduce((n, r) => n + r.durationS, 0),
    rounds: runs.map((r) => r.reqPerSec),
    p50Ms: percentileOf(merged, 50),
    p99Ms: percentileOf(merged, 99),
    unexpected: runs.reduce((n, r) => n + r.unexpected, 0),
  }
}

/** The p-th percentile of a 10 µs bucket histogram, in ms (the bucket's upper edge). */
function percentileOf(hist: Record<string, number>, p: number): number {
  const buckets = Object.entries(hist)
    .map(([k, n]) => [Number(k), n] as const)
    .sort((a, b) => a[0] - b[0])
  const total = buckets.reduce((n, [, c]) => n + c, 0)
  let seen = 0
  for (const [bucket, n] of buckets) {
    seen += n
    if (seen >= (p / 100) * total) return ((bucket + 1) * 10) / 1000
  }
  return Number.NaN
}

/** The median of numbers already sorted. */
export function median(sorted: readonly number[]): number {
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** The longest the HTTP half can take under load (extra rounds and warm-up included). */
export function maxLoadSeconds(opts: {
  runS: number
  sliceMs: number
  rounds: number
  kinds?: number
}): number {
  const k = opts.kinds ?? 6
  const pairS = (runS: number) => {
    const slice = Math.min(opts.sliceMs, runS * 1000)
    return 2 * runS * (1 + SLICE_GAP_MS / slice) + START_DELAY_MS / 1000
  }
  const roundS = SERVICE_START_S + k * (pairS(WARM_UP_S) + pairS(opts.runS))
  return (opts.rounds + MAX_EXTRA_ROUNDS) * roundS * 1.5
}
