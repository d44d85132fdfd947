// npm run bench: HTTP throughput of the read paths as ratios to a bare node:http server replaying the
// same bytes, then stream fan-out spread and memory per open stream as ratios to a bare broadcaster,
// all measured in interleaved pairs in one run. Prints a table and writes bench/results/latest.json.
// Knobs: BENCH_RUN_S (seconds of each side of an HTTP pair, default 3), BENCH_SLICE_MS (the sides
// take turns in slices this long, default 250), BENCH_ROUNDS (interleaved pairs per request kind,
// default 7), BENCH_STREAMS (default 8000,19000), BENCH_ONLY (http or stream),
// BENCH_STREAM_NODE_OPTIONS (Node options of the stream rounds' service, e.g. --cpu-prof),
// BENCH_BARE_OPTIMIZE_EMPTY=1 (the bare server with Node's optimizeEmptyRequests, as the service).
import { execFileSync } from 'node:child_process'
import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { rawRequest } from '../test/support/raw-request.ts'
import { waitFor } from '../test/support/wait.ts'
import { benchHttp, HTTP_CONFIGURATIONS, HTTP_LOAD, HTTP_SERVICE_ENV, maxLoadSeconds } from './http-bench.ts'
import { startLoadMeter } from './machine-load.ts'
import { killAllHelpers, startHelper } from './processes.ts'
import { type BenchReport, formatReport, type HttpReport } from './report.ts'
import {
  killAllServices,
  RATE_LIMIT_NEVER_REFUSES,
  readMemory,
  startBenchService,
  tempMemoryFile,
} from './service.ts'
import { type FanoutResult, measureFanout } from './stream-fanout.ts'
import { waitOutVenuePause } from './venue-pause.ts'

const SERIES = 'KXBTC15M'
const STREAM_CLIENT_PROCESSES = 3
/** Asked for; the hard limit caps it (each stream holds a descriptor in the server and in a client). */
const FILE_LIMIT = 65_536
const BACKFILL_DAYS = 7
/** At 60× a virtual minute lasts one wall second, so a live signal arrives about every second. */
const STREAM_SIM_SPEED = 60
const SIGNALS_PER_ROUND = 15
const RESULTS_FILE = path.join(import.meta.dirname, 'results', 'latest.json')

function envNumber(name: string, dflt: number, min: number, max: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw.trim() === '') return dflt
  const n = Number(raw)
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`${name} must be a whole number from ${min} to ${max}`)
  return n
}

function envStreams(): number[] {
  const raw = process.env.BENCH_STREAMS
  if (raw === undefined || raw.trim() === '') return [8000, 19000]
  const list = raw.split(',').map((s) => Number(s.trim()))
  // Each stream is a socket on both ends of loopback: a descriptor in the server and one in a client.
  if (list.some((n) => !Number.isInteger(n) || n < 1 || n > 20000))
    throw new Error('BENCH_STREAMS must be a comma-separated list of whole numbers from 1 to 20000')
  return list
}

/** BENCH_ONLY=http or BENCH_ONLY=stream runs one half (while working on it); unset runs both. */
function envOnly(): 'http' | 'stream' | null {
  const raw = process.env.BENCH_ONLY?.trim() ?? ''
  if (raw === '') return null
  if (raw === 'http' || raw === 'stream') return raw
  throw new Error('BENCH_ONLY must be http or stream')
}

function git(args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: import.meta.dirname, encoding: 'utf8' }).trim()
  } catch {
    return null
  }
}

function log(line: string): void {
  process.stderr.write(`${line}\n`)
}

