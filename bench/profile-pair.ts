// npm run bench:profile-pair: CPU profiles (--cpu-prof) of the service and of the bare server taken
// at once, under the same load in the same 250 ms slices as `npm run bench`, so both meet the same
// machine; printed side by side as µs of self time per answer, by where it goes, largest
// difference first. Where `npm run bench` says how far the service is from bare, this says of what.
//   BENCH_PROFILE_KIND=settled|active|history   (default settled)
//   BENCH_PROFILE_CONFIG=defaults|warn          (default defaults: the access log to a file)
//   BENCH_PROFILE_S=10                          seconds a side of load
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { readProfile, selfTimes } from './cpu-profile.ts'
import {
  capture,
  discoverTicker,
  HTTP_CONFIGURATIONS,
  HTTP_LOAD,
  HTTP_SERVICE_ENV,
  interleaved,
  KIND_NAMES,
  kinds,
  loadReports,
  runOf,
} from './http-bench.ts'
import { startHelper } from './processes.ts'
import { runScript } from './script.ts'
import { startBenchService } from './service.ts'

const SLICE_MS = 250
const WARM_UP_S = 3

async function main(): Promise<void> {
  const kindName = KIND_NAMES[process.env.BENCH_PROFILE_KIND ?? 'settled']
  if (kindName === undefined) throw new Error('BENCH_PROFILE_KIND must be settled, active or history')
  const config = HTTP_CONFIGURATIONS[process.env.BENCH_PROFILE_CONFIG === 'warn' ? 1 : 0]!
  const seconds = Number(process.env.BENCH_PROFILE_S ?? 10)
  if (!Number.isInteger(seconds) || seconds < 1)
    throw new Error('BENCH_PROFILE_S must be a whole number from 1')

  const serviceDir = mkdtempSync(path.join(tmpdir(), 'cs-prof-service-'))
  const bareDir = mkdtempSync(path.join(tmpdir(), 'cs-prof-bare-'))
  const prof = (dir: string) => ({ NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir}` })
  const service = await startBenchService({
    simSpeed: 1,
    backfillDays: 7,
    env: { ...HTTP_SERVICE_ENV, ...config.env, ...prof(serviceDir) },
    logToFile: config.logToFile,
  })
  const bare = startHelper('bare-server.ts', { env: prof(bareDir) })
  const clients = Array.from({ length: HTTP_LOAD.clientProcesses }, () => startHelper('load-client.ts'))
  try {
    const barePort = await bare.next<number>('port')
    await Promise.all(clients.map((c) => c.next('ready')))
    const kind = kinds('KXBTC15M', await discoverTicker(service, 'KXBTC15M')).find(
      (k) => k.name === kindName,
    )!
    const headers = await kind.headers(service)
    await bare.ask({ replay: await capture(service, kind.path, headers) }, 'ready')
    const urls = [service.url, `http://127.0.0.1:${barePort}`]
    const load = (s: number) =>
      loadReports(clients, urls, kind, headers, { ...HTTP_LOAD, slicing: interleaved(s, SLICE_MS, 0) })
    await load(WARM_UP_S)
    const began = performance.now()
    const reports = await load(seconds)
    const ended = performance.now()
    const [svc, base] = [runOf(reports, 0, kind), runOf(reports, 1, kind)]
    // Each process writes its profile as it exits; the window is counted back from there.
    const bareExited = bare.leave()
    await service.stop()
    const serviceTailUs = (performance.now() - ended) * 1000
    const bareTailUs = ((await bareExited) - ended) * 1000
    const windowUs = (ended - began) * 1000
    const per = (self: Map<string, number>, answers: number) =>
      new Map([...self].map(([k, us]) => [k, us / answers]))
    const a = per(
      selfTimes(readProfile(serviceDir), { endBeforeEndUs: serviceTailUs, lengthUs: windowUs }, true),
      svc.responses,
    )
    const b = per(
      selfTimes(readProfile(bareDir), { endBeforeEndUs: bareTailUs, lengthUs: windowUs }, true),
      base.responses,
    )
    const total = (m: Map<string, number>) => [...m.values()].reduce((n, us) => n + us, 0)
    const diff = (k: string) => (a.get(k) ?? 0) - (b.get(k) ?? 0)
    const rows = [...new Set([...a.keys(), ...b.keys()])].sort((x, y) => diff(y) - diff(x))
    process.stdout.write(
      `${kind.name}, ${config.name}: service ${Math.round(svc.reqPerSec)} req/s, bare ${Math.round(base.reqPerSec)} req/s, ratio ${(svc.reqPerSec / base.reqPerSec).toFixed(3)}\n` +
        `µs of self time per answer in the measured ${seconds} s a side: service ${total(a).toFixed(2)}, bare ${total(b).toFixed(2)}\n\n` +
        `service     bare     diff  where\n`,
    )
    for (const k of rows.slice(0, 40))
      process.stdout.write(
        `${(a.get(k) ?? 0).toFixed(2).padStart(7)}  ${(b.get(k) ?? 0).toFixed(2).padStart(7)}  ${diff(k).toFixed(2).padStart(7)}  ${k}\n`,
      )
  } finally {
    for (const c of clients) c.stop()
    bare.stop()
    await service.stop()
    rmSync(serviceDir, { recursive: true, force: true })
    rmSync(bareDir, { recursive: true, force: true })
  }
}

runScript(main)
