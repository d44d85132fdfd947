// npm run bench: HTTP throughput of every read path as a ratio to GET /v1/health measured in the same
// run, then stream fan-out latency spread and memory per open stream. Prints a table and writes
// bench/results/latest.json. Knobs: BENCH_DURATION_S (load seconds per request kind, default 5, split over
// 5 rounds), BENCH_STREAMS (stream counts, default 10,100,1000), BENCH_ONLY (http or stream).
import { execFileSync } from 'node:child_process'
import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { rawRequest } from '../test/support/raw-request.ts'
import { waitFor } from '../test/support/wait.ts'
import { benchHttp, maxLoadSeconds, runSeconds } from './http-bench.ts'
import { skipBodyDecoding } from './http-load.ts'
import { startLoadMeter } from './machine-load.ts'
import { type BenchReport, formatReport } from './report.ts'
import { killAllServices, RATE_LIMIT_NEVER_REFUSES, startBenchService } from './service.ts'
import { type FanoutResult, measureFanout } from './stream-fanout.ts'

const SERIES = 'KXBTC15M'
const CONNECTIONS = 32
/** Interleaved rounds per request kind; BENCH_DURATION_S is split across them. */
const ROUNDS = 5
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
  if (raw === undefined || raw.trim() === '') return [10, 100, 1000]
  const list = raw.split(',').map((s) => Number(s.trim()))
  // Each stream is a socket on both ends of loopback, all in two processes of a small machine.
  if (list.some((n) => !Number.isInteger(n) || n < 1 || n > 5000))
    throw new Error('BENCH_STREAMS must be a comma-separated list of whole numbers from 1 to 5000')
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
  log(`Streams: starting a second service (SIM_SPEED=${STREAM_SIM_SPEED})`)
  const service = await startBenchService({
    simSpeed: STREAM_SIM_SPEED,
    backfillDays: BACKFILL_DAYS,
    memoryProbe: true,
  })
  try {
    await waitFor('a live contest', async () => {
      const res = await rawRequest(`${service.url}/v1/contests/active?series=${SERIES}`, {
        headers: { Authorization: `Bearer ${service.key}` },
      })
      return res.status === 200 ? true : undefined
    })
    const warningsBefore = service.warnings().length
    const meter = startLoadMeter(() => [service.pid])
    const rounds: FanoutResult[] = []
    for (const streams of counts) {
      const round = await measureFanout(
        { url: service.url, key: service.key, series: SERIES, memory: service.memory },
        { streams, signals: SIGNALS_PER_ROUND, maxWaitMs: 30_000 },
      )
      if (!service.alive()) throw new Error(`the service exited during the ${streams}-stream round`)
      if (round.signals === 0) throw new Error(`${streams} streams: no live signal reached every stream`)
      log(
        `  ${String(streams).padStart(5)} streams: spread p50 ${round.spreadP50Ms?.toFixed(2)} ms, p99 ${round.spreadP99Ms?.toFixed(2)} ms over ${round.signals} signals; RSS ${round.rssKiBPerStream?.toFixed(1)} KiB/stream, live ${round.liveKiBPerStream?.toFixed(1)} KiB/stream`,
      )
      rounds.push(round)
    }
    return {
      simSpeed: STREAM_SIM_SPEED,
      otherCpuPct: meter.otherCpuPct(),
      rounds,
      serviceWarnings: service.warnings().slice(warningsBefore),
    }
  } finally {
    await service.stop()
  }
}

async function main(): Promise<void> {
  const durationS = envNumber('BENCH_DURATION_S', 5, ROUNDS, 60)
  const streams = envStreams()
  const only = envOnly()
  watchdog(only === 'stream' ? 0 : durationS, only === 'http' ? [] : streams)
  const startedAt = new Date()
  const cpus = os.cpus()
  const commit = git(['rev-parse', 'HEAD'])
  const status = git(['status', '--porcelain'])

  const loadBefore = os.loadavg()[0]!
  const bodyDecodingSkipped = skipBodyDecoding()
  if (!bodyDecodingSkipped)
    log('autocannon internals have moved: it decodes every body, so compressed runs are client-bound')

  const http =
    only === 'stream'
      ? null
      : await benchHttp({
          series: SERIES,
          backfillDays: BACKFILL_DAYS,
          connections: CONNECTIONS,
          durationS,
          rounds: ROUNDS,
          log,
        })
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
      durationS,
      connections: CONNECTIONS,
      rounds: ROUNDS,
      runS: runSeconds({ durationS, rounds: ROUNDS }),
      autocannonBodyDecoding: !bodyDecodingSkipped,
      streams,
      signalsPerRound: SIGNALS_PER_ROUND,
      service: {
        SIM_BACKFILL_DAYS: String(BACKFILL_DAYS),
        SIM_SEED: '1',
        SIM_SPEED: `1 (HTTP), ${STREAM_SIM_SPEED} (streams)`,
        LOG_LEVEL: 'warn',
        ...RATE_LIMIT_NEVER_REFUSES,
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

/**
 * A run that cannot finish in time fails instead of hanging: twice what the knobs allow for (HTTP with
 * its extra rounds, each stream round's longest wait), plus start-ups.
 */
function watchdog(durationS: number, streams: number[]): void {
  const httpS = durationS > 0 ? maxLoadSeconds({ durationS, rounds: ROUNDS }) : 0
  const streamS = streams.length * 40
  const timer = setTimeout(
    () => {
      log('bench: still running well past its expected time; giving up')
      killAllServices()
      process.exit(1)
    },
    (2 * (httpS + streamS) + 60) * 1000,
  )
  timer.unref()
}

process.on('exit', killAllServices)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAllServices()
    process.exit(130)
  })
}

try {
  await main()
} catch (err) {
  log(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`)
  killAllServices()
  process.exitCode = 1
}