async function benchStreams(counts: number[]): Promise<BenchReport['stream']> {
  log(`Streams: starting a second service (SIM_SPEED=${STREAM_SIM_SPEED}) and the bare broadcaster`)
  const service = await startBenchService({
    simSpeed: STREAM_SIM_SPEED,
    backfillDays: BACKFILL_DAYS,
    memoryProbe: true,
    fileLimit: FILE_LIMIT,
    // e.g. `--cpu-prof --cpu-prof-dir=…`: the service writes it when stopped at the end of the rounds
    ...(process.env.BENCH_STREAM_NODE_OPTIONS ? { nodeOptions: process.env.BENCH_STREAM_NODE_OPTIONS } : {}),
    // every stream comes from loopback: the per-address cap (STREAM_MAX_PER_ADDRESS) must not refuse
    env: { STREAM_MAX_PER_ADDRESS: '1000000' },
  })
  const bareMemory = tempMemoryFile()
  const bare = startHelper('bare-broadcaster.ts', {
    fileLimit: FILE_LIMIT,
    env: {
      NODE_OPTIONS: `--expose-gc --import ${pathToFileURL(path.join(import.meta.dirname, 'memory-probe.ts')).href}`,
      BENCH_MEMORY_FILE: bareMemory.file,
    },
  })
  const clients = Array.from({ length: STREAM_CLIENT_PROCESSES }, () =>
    startHelper('stream-client.ts', { fileLimit: FILE_LIMIT }),
  )
  try {
    const barePort = await bare.next<number>('port')
    await Promise.all(clients.map((c) => c.next('ready')))
    await waitFor('a live contest', async () => {
      const res = await rawRequest(`${service.url}/v1/contests/active?series=${SERIES}`, {
        headers: { Authorization: `Bearer ${service.key}` },
      })
      return res.status === 200 ? true : undefined
    })
    const warningsBefore = service.warnings().length
    const meter = startLoadMeter(() => [service.pid, bare.pid, ...clients.map((c) => c.pid)])
    const rounds: FanoutResult[] = []
    let frameBytes: number | null = null
    for (const streams of counts) {
      const settings = { streams, signals: SIGNALS_PER_ROUND, maxWaitMs: 40_000 }
      await waitOutVenuePause(service.url, STREAM_SIM_SPEED, serviceRoundS(streams), log)
      const warningsBeforeRound = service.warnings().length
      const svc = await measureFanout(
        {
          side: 'service',
          url: service.url,
          path: `/v1/stream/contests?series=${SERIES}`,
          key: service.key,
          pid: service.pid,
          memory: service.memory,
        },
        settings,
        clients,
      )
      if (!service.alive()) throw new Error(`the service exited during the ${streams}-stream round`)
      if (svc.signals === 0)
        throw new Error(
          `${streams} streams: no live signal reached every stream (${svc.lostStreams} streams lost; the service's warnings meanwhile: ${service.warnings().slice(warningsBeforeRound).slice(-5).join('\n') || 'none'})`,
        )
      frameBytes = svc.frameBytes ?? frameBytes
      await bare.ask({ frameBytes: frameBytes ?? 1000 }, 'ready')
      const base = await measureFanout(
        {
          side: 'bare',
          url: `http://127.0.0.1:${barePort}`,
          path: '/stream',
          key: null,
          pid: bare.pid,
          memory: () => readMemory(bare.pid, bareMemory.file),
        },
        settings,
        clients,
      )
      for (const r of [svc, base]) {
        log(
          `  ${String(streams).padStart(5)} streams, ${r.side.padEnd(7)}: spread p50 ${r.spreadP50Ms?.toFixed(1)} ms, p99 ${r.spreadP99Ms?.toFixed(1)} ms over ${r.signals} signals${r.incompleteSignals ? ` (+${r.incompleteSignals} incomplete)` : ''}${r.lostStreams ? ` (${r.lostStreams} streams lost: ${JSON.stringify(r.lost)})` : ''}; RSS ${r.rssKiBPerStream?.toFixed(1)} KiB/stream, live ${r.liveKiBPerStream?.toFixed(1)} KiB/stream; CPU ${r.cpuMsPerEvent?.toFixed(1)} ms/event (${r.cpuPctOfCore?.toFixed(0)} % of a core)`,
        )
      }
      rounds.push(svc, base)
    }
    return {
      simSpeed: STREAM_SIM_SPEED,
      clientProcesses: STREAM_CLIENT_PROCESSES,
      otherCpuPct: meter.otherCpuPct(),
      rounds,
      serviceWarnings: service.warnings().slice(warningsBefore),
    }
  } finally {
    for (const c of clients) c.stop()
    bare.stop()
    bareMemory.remove()
    await service.stop()
  }
}

