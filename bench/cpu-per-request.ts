// npm run bench:cpu: CPU time per request of the service and of the bare server, each side's own user
// and system time from /proc (Linux), in interleaved runs under the same load as `npm run bench`.
// Where `npm run bench` says how much slower the service is, this says on which side of the system
// call line the difference lies (BENCHMARKS.md, "CPU per request"). Both move with the machine and
// from one service instance to the next (a few µs); compare figures from one run, never across runs.
// Softirq time (loopback delivery) belongs to no process and is printed apart.
//   BENCH_CPU_KIND=settled|active|history   (default settled)
//   BENCH_CPU_CONFIG=defaults|warn          the service's configuration (default defaults)
//   BENCH_CPU_ROUNDS=5  BENCH_CPU_S=3        interleaved pairs, seconds of each run
import { readFileSync } from 'node:fs'
import {
  capture,
  discoverTicker,
  HTTP_CONFIGURATIONS,
  HTTP_LOAD,
  HTTP_SERVICE_ENV,
  KIND_NAMES,
  kinds,
  loadReports,
  runOf,
  wholeRun,
} from './http-bench.ts'

import { startHelper } from './processes.ts'
import { runScript } from './script.ts'
import { startBenchService } from './service.ts'

const SERIES = 'KXBTC15M'
/** Linux reports process CPU time in ticks of 10 ms (USER_HZ 100). */
const US_PER_TICK = 10_000

type Side = { rps: number; userUs: number; sysUs: number; softirqUs: number }

function processTicks(pid: number): { user: number; sys: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return { user: Number(fields[11]), sys: Number(fields[12]) }
}

function softirqTicks(): number {
  return Number(readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/)[7])
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

async function main(): Promise<void> {
  const kindName = KIND_NAMES[process.env.BENCH_CPU_KIND ?? 'settled']
  if (kindName === undefined) throw new Error('BENCH_CPU_KIND must be settled, active or history')
  const configName = process.env.BENCH_CPU_CONFIG ?? 'defaults'
  const config = HTTP_CONFIGURATIONS[configName === 'warn' ? 1 : 0]
  if (config === undefined || (configName !== 'defaults' && configName !== 'warn'))
    throw new Error('BENCH_CPU_CONFIG must be defaults or warn')
  const rounds = Number(process.env.BENCH_CPU_ROUNDS ?? 5)
  const seconds = Number(process.env.BENCH_CPU_S ?? 3)
  if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(seconds) || seconds < 1)
    throw new Error('BENCH_CPU_ROUNDS and BENCH_CPU_S must be whole numbers from 1')

  const service = await startBenchService({
    simSpeed: 1,
    backfillDays: 7,
    env: { ...HTTP_SERVICE_ENV, ...config.env },
    logToFile: config.logToFile,
  })
  const bare = startHelper('bare-server.ts')
  const clients = Array.from({ length: HTTP_LOAD.clientProcesses }, () => startHelper('load-client.ts'))
  try {
    const barePort = await bare.next<number>('port')
    await Promise.all(clients.map((c) => c.next('ready')))
    const kind = kinds(SERIES, await discoverTicker(service, SERIES)).find((k) => k.name === kindName)!
    const headers = await kind.headers(service)
    await bare.ask({ replay: await capture(service, kind.path, headers) }, 'ready')
    const bareUrl = `http://127.0.0.1:${barePort}`

    async function run(url: string, pid: number): Promise<Side> {
      const before = processTicks(pid)
      const softBefore = softirqTicks()
      const reports = await loadReports(clients, [url], kind, headers, {
        ...HTTP_LOAD,
        slicing: wholeRun(seconds),
      })
      const after = processTicks(pid)
      const { responses, reqPerSec } = runOf(reports, 0, kind)
      const per = (ticks: number) => (ticks * US_PER_TICK) / responses
      return {
        rps: reqPerSec,
        userUs: per(after.user - before.user),
        sysUs: per(after.sys - before.sys),
        softirqUs: per(softirqTicks() - softBefore),
      }
    }

    const fmt = (s: Side) =>
      `${String(Math.round(s.rps)).padStart(6)} req/s  user ${s.userUs.toFixed(1).padStart(5)} µs  sys ${s.sysUs.toFixed(1).padStart(5)} µs  softirq ${s.softirqUs.toFixed(1).padStart(5)} µs`
    process.stderr.write(`${kind.name}, ${config.name}: warming up\n`)
    await run(service.url, service.pid)
    await run(bareUrl, bare.pid)
    const pairs: { svc: Side; bare: Side }[] = []
    for (let r = 0; r < rounds; r++) {
      // Alternate which side goes first, as `npm run bench` does.
      const first = r % 2 === 0
      const a = first ? await run(service.url, service.pid) : await run(bareUrl, bare.pid)
      const b = first ? await run(bareUrl, bare.pid) : await run(service.url, service.pid)
      const pair = first ? { svc: a, bare: b } : { svc: b, bare: a }
      pairs.push(pair)
      process.stdout.write(`round ${r + 1}  service ${fmt(pair.svc)}\n         bare    ${fmt(pair.bare)}\n`)
    }
    const m = (pick: (p: { svc: Side; bare: Side }) => number) => median(pairs.map(pick)).toFixed(1)
    process.stdout.write(
      `\nmedians over ${rounds} pairs (${kind.name}, ${config.name}):\n` +
        `  service  user ${m((p) => p.svc.userUs)} µs  sys ${m((p) => p.svc.sysUs)} µs  per request\n` +
        `  bare     user ${m((p) => p.bare.userUs)} µs  sys ${m((p) => p.bare.sysUs)} µs  per request\n` +
        `  throughput ratio ${median(pairs.map((p) => p.svc.rps / p.bare.rps)).toFixed(2)}\n`,
    )
  } finally {
    bare.stop()
    for (const c of clients) c.stop()
    await service.stop()
  }
}

runScript(main)
