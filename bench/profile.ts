// npm run bench:profile: a CPU profile (--cpu-prof) of the service under load on one URL, summarised
// as microseconds of CPU per request by where the time goes (Fastify, its plugins, pino, this
// project's modules, Node's HTTP and sockets, GC). Used to attribute the gap to the bare server.
//   BENCH_PROFILE_KIND=settled|active|history|401  (default settled)
//   BENCH_PROFILE_S=10                              seconds of load
//   BENCH_PROFILE_SRC=path/to/src                   profile another tree's src/ (e.g. main's, for "before")
//   BENCH_PROFILE_CONFIG=warn|defaults              the service's configuration, as `npm run bench` has them
//                                                   (default warn; defaults: the access log to a file)
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createWireClient } from '../test/support/wire-client.ts'
import { readProfile, selfTimes } from './cpu-profile.ts'
import { HTTP_CONFIGURATIONS, HTTP_SERVICE_ENV } from './http-bench.ts'
import { type LoadOrder, type LoadReport, singleRun } from './load-client.ts'
import { killAllHelpers, startHelper } from './processes.ts'
import { killAllServices, startBenchService } from './service.ts'

const kind = process.env.BENCH_PROFILE_KIND ?? 'settled'
const seconds = Number(process.env.BENCH_PROFILE_S ?? 10)
const src = process.env.BENCH_PROFILE_SRC
const configName = process.env.BENCH_PROFILE_CONFIG ?? 'warn'
const config = HTTP_CONFIGURATIONS[configName === 'defaults' ? 0 : 1]!

async function main(): Promise<void> {
  const profDir = mkdtempSync(path.join(tmpdir(), 'cs-prof-'))
  const service = await startBenchService({
    simSpeed: 1,
    backfillDays: 7,
    env: { ...HTTP_SERVICE_ENV, ...config.env, NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profDir}` },
    logToFile: config.logToFile,
    ...(src ? { cli: path.resolve(src, 'cli/main.ts') } : {}),
  })
  const clients = [startHelper('load-client.ts'), startHelper('load-client.ts')]
  try {
    await Promise.all(clients.map((c) => c.next('ready')))
    const auth = { Authorization: `Bearer ${service.key}` }
    const wire = createWireClient(Number(new URL(service.url).port))
    const page = await wire.send('GET', '/v1/contests?series=KXBTC15M&limit=100', auth)
    wire.close()
    const ticker = (JSON.parse(page.body.toString()) as { contests: { ticker: string }[] }).contests[1]!
      .ticker
    const paths: Record<string, [string, Record<string, string>]> = {
      settled: [`/v1/contests/${ticker}`, auth],
      active: ['/v1/contests/active?series=KXBTC15M', auth],
      history: ['/v1/contests?series=KXBTC15M&limit=100', auth],
      '401': [
        '/v1/contests/active?series=KXBTC15M',
        { Authorization: 'Bearer cs_benchNotAKeyOfThisDeployment' },
      ],
    }
    const [p, headers] = paths[kind] ?? paths.settled!
    const order = (durationS: number, i: number): LoadOrder =>
      singleRun({
        url: service.url,
        path: p,
        method: 'GET',
        headers,
        connections: 32,
        durationS,
        forwardedPool: 100_000,
        poolOffset: i * 100_000,
      })
    await Promise.all(clients.map((c, i) => c.ask<LoadReport>({ run: order(3, i) }, 'done')))
    const reports = await Promise.all(
      clients.map((c, i) => c.ask<LoadReport>({ run: order(seconds, i) }, 'done')),
    )
    const requests = reports.reduce((n, r) => n + r.servers[0]!.responses, 0)
    const loadEnded = performance.now()
    await service.stop()
    const tail = (performance.now() - loadEnded) * 1000
    // Only the measured run: from its start to its end, counted back from the profile's end.
    const selfUs = selfTimes(readProfile(profDir), { endBeforeEndUs: tail, lengthUs: seconds * 1e6 })
    const rows = [...selfUs].sort((a, b) => b[1] - a[1])
    const busy = rows.reduce((n, [, us]) => n + us, 0)
    process.stdout.write(
      `${kind}, ${config.name}: ${requests} requests in ${seconds} s (${Math.round(requests / seconds)} req/s)${src ? `, src=${src}` : ''}\n` +
        `CPU per request: ${(busy / requests).toFixed(1)} µs (self time of non-idle samples in the measured run ÷ requests)\n`,
    )
    for (const [cat, us] of rows.slice(0, 25)) {
      process.stdout.write(`  ${(us / requests).toFixed(2).padStart(7)} µs  ${cat}\n`)
    }
  } finally {
    for (const c of clients) c.stop()
    await service.stop()
    rmSync(profDir, { recursive: true, force: true })
  }
}

process.on('exit', () => {
  killAllServices()
  killAllHelpers()
})
await main()
