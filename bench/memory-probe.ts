// Preloaded into the benchmarked service (NODE_OPTIONS=--expose-gc --import): on SIGUSR2 it runs a
// full garbage collection and writes process.memoryUsage() to BENCH_MEMORY_FILE, so the benchmark can
// tell memory that is live from memory that is merely committed. The service's own code is unchanged;
// nothing in it listens for SIGUSR2.
import { renameSync, writeFileSync } from 'node:fs'

const file = process.env.BENCH_MEMORY_FILE
const collect = (globalThis as { gc?: () => void }).gc
if (file && collect) {
  process.on('SIGUSR2', () => {
    // The second collection frees what the first only made unreachable (weak references, finalizers).
    collect()
    collect()
    writeFileSync(`${file}.tmp`, JSON.stringify(process.memoryUsage()))
    renameSync(`${file}.tmp`, file)
  })
}
