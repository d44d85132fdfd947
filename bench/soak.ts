// npm run soak: the service under a steady, realistic load for a long while, watching for growth.
// SIM_SPEED=60 (a contest every 15 s), SOAK_STREAMS open streams (default 1,000) for the whole run,
// and a steady poll load of SOAK_POLL_RPS requests per second (default 100) over the three hot URLs
// with X-Forwarded-For from a pool of addresses. Every 5 s the service reports its memory and its
// event-loop delay (loop-probe.ts). After SOAK_WARMUP_S (default 120) of warm-up, the run must show
// RSS growth < 10% (mean of the first minute after warm-up → mean of the last minute) and an
// event-loop delay p99 < 50 ms in every interval; every stream must have received every event.
// SOAK_DURATION_S (default 600) sets the length. Writes bench/results/soak.json; exit 1 on a miss.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { Agent, get } from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { pathToFileURL } from 'node:url'
import { rawRequest } from '../test/support/raw-request.ts'
import { waitFor } from '../test/support/wait.ts'
import { HTTP_SERVICE_ENV } from './http-bench.ts'
import { poolAddress } from './load-client.ts'
import { killAllHelpers, startHelper } from './processes.ts'
import { killAllServices, startBenchService, tempMemoryFile } from './service.ts'
import type { ClientReport, OpenOrder } from './stream-client.ts'

