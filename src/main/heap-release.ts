// Handing the heap back after the backfill (issue 32). Backfilling simulated history allocates
// fast for as long as it runs, and V8 grows its heap to match (new space to its largest, the old
// generation's limit with it) and keeps it once the burst is over: measured with bench:heap, a
// 30-day serve held 1.5× the RSS of a 1-day one after the same load, though their live heaps (after
// a full collection) were within 3 %. The backfill is over for good when it returns, so one full
// collection of V8's "last resort" kind (the one it runs under memory pressure: it compacts and
// gives empty pages and new space back) then makes memory independent of how much history was
// generated. Node has no API for it but V8's gc extension, which this exposes once.
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

type Collect = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void

let collect: Collect | null | undefined

function collector(): Collect | null {
  if (collect === undefined) {
    try {
      // Exposes `gc` to contexts created from now on only: the application's own globals stay as they are.
      setFlagsFromString('--expose-gc')
      const found: unknown = runInNewContext('typeof gc === "function" ? gc : null')
      collect = typeof found === 'function' ? (found as Collect) : null
    } catch {
      collect = null
    }
  }
  return collect
}

/** What a release did, in MiB; null when this runtime offers no way to collect. */
export type HeapRelease = { rssBeforeMiB: number; rssAfterMiB: number; heapTotalAfterMiB: number; ms: number }

/** One full, compacting collection that returns what the heap no longer needs to the system. */
export function releaseHeap(): HeapRelease | null {
  const gc = collector()
  if (gc === null) return null
  const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10
  const before = process.memoryUsage.rss()
  const started = performance.now()
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' })
  const after = process.memoryUsage()
  return {
    rssBeforeMiB: mib(before),
    rssAfterMiB: mib(after.rss),
    heapTotalAfterMiB: mib(after.heapTotal),
    ms: Math.round(performance.now() - started),
  }
}
