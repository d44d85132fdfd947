// npm run bench:heap: what holds memory in proportion to the stored history. For each of
// BENCH_HEAP_DAYS (default 1,30) a fresh `serve` backfills that many simulated days, takes the same
// load (BENCH_HEAP_REQUESTS reads, default 3,000, over the hot URLs and contests by ticker), then a
// full GC, its RSS and live heap, and a heap snapshot summed by constructor (heap-snapshot.ts). Prints
// each store's biggest constructors and the ones that grew most from the first store to the last;
// writes bench/results/heap-by-history.json. Snapshots are kept under BENCH_HEAP_DIR when set;
// BENCH_HEAP_NODE_OPTIONS adds Node options to both services (V8 heap sizes, to compare).
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { type ConstructorTotal, totalsByConstructor } from './heap-snapshot.ts'
import { loadHistoryReads } from './history-load.ts'
import { runScript } from './script.ts'
import { type ProcMemory, readProcMemory, startBenchService } from './service.ts'

const days = (process.env.BENCH_HEAP_DAYS ?? '1,30').split(',').map(Number)
const requests = Number(process.env.BENCH_HEAP_REQUESTS ?? 3000)
const keepDir = process.env.BENCH_HEAP_DIR

type StoreFigure = {
  days: number
  /** VmRSS, RssAnon and RssFile (/proc) when ready, and after the load before any collection */
  ready: ProcMemory
  afterLoad: ProcMemory
  /** process.memoryUsage() after the load, before the probe's collection (MiB) */
  v8BeforeCollection: Record<string, number>
  /** after a full collection */
  rssMiB: number
  liveMiB: number
  top: ConstructorTotal[]
}
async function measure(backfillDays: number): Promise<StoreFigure> {
  const dir = keepDir ?? path.join(tmpdir(), `cs-heap-${process.pid}`)
  mkdirSync(dir, { recursive: true })
  const snapshot = path.join(dir, `serve-${backfillDays}d.heapsnapshot`)
  const service = await startBenchService({
    simSpeed: 1,
    backfillDays,
    memoryProbe: true,
    ...(process.env.BENCH_HEAP_NODE_OPTIONS ? { nodeOptions: process.env.BENCH_HEAP_NODE_OPTIONS } : {}),
    env: { BENCH_HEAP_SNAPSHOT_FILE: snapshot, TRUST_PROXY: '127.0.0.1' },
  })
  try {
    const ready = readProcMemory(service.pid)
    await loadHistoryReads(service, requests)
    const afterLoad = readProcMemory(service.pid)
    const memory = await service.memory()
    for (let waited = 0; !existsSync(snapshot); waited += 200) {
      if (waited > 120_000) throw new Error(`no heap snapshot written to ${snapshot}`)
      await sleep(200)
    }
    const top = totalsByConstructor(snapshot)
    if (keepDir === undefined) rmSync(snapshot, { force: true })
    return {
      days: backfillDays,
      ready,
      afterLoad,
      v8BeforeCollection: Object.fromEntries(
        Object.entries(memory.beforeCollection ?? {}).map(([k, v]) => [
          k,
          Math.round((v / 1024 / 1024) * 10) / 10,
        ]),
      ),
      rssMiB: (memory.rssKiB ?? 0) / 1024,
      liveMiB: (memory.liveKiB ?? 0) / 1024,
      top: top.slice(0, 60),
    }
  } finally {
    await service.stop()
  }
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(2)

runScript(async () => {
  const stores: StoreFigure[] = []
  for (const d of days) {
    const s = await measure(d)
    stores.push(s)
    const p = (m: ProcMemory) =>
      `${m.rssMiB.toFixed(1)} (anon ${m.anonMiB.toFixed(1)}, file ${m.fileMiB.toFixed(1)})`
    console.log(`${d} days: RSS MiB ready ${p(s.ready)}, after the load ${p(s.afterLoad)}`)
    console.log(`  V8 after the load, before a collection (MiB): ${JSON.stringify(s.v8BeforeCollection)}`)
    console.log(
      `  after a full collection: RSS ${s.rssMiB.toFixed(1)} MiB, live heap + external ${s.liveMiB.toFixed(1)} MiB`,
    )
    for (const t of s.top.slice(0, 12))
      console.log(
        `  ${t.name.slice(0, 40).padEnd(40)} ${String(t.count).padStart(9)} ${mib(t.bytes).padStart(9)} MiB`,
      )
  }
  const first = stores[0]!
  const last = stores.at(-1)!
  if (stores.length > 1) {
    const before = new Map(first.top.map((t) => [t.name, t.bytes]))
    const grown = last.top
      .map((t) => ({ ...t, grew: t.bytes - (before.get(t.name) ?? 0) }))
      .sort((a, b) => b.grew - a.grew)
    console.log(`grew most from ${first.days} to ${last.days} days:`)
    for (const t of grown.slice(0, 12))
      console.log(`  ${t.name.slice(0, 40).padEnd(40)} +${mib(t.grew).padStart(8)} MiB (${t.count} objects)`)
    console.log(
      `RSS ${last.days}/${first.days} days: ready ${(last.ready.rssMiB / first.ready.rssMiB).toFixed(2)}×, after the load ${(last.afterLoad.rssMiB / first.afterLoad.rssMiB).toFixed(2)}×, after a collection ${(last.rssMiB / first.rssMiB).toFixed(2)}×`,
    )
  }
  const out = path.join(import.meta.dirname, 'results', 'heap-by-history.json')
  writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), requests, stores }, null, 2))
})
