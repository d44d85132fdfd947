// Starts the real `contest-signals serve` as a child process on a temp SQLite file, the way an operator
// does, and stops it again. Every process started here is tracked so a failing run never leaves one behind.
import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync, statSync, truncateSync } from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { pathToFileURL } from 'node:url'
import { startProcess, tempDir } from '../test/support/service-process.ts'
import { waitFor } from '../test/support/wait.ts'

export type BenchService = {
  url: string
  key: string
  pid: number
  /** VmRSS; with `memoryProbe`, read after a full garbage collection, with the live heap (memory-probe.ts) */
  memory(): Promise<MemoryReading>
  /** false once the process has exited */
  alive(): boolean
  /** JSON log lines at warn level or above printed so far */
  warnings(): string[]
  /** with `logToFile`: empties the log file (its warnings are kept) and returns the bytes it held */
  rotateLog(): number
  /** everything printed on stdout so far (the banner, with the key, and the JSON log lines) */
  stdout(): string
  stop(): Promise<void>
}

export type MemoryReading = {
  /** VmRSS from /proc (Linux), null elsewhere */
  rssKiB: number | null
  /** heapUsed + external (array buffers included) after the collection, null if the probe did not answer */
  liveKiB: number | null
  /** process.memoryUsage() just before the probe's collection (bytes), when the probe answered */
  beforeCollection?: Record<string, number>
}

export type BenchServiceOptions = {
  simSpeed: number
  backfillDays: number
  /** preload memory-probe.ts so memory() can force a GC and read the live heap (stream rounds only) */
  memoryProbe?: boolean
  /** extra environment (TRUST_PROXY for the HTTP rounds) */
  env?: Record<string, string>
  /** raise `ulimit -n` to this before starting (streams: one descriptor each) */
  fileLimit?: number
  /** another tree's src/cli/main.ts (bench/profile.ts, to profile main's code) */
  cli?: string
  /** stdout, the access log included, appended to a file (as a log collector would take it) */
  logToFile?: boolean
  /** more Node options (NODE_OPTIONS), e.g. V8's heap sizes (bench:heap's BENCH_HEAP_NODE_OPTIONS) */
  nodeOptions?: string
}

/**
 * The limiter runs on every request but never refuses: config caps both settings at 1,000,000, which a
 * 2-core machine cannot drain within a run.
 */
export const RATE_LIMIT_NEVER_REFUSES = { RATE_LIMIT_BURST: '1000000', RATE_LIMIT_PER_SEC: '1000000' }

const MEMORY_PROBE = path.join(import.meta.dirname, 'memory-probe.ts')

const running = new Set<{ kill(): void }>()