async function main(): Promise<void> {
  const runS = envNumber('BENCH_RUN_S', 3, 1, 30)
  const sliceMs = envNumber('BENCH_SLICE_MS', 250, 50, 30_000)
  const rounds = envNumber('BENCH_ROUNDS', 7, 3, 20)
  const streams = envStreams()
  const only = envOnly()
  watchdog(
    only === 'stream'
      ? 0
      : HTTP_CONFIGURATIONS.reduce(
          (sum, c) =>
            sum +
            maxLoadSeconds({
              runS,
              sliceMs,
              rounds,
              kinds: c.targetsOnly ? Object.keys(c.targets).length : 6,
            }),
          0,
        ),
    only === 'http' ? [] : streams,
  )
  const startedAt = new Date()
  const cpus = os.cpus()
  const commit = git(['rev-parse', 'HEAD'])
  const status = git(['status', '--porcelain'])

  const loadBefore = os.loadavg()[0]!

  const http: HttpReport[] | null = only === 'stream' ? null : []
  for (const configuration of only === 'stream' ? [] : HTTP_CONFIGURATIONS) {
    http?.push(
      await benchHttp({
        series: SERIES,
        backfillDays: BACKFILL_DAYS,
        connections: HTTP_LOAD.connections,
        clientProcesses: HTTP_LOAD.clientProcesses,
        forwardedPool: HTTP_LOAD.forwardedPool,
        runS,
        sliceMs,
        rounds,
        configuration,
        log,
      }),
    )
  }
  const stream = only === 'http' ? null : await benchStreams(streams)

  const report: BenchReport = {
    date: startedAt.toISOString(),
    commit,
    dirty: status === null ? null : status !== '',
    machine: {
      cpus: cpus.length,
      cpuModel: cpus[0]?.model.trim() ?? 'unknown',
      totalMemMiB: Math.round(os.totalmem() / 1024 / 1024),
      platform: os.platform(),
      release: os.release(),
      node: process.version,
      loadAverage1m: { before: loadBefore, after: os.loadavg()[0]! },
    },
    settings: {
      connections: HTTP_LOAD.connections,
      rounds,
      runS,
      sliceMs,
      streams,
      signalsPerRound: SIGNALS_PER_ROUND,
      service: {
        SIM_BACKFILL_DAYS: String(BACKFILL_DAYS),
        SIM_SEED: '1',
        SIM_SPEED: `1 (HTTP), ${STREAM_SIM_SPEED} (streams)`,
        LOG_LEVEL: 'info with its access log to a file, then warn (HTTP); warn (streams)',
        ...RATE_LIMIT_NEVER_REFUSES,
        ...HTTP_SERVICE_ENV,
      },
    },
    http,
    stream,
  }
  mkdirSync(path.dirname(RESULTS_FILE), { recursive: true })
  // Written whole, then renamed: a run killed halfway never leaves a truncated latest.json behind.
  writeFileSync(`${RESULTS_FILE}.tmp`, `${JSON.stringify(report, null, 2)}\n`)
  renameSync(`${RESULTS_FILE}.tmp`, RESULTS_FILE)
  process.stdout.write(
    `\n${formatReport(report)}\n\nwritten: ${path.relative(process.cwd(), RESULTS_FILE)}\n`,
  )
}

/** Wall seconds a service round may take: opening (≈ 1 s per 2,500 streams), up to 40 s of collecting, closing. */
function serviceRoundS(streams: number): number {
  return 50 + streams / 2500
}

/**
 * A run that cannot finish in time fails instead of hanging: twice what the knobs allow for (HTTP with
 * its extra rounds, each stream round's longest wait), plus start-ups.
 */
function watchdog(httpS: number, streams: number[]): void {
  // Each stream round twice (service, bare), and once the simulated venue's weekly pause (2 wall
  // minutes at SIM_SPEED=60, venue-pause.ts).
  const streamS =
    streams.length === 0 ? 0 : 150 + streams.reduce((n, count) => n + 2 * serviceRoundS(count), 0)
  const timer = setTimeout(
    () => {
      log('bench: still running well past its expected time; giving up')
      killAllServices()
      killAllHelpers()
      process.exit(1)
    },
    (2 * (httpS + streamS) + 120) * 1000,
  )
  timer.unref()
}

process.on('exit', () => {
  killAllServices()
  killAllHelpers()
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAllServices()
    killAllHelpers()
    process.exit(130)
  })
}

try {
  await main()
} catch (err) {
  log(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`)
  killAllServices()
  killAllHelpers()
  process.exitCode = 1
}
