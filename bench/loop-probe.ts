// Preloaded into the soaked service only (NODE_OPTIONS=--import): every BENCH_SOAK_EVERY_MS it appends
// one JSON line to BENCH_SOAK_FILE with the process's memory and the event-loop delay percentiles of
// the interval just ended (perf_hooks' monitorEventLoopDelay, 1 ms resolution: a figure includes that 1 ms). The service's own
// code is unchanged.
import { appendFileSync } from 'node:fs'
import { monitorEventLoopDelay } from 'node:perf_hooks'

const file = process.env.BENCH_SOAK_FILE
const every = Number(process.env.BENCH_SOAK_EVERY_MS ?? 5000)
if (file) {
  const delay = monitorEventLoopDelay({ resolution: 1 })
  delay.enable()
  setInterval(() => {
    const m = process.memoryUsage()
    appendFileSync(
      file,
      `${JSON.stringify({
        at: Date.now(),
        rssKiB: Math.round(m.rss / 1024),
        heapUsedKiB: Math.round(m.heapUsed / 1024),
        externalKiB: Math.round(m.external / 1024),
        loopP50Ms: delay.percentile(50) / 1e6,
        loopP99Ms: delay.percentile(99) / 1e6,
        loopMaxMs: delay.max / 1e6,
      })}\n`,
    )
    delay.reset()
  }, every).unref()
}
