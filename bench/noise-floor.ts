// npm run bench:noise: the HTTP benchmark's own noise floor. Two identical bare servers answering the
// same bytes are measured exactly as `npm run bench` measures service against bare (the same load
// clients, connections, address pool and interleaving); every ratio between them should be 1, so
// how far the pairs stray from 1 is what the machine and the method add to any ratio. Each slice
// length in BENCH_NOISE_SLICES is tried in every round, so the methods meet the same machine.
//   BENCH_NOISE_SLICES=250,3000   slice lengths, ms (3000 = one whole 3 s run a side)
//   BENCH_NOISE_ROUNDS=7          pairs per slice length
import { HTTP_LOAD, interleaved, type Kind, loadReports, median, runOf } from './http-bench.ts'
import { startHelper } from './processes.ts'
import { runScript } from './script.ts'

const RUN_S = 3
/** About a settled contest's size, as the service sends it. */
const BODY = Buffer.from(JSON.stringify({ contest: 'x'.repeat(3100) }))

const slices = (process.env.BENCH_NOISE_SLICES ?? '250,3000').split(',').map(Number)
const rounds = Number(process.env.BENCH_NOISE_ROUNDS ?? 7)
if (slices.some((s) => !Number.isInteger(s) || s < 50 || s > RUN_S * 1000) || !(rounds >= 1))
  throw new Error(`BENCH_NOISE_SLICES must be whole ms from 50 to ${RUN_S * 1000}; BENCH_NOISE_ROUNDS ≥ 1`)

async function main(): Promise<void> {
  const servers = [startHelper('bare-server.ts'), startHelper('bare-server.ts')]
  const clients = Array.from({ length: HTTP_LOAD.clientProcesses }, () => startHelper('load-client.ts'))
  const ports = await Promise.all(servers.map((s) => s.next<number>('port')))
  await Promise.all(clients.map((c) => c.next('ready')))
  const replay = {
    status: 200,
    // Content-Length as the service sends it: without it node:http would chunk the body.
    headers: [
      ['content-type', 'application/json; charset=utf-8'],
      ['content-length', String(BODY.length)],
    ] as [string, string][],
    bodyBase64: BODY.toString('base64'),
  }
  await Promise.all(servers.map((s) => s.ask({ replay }, 'ready')))
  const kind: Kind = {
    name: 'a/a',
    path: '/v1/x',
    method: 'GET',
    headers: async () => ({}),
    expectStatus: 200,
  }
  const urls = ports.map((p) => `http://127.0.0.1:${p}`)
  const ratios = new Map<number, number[]>(slices.map((s) => [s, []]))
  for (let r = 0; r < rounds; r++) {
    for (const slice of slices) {
      const reports = await loadReports(
        clients,
        urls,
        kind,
        {},
        {
          ...HTTP_LOAD,
          slicing: interleaved(RUN_S, slice, (r % 2) as 0 | 1),
        },
      )
      const [a, b] = [runOf(reports, 0, kind), runOf(reports, 1, kind)]
      if (a.unexpected + b.unexpected > 0) throw new Error('unexpected answers from a bare server')
      ratios.get(slice)!.push(a.reqPerSec / b.reqPerSec)
      process.stdout.write(
        `round ${r + 1}  ${String(slice).padStart(5)} ms slices  A ${Math.round(a.reqPerSec)} req/s  B ${Math.round(b.reqPerSec)} req/s  A/B ${(a.reqPerSec / b.reqPerSec).toFixed(3)}\n`,
      )
    }
  }
  process.stdout.write('\nA/B between identical servers (1 is exact):\n')
  for (const [slice, xs] of ratios) {
    const s = [...xs].sort((x, y) => x - y)
    process.stdout.write(
      `  ${String(slice).padStart(5)} ms slices: median ${median(s).toFixed(3)}, range ${s[0]!.toFixed(3)}–${s.at(-1)!.toFixed(3)} over ${s.length} pairs\n`,
    )
  }
  for (const s of [...servers, ...clients]) s.stop()
}

runScript(main)
