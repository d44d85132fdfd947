// Preloaded into the benchmarked service (NODE_OPTIONS=--expose-gc --import): on SIGUSR2 it runs a
// full garbage collection and writes process.memoryUsage() to BENCH_MEMORY_FILE, so the benchmark can
// tell memory that is live from memory that is merely committed. With BENCH_HEAP_SNAPSHOT_FILE it
// also writes a heap snapshot there (bench/heap-by-history.ts). The service's own code is unchanged;
// nothing in it listens for SIGUSR2.
import { renameSync, writeFileSync } from 'node:fs'
import { writeHeapSnapshot } from 'node:v8'

const file = process.env.BENCH_MEMORY_FILE
const snapshotFile = process.env.BENCH_HEAP_SNAPSHOT_FILE
const collect = (globalThis as { gc?: () => void }).gc
if (file && collect) {
  process.on('SIGUSR2', () => {
    const beforeCollection = process.memoryUsage()
    // The second collection frees what the first only made unreachable (weak references, finalizers).
    collect()
    collect()
    const usage = { ...process.memoryUsage(), beforeCollection }
    writeFileSync(`${file}.tmp`, JSON.stringify(usage))
    renameSync(`${file}.tmp`, file)
    // After the reading, which it would skew; renamed into place once whole.
    if (snapshotFile) renameSync(writeHeapSnapshot(`${snapshotFile}.tmp`), snapshotFile)
  })
}