const SERIES = 'KXBTC15M'
const RESULTS_FILE = path.join(import.meta.dirname, 'results', 'soak.json')
const num = (name: string, dflt: number) => {
  const raw = process.env[name]
  const n = raw === undefined || raw === '' ? dflt : Number(raw)
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number ≥ 0`)
  return n
}
const durationS = num('SOAK_DURATION_S', 600)
const warmUpS = Math.min(num('SOAK_WARMUP_S', 120), durationS / 2)
const streamCount = num('SOAK_STREAMS', 1000)
const pollRps = num('SOAK_POLL_RPS', 100)

type Sample = {
  at: number
  rssKiB: number
  heapUsedKiB: number
  externalKiB: number
  loopP50Ms: number
  loopP99Ms: number
  loopMaxMs: number
}

const log = (line: string) => process.stderr.write(`${line}\n`)

async function main(): Promise<void> {
  const probe = tempMemoryFile()
  const service = await startBenchService({
    simSpeed: 60,
    backfillDays: 7,
    fileLimit: 65_536,
    env: {
      ...HTTP_SERVICE_ENV,
      // every stream comes from loopback: the per-address cap must not refuse them (as in run.ts)
      STREAM_MAX_PER_ADDRESS: '1000000',
      NODE_OPTIONS: `--import ${pathToFileURL(path.join(import.meta.dirname, 'loop-probe.ts')).href}`,
      BENCH_SOAK_FILE: probe.file,
    },
  })
  const client = startHelper('stream-client.ts', { fileLimit: 65_536 })
  const agent = new Agent({ keepAlive: true, maxSockets: 16 })
  let polls = 0
  let pollErrors = 0
  const pollStatus: Record<string, number> = {}
  try {
    const auth = { Authorization: `Bearer ${service.key}` }
    await waitFor('a live contest', async () => {
      const res = await rawRequest(`${service.url}/v1/contests/active?series=${SERIES}`, { headers: auth })
      return res.status === 200 ? true : undefined
    })
    const page = await rawRequest(`${service.url}/v1/contests?series=${SERIES}&limit=100`, { headers: auth })
    const ticker = (JSON.parse(page.body.toString()) as { contests: { ticker: string }[] }).contests[5]!
      .ticker
    const urls = [
      `/v1/contests/${ticker}`,
      `/v1/contests/active?series=${SERIES}`,
      `/v1/contests?series=${SERIES}&limit=100`,
    ]
    await client.next('ready')
    const opened = await client.ask<number>(
      {
        open: {
          url: service.url,
          path: `/v1/stream/contests?series=${SERIES}`,
          key: service.key,
          count: streamCount,
        } satisfies OpenOrder,
      },
      'opened',
    )
    await client.ask({ admit: true }, 'admitted')
    log(
      `soak: ${streamCount} streams open in ${Math.round(opened)} ms; polling ${pollRps} req/s for ${durationS} s (warm-up ${warmUpS} s)`,
    )

    const started = Date.now()
    const end = started + durationS * 1000
    let i = 0
    const poll = setInterval(
      () => {
        const path = urls[i % urls.length]!
        const hop = poolAddress(i++ % 200_000)
        polls++
        get(`${service.url}${path}`, { agent, headers: { ...auth, 'X-Forwarded-For': hop } }, (res) => {
          pollStatus[res.statusCode!] = (pollStatus[res.statusCode!] ?? 0) + 1
          res.resume()
        }).on('error', () => {
          pollErrors++
        })
      },
      Math.max(1, 1000 / Math.max(1, pollRps)),
    )
    while (Date.now() < end) {
      await sleep(Math.min(30_000, end - Date.now()))
      if (!service.alive()) throw new Error('the service exited during the soak')
      const last = samples(probe.file).at(-1)
      log(
        `  ${Math.round((Date.now() - started) / 1000)} s: RSS ${last ? (last.rssKiB / 1024).toFixed(1) : '?'} MiB, loop p99 ${last?.loopP99Ms.toFixed(1)} ms, polls ${polls}`,
      )
    }
    clearInterval(poll)
    await client.ask({ admit: false }, 'admitted')
    await sleep(2000)
    const report = await client.ask<ClientReport>({ report: true }, 'report')
    const all = samples(probe.file).filter((s) => s.at >= started)
    const after = all.filter((s) => s.at >= started + warmUpS * 1000)
    const mean = (xs: Sample[]) => xs.reduce((n, s) => n + s.rssKiB, 0) / Math.max(1, xs.length)
    const first = mean(after.filter((s) => s.at < after[0]!.at + 60_000))
    const last = mean(after.filter((s) => s.at > after.at(-1)!.at - 60_000))
    const growthPct = ((last - first) / first) * 100
    const loopP99Max = Math.max(...after.map((s) => s.loopP99Ms))
    const loopP99Median = after.map((s) => s.loopP99Ms).sort((a, b) => a - b)[Math.floor(after.length / 2)]!
    const events = report.receipts
    const missed = events.filter((r) => r.count < streamCount)
    const result = {
      date: new Date(started).toISOString(),
      machine: { cpus: os.cpus().length, node: process.version },
      settings: { durationS, warmUpS, streams: streamCount, pollRps, SIM_SPEED: 60 },
      polls,
      pollStatus,
      pollErrors,
      events: events.length,
      eventsMissedByAnyStream: missed.length,
      rssKiB: { afterWarmUp: Math.round(first), end: Math.round(last) },
      rssGrowthPct: growthPct,
      loopDelayP99Ms: { worstInterval: loopP99Max, medianInterval: loopP99Median },
      pass: growthPct < 10 && loopP99Max < 50 && missed.length === 0 && pollErrors === 0,
      samples: all,
    }
    mkdirSync(path.dirname(RESULTS_FILE), { recursive: true })
    writeFileSync(`${RESULTS_FILE}.tmp`, `${JSON.stringify(result, null, 2)}\n`)
    renameSync(`${RESULTS_FILE}.tmp`, RESULTS_FILE)
    process.stdout.write(
      [
        `soak: ${durationS} s at SIM_SPEED=60, ${streamCount} streams, ${pollRps} polls/s (${polls} polls: ${JSON.stringify(pollStatus)}, ${pollErrors} errors)`,
        `RSS after warm-up ${(first / 1024).toFixed(1)} MiB → end ${(last / 1024).toFixed(1)} MiB: growth ${growthPct.toFixed(1)}% (target < 10%)`,
        `event-loop delay p99: worst 5 s interval ${loopP99Max.toFixed(1)} ms, median interval ${loopP99Median.toFixed(1)} ms (target < 50 ms)`,
        `events streamed: ${events.length}, missed by any stream: ${missed.length}`,
        result.pass ? 'PASS' : 'FAIL',
        `written: ${path.relative(process.cwd(), RESULTS_FILE)}`,
        '',
      ].join('\n'),
    )
    if (!result.pass) process.exitCode = 1
  } finally {
    agent.destroy()
    client.stop()
    await service.stop()
    probe.remove()
  }
}

function samples(file: string): Sample[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Sample)
  } catch {
    return []
  }
}

process.on('exit', () => {
  killAllServices()
  killAllHelpers()
})
try {
  await main()
} catch (err) {
  log(`soak failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`)
  process.exitCode = 1
}
