// One replay in its own process, for bench/replay.ts: a fresh SQLite store, the tape given, and one
// JSON line on stdout with the summary, wall and CPU time and the process's peak RSS.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { runReplay } from '../src/main/replay.ts'
import { systemClock } from '../src/main/system-clock.ts'
import { createReadingModel, DEFAULT_MODEL } from '../src/model/models.ts'
import type { Logger } from '../src/ports/logger.ts'
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts'

const tape = process.argv[2]
if (!tape) throw new Error('usage: replay-run.ts TAPE')
const dir = mkdtempSync(path.join(tmpdir(), 'cs-bench-replay-'))
const quiet: Logger = { info() {}, warn() {}, error() {}, debug() {} }
const store = createSqliteStore(path.join(dir, 'replay.db'))
await store.migrate()
const cpu0 = process.cpuUsage()
const summary = await runReplay({
  tapePath: tape,
  store,
  logger: quiet,
  spotMaxAgeMs: 10_000,
  model: createReadingModel(DEFAULT_MODEL),
  readingMaxLateMs: 10_000,
  wallClock: systemClock,
})
const cpu = process.cpuUsage(cpu0)
// what the replay still holds at the end (run with --expose-gc): flat when it streams
;(globalThis as { gc?: () => void }).gc?.()
const liveHeapMiB = process.memoryUsage().heapUsed / 2 ** 20
await store.close()
rmSync(dir, { recursive: true, force: true })
process.stdout.write(
  `${JSON.stringify({
    summary,
    wallMs: summary.wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    maxRssMiB: process.resourceUsage().maxRSS / 1024,
    liveHeapMiB,
  })}\n`,
)
