// node snapdrive.ts service|bare N : snapshot at 0 and N streams
import { fork } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { get, type ClientRequest } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
const [side, nArg] = process.argv.slice(2)
const N = Number(nArg)
const dir = process.env.SNAP_DIR!
const NODE_OPTIONS = `--expose-gc --import file:///tmp/i18s/snap.mjs`
let url: string, key: string | null, path: string, pid: number, stop: () => Promise<void>
const root = '/work/i18s/'
if (side === 'service') {
  const { startBenchService } = await import(root + 'bench/service.ts')
  const svc = await startBenchService({ simSpeed: 60, backfillDays: 7, fileLimit: 65536, env: { STREAM_MAX_PER_ADDRESS: '1000000', NODE_OPTIONS, SNAP_DIR: dir } })
  url = svc.url; key = svc.key; path = '/v1/stream/contests?series=KXBTC15M'; pid = svc.pid; stop = svc.stop
} else {
  const child = fork(root + 'bench/bare-broadcaster.ts', [], { env: { ...process.env, NODE_OPTIONS, SNAP_DIR: dir }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const port = await new Promise<number>((r) => child.on('message', (m: any) => m.port && r(m.port)))
  child.send({ frameBytes: 700 })
  url = `http://127.0.0.1:${port}`; key = null; path = '/stream'; pid = child.pid!; stop = async () => { child.kill() }
}
const count = () => readdirSync(dir).filter((f) => f.startsWith(`${pid}-`)).length
async function snap() { const before = count(); process.kill(pid, 'SIGUSR2'); while (count() === before) await sleep(200); await sleep(3000) }
await sleep(3000)
await snap()
const streams: ClientRequest[] = []
for (let i = 0; i < N; i += 50) {
  await Promise.all(Array.from({ length: Math.min(50, N - i) }, () => new Promise<void>((resolve, reject) => {
    const headers: Record<string, string> = { Accept: 'text/event-stream' }
    if (key) headers.Authorization = `Bearer ${key}`
    const req = get(new URL(path, url), { agent: false, headers }, (res) => { res.on('data', () => {}); resolve() })
    req.on('error', reject); streams.push(req)
  })))
}
await sleep(2000)
await snap()
console.log(`pid ${pid}`)
for (const s of streams) s.destroy()
await stop()
process.exit(0)