export async function startBenchService(opts: BenchServiceOptions): Promise<BenchService> {
  const dir = tempDir('cs-bench-')
  const memoryFile = path.join(dir.dir, 'memory.json')
  const keyFile = path.join(dir.dir, 'bootstrap-key.txt')
  const logFile = opts.logToFile ? path.join(dir.dir, 'stdout.log') : undefined
  const keptWarnings: string[] = []
  const env = {
    DATABASE_URL: `sqlite:${path.join(dir.dir, 'bench.db')}`,
    BOOTSTRAP_KEY_FILE: keyFile,
    HOST: '127.0.0.1',
    PORT: '0',
    SIM_BACKFILL_DAYS: String(opts.backfillDays),
    SIM_SEED: '1',
    SIM_SPEED: String(opts.simSpeed),
    LOG_LEVEL: 'warn',
    ...RATE_LIMIT_NEVER_REFUSES,
    ...opts.env,
    ...(opts.memoryProbe
      ? {
          NODE_OPTIONS:
            `--expose-gc --import ${pathToFileURL(MEMORY_PROBE).href} ${opts.nodeOptions ?? ''}`.trim(),
          BENCH_MEMORY_FILE: memoryFile,
        }
      : opts.nodeOptions
        ? { NODE_OPTIONS: opts.nodeOptions }
        : {}),
  }
  const proc = startProcess(['serve'], env, {
    ...(opts.fileLimit === undefined ? {} : { fileLimit: opts.fileLimit }),
    ...(opts.cli === undefined ? {} : { cli: opts.cli }),
    ...(logFile === undefined ? {} : { stdoutFile: logFile }),
  })
  const handle = {
    kill: () => {
      proc.child.kill('SIGKILL')
      dir.remove()
    },
  }
  running.add(handle)
  let stopped = false
  const stop = async (): Promise<void> => {
    if (stopped) return
    stopped = true
    // A clean shutdown takes well under a second; one that hangs must not hang the benchmark.
    const force = setTimeout(() => proc.child.kill('SIGKILL'), 10_000)
    await proc.kill('SIGTERM')
    clearTimeout(force)
    running.delete(handle)
    dir.remove()
  }
  try {
    const died = proc.exited.then(({ code, signal }): never => {
      throw new Error(`service exited (${code ?? signal}) during start-up: ${proc.stderr() || proc.stdout()}`)
    })
    died.catch(() => undefined)
    void proc.exited.then(({ code, signal }) => {
      if (stopped) return
      // Its stderr and JSON log lines; the rest of stdout is the banner, key included.
      const logs = proc
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('{'))
      const tail = [...proc.stderr().trim().split('\n'), ...logs].filter(Boolean).slice(-20).join('\n')
      process.stderr.write(`service ${proc.child.pid} exited unexpectedly (${code ?? signal})\n${tail}\n`)
    })
    const banner = await Promise.race([
      waitFor(
        'the bootstrap key file',
        () => {
          // The first start writes the key, with curl examples naming the URL, to this file at any
          // LOG_LEVEL (the log line naming the file is info, which warn leaves out).
          let text: string
          try {
            text = readFileSync(keyFile, 'utf8')
          } catch {
            return undefined
          }
          const key = /^\s+(cs_[A-Za-z0-9_-]+)\s*$/m.exec(text)?.[1]
          const url = /"(http:\/\/127\.0\.0\.1:\d+)\/v1\/stream\/contests/.exec(text)?.[1]
          return key && url ? { key, url } : undefined
        },
        180_000,
      ),
      died,
    ])
    const pid = proc.child.pid
    if (pid === undefined) throw new Error('service has no pid')
    return {
      ...banner,
      pid,
      memory: async () =>
        opts.memoryProbe ? readMemory(pid, memoryFile) : { rssKiB: readRssKiB(pid), liveKiB: null },
      alive: () => proc.child.exitCode === null && proc.child.signalCode === null,
      warnings: () =>
        logFile === undefined
          ? proc.stdout().split('\n').filter(isWarning)
          : [...keptWarnings, ...warningsIn(logFile)],
      rotateLog: () => {
        if (logFile === undefined) return 0
        keptWarnings.push(...warningsIn(logFile))
        const bytes = statSync(logFile).size
        // The service appends (O_APPEND), so it goes on writing at the new end.
        truncateSync(logFile, 0)
        return bytes
      },
      stdout: () => proc.stdout(),
      stop,
    }
  } catch (err) {
    await stop()
    throw err
  }
}

/** A temp file for memory-probe.ts's readings (the bare broadcaster's). */
export function tempMemoryFile(): { file: string; remove(): void } {
  const dir = tempDir('cs-bench-mem-')
  return { file: path.join(dir.dir, 'memory.json'), remove: dir.remove }
}

/** Last resort on the way out: SIGKILL whatever is still running and drop its files (synchronous, for process 'exit'). */
export function killAllServices(): void {
  for (const handle of running) handle.kill()
  running.clear()
}

export async function readMemory(pid: number, file: string): Promise<MemoryReading> {
  rmSync(file, { force: true })
  try {
    process.kill(pid, 'SIGUSR2')
  } catch {
    return { rssKiB: null, liveKiB: null } // the service is gone; the caller finds out from alive()
  }
  let liveKiB: number | null = null
  let beforeCollection: Record<string, number> | undefined
  for (let waited = 0; waited < 5000 && liveKiB === null; waited += 20) {
    await sleep(20)
    try {
      const usage = JSON.parse(readFileSync(file, 'utf8')) as {
        heapUsed: number
        external: number
        beforeCollection?: Record<string, number>
      }
      liveKiB = (usage.heapUsed + usage.external) / 1024
      beforeCollection = usage.beforeCollection
    } catch {
      // not written yet
    }
  }
  return { rssKiB: readRssKiB(pid), liveKiB, ...(beforeCollection ? { beforeCollection } : {}) }
}

/** VmRSS and its anonymous and file-backed parts (/proc), in MiB; zeros off Linux. */
export type ProcMemory = { rssMiB: number; anonMiB: number; fileMiB: number }

export function readProcMemory(pid: number): ProcMemory {
  let status = ''
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8')
  } catch {
    // not Linux, or the process is gone
  }
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0)
  return { rssMiB: kib('VmRSS') / 1024, anonMiB: kib('RssAnon') / 1024, fileMiB: kib('RssFile') / 1024 }
}

function readRssKiB(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) : null
  } catch {
    return null
  }
}

function isWarning(line: string): boolean {
  if (!line.startsWith('{')) return false
  try {
    return ((JSON.parse(line) as { level?: number }).level ?? 0) >= 40
  } catch {
    return false
  }
}

/** Lines at warn level and above in a (possibly very large) log file, found without reading it in. */
function warningsIn(file: string): string[] {
  try {
    return execFileSync('grep', ['-E', '"level":(40|50|60)', file], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
  } catch {
    return [] // grep exits 1 when nothing matches
  }
}
