// Runs the real `contest-signals` CLI as a child process, the way an operator does, and reads what
// it prints: the listening URL from the JSON log, the bootstrap key from the file the log names.
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after } from 'node:test'

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..')
const CLI = path.join(REPO_ROOT, 'src/cli/main.ts')

export type ServiceProcess = {
  child: ChildProcess
  /** everything printed on stdout so far */
  stdout(): string
  stderr(): string
  /** resolves with the api URL once the log says it is listening */
  url: Promise<string>
  /**
   * resolves with the bootstrap key of a first `serve` once its file is written (after the api
   * listens), bounded like the start: by the child's CPU time, not the wall clock
   */
  bootstrapKey: Promise<string>
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  kill(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/**
 * Every child still running. A test that hangs is failed by the runner's timeout, but its child would
 * keep the test file's process alive for ever through its pipes; under the test runner, whatever is
 * left once the file's tests are done is stopped (SIGTERM, then SIGKILL), so the file ends.
 */
const running = new Set<ChildProcess>()
if (process.env.NODE_TEST_CONTEXT !== undefined)
  after(async () => {
    await Promise.all([...running].map((child) => stopChild(child, 'SIGTERM')))
  })

function watched(child: ChildProcess): ChildProcess {
  running.add(child)
  child.once('exit', () => running.delete(child))
  return child
}

/**
 * Sends `signal` and waits for the exit; a process still running STOP_GRACE_MS later is killed
 * outright (`forced`), as a process that ignores the signal would otherwise never end.
 */
async function stopChild(
  child: ChildProcess,
  signal: NodeJS.Signals,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; forced: boolean }> {
  const exited = once(child, 'exit')
  child.kill(signal)
  let forced = false
  const grace = setTimeout(() => {
    forced = true
    child.kill('SIGKILL')
  }, STOP_GRACE_MS)
  const [code, by] = (await exited) as [number | null, NodeJS.Signals | null]
  clearTimeout(grace)
  return { code, signal: by, forced }
}

export function tempDir(prefix = 'cs-test-'): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/**
 * A child's environment: only PATH and HOME from ours, then `env`, so the machine's settings never
 * leak in — and the run's compile cache (test/prerequisites/setup.ts), which changes no behaviour,
 * only how often the same modules are compiled.
 */
export function childEnv(env: Record<string, string>): Record<string, string> {
  const cache = process.env.NODE_COMPILE_CACHE
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    ...(cache === undefined ? {} : { NODE_COMPILE_CACHE: cache }),
    ...env,
  }
}

export type StartOptions = {
  /** another tree's src/cli/main.ts (benchmarks profile main's code this way) */
  cli?: string
  /**
   * Raise the open-files limit (`ulimit -n`) to this (or to the hard limit, when it is lower) before
   * the process starts: each open stream holds a file descriptor.
   */
  fileLimit?: number
  /**
   * Send stdout to this file (appending) instead of a pipe, as an operator's log collection would:
   * the benchmark's access-log runs. `stdout()` then reads the file.
   */
  stdoutFile?: string
  /** the working directory (default: the repository), e.g. where an installed copy lives */
  cwd?: string
  /** the CPU seconds a start may spend before it is given up on (default STARTUP_CPU_S) */
  startupCpuS?: number
}

export function startProcess(
  args: string[],
  env: Record<string, string>,
  opts: StartOptions = {},
): ServiceProcess {
  const [command, argv] =
    opts.fileLimit === undefined
      ? [process.execPath, [opts.cli ?? CLI, ...args]]
      : [
          'bash',
          [
            '-c',
            `ulimit -n ${opts.fileLimit} 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec "$0" "$@"`,
            process.execPath,
            opts.cli ?? CLI,
            ...args,
          ],
        ]
  const file = opts.stdoutFile === undefined ? null : openSync(opts.stdoutFile, 'a')
  const child = watched(
    spawn(command, argv, {
      cwd: opts.cwd ?? REPO_ROOT,
      env: childEnv(env),
      stdio: ['ignore', file ?? 'pipe', 'pipe'],
    }),
  )
  if (file !== null) child.once('spawn', () => closeSync(file))
  let piped = ''
  let err = ''
  const stdoutFile = opts.stdoutFile
  const readOut = () => (stdoutFile === undefined ? piped : readFileSync(stdoutFile, 'utf8'))
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    piped += d
  })
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d
  })
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }))
  let awaited = false
  const url = new Promise<string>((resolve, reject) => {
    const onData = () => {
      const out = readOut()
      for (const line of out.split('\n')) {
        if (!line.startsWith('{')) continue
        try {
          const entry = JSON.parse(line) as { msg?: string; url?: string }
          if (entry.msg === 'api listening' && entry.url) {
            child.stdout?.off('data', onData)
            clearInterval(polling)
            clearInterval(starting)
            resolve(entry.url)
            return
          }
        } catch {
          // a partial line: wait for the rest
        }
      }
    }
    child.stdout?.on('data', onData)
    // a file has no data events: read it now and then until the line is there
    const polling = stdoutFile === undefined ? undefined : setInterval(onData, 100)
    polling?.unref()
    void exited.then(({ code, signal }) => {
      clearInterval(polling)
      clearInterval(starting)
      reject(new Error(`process exited (${code ?? signal}) before listening: ${err || readOut()}`))
    })
    // The URL comes from the info-level "api listening" line: fail clearly rather than hang. The
    // bound is on the child's own CPU time, not the wall clock: a start that backfills a day took
    // 4 s alone and over 60 s in a loaded npm test (2 cores, 6 files at once), with the same work.
    const starting = startWatch(child.pid, opts.startupCpuS ?? STARTUP_CPU_S, (why) => {
      // a child whose start was awaited and given up on is stopped, or it keeps the test file's
      // process (and the whole run) alive for ever through its pipes
      if (awaited) child.kill('SIGKILL')
      reject(new Error(`no "api listening" log line: ${why}: ${err || readOut()}`))
    })
  })
  url.catch(() => undefined)
  let bootstrapKey: Promise<string> | undefined
  const awaitBootstrapKey = () =>
    new Promise<string>((resolve, reject) => {
      const stop = () => {
        clearInterval(polling)
        clearInterval(starting)
      }
      const polling = setInterval(() => {
        const key = bootstrapKeyFrom(readOut())
        if (key === null) return
        stop()
        resolve(key)
      }, 50)
      void exited.then(({ code, signal }) => {
        stop()
        reject(new Error(`process exited (${code ?? signal}) before its bootstrap key: ${err || readOut()}`))
      })
      const starting = startWatch(child.pid, opts.startupCpuS ?? STARTUP_CPU_S, (why) => {
        stop()
        child.kill('SIGKILL')
        reject(new Error(`no bootstrap key: ${why}: ${err || readOut()}`))
      })
    })
  return {
    child,
    stdout: readOut,
    stderr: () => err,
    get url() {
      awaited = true
      return url
    },
    get bootstrapKey() {
      bootstrapKey ??= awaitBootstrapKey()
      return bootstrapKey
    },
    exited,
    async kill(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return exited
      const { code, signal: by, forced } = await stopChild(child, signal)
      // the test that asked for the stop fails, saying so, rather than keeping the file alive for ever
      if (forced)
        throw new Error(
          `the process did not stop within ${STOP_GRACE_MS / 1000} s of ${signal}: ${readOut().slice(-2000)}`,
        )
      return { code, signal: by }
    },
  }
}

const STARTUP_CPU_S = 30
const STOP_GRACE_MS = 120_000
const STARTUP_STALL_MS = 30_000

/**
 * Calls `giveUp` once the process has spent `cpuBudgetS` of CPU, or its CPU time has not moved for
 * STARTUP_STALL_MS (a hung start); without /proc, once that many seconds have passed on the wall clock.
 */
function startWatch(
  pid: number | undefined,
  cpuBudgetS: number,
  giveUp: (why: string) => void,
): NodeJS.Timeout {
  const startedAt = Date.now()
  let lastCpu = -1
  let movedAt = startedAt
  const timer = setInterval(() => {
    const stop = (why: string) => {
      clearInterval(timer)
      giveUp(why)
    }
    const cpu = pid === undefined ? null : cpuSeconds(pid)
    const now = Date.now()
    if (cpu === null) {
      if (now - startedAt >= cpuBudgetS * 1000) stop(`not within ${cpuBudgetS} s`)
    } else if (cpu >= cpuBudgetS) stop(`not after ${cpu.toFixed(1)} s of its CPU time`)
    else if (cpu !== lastCpu) {
      lastCpu = cpu
      movedAt = now
    } else if (now - movedAt >= STARTUP_STALL_MS)
      stop(`its CPU time stayed at ${cpu.toFixed(1)} s for ${STARTUP_STALL_MS / 1000} s`)
  }, 500)
  timer.unref()
  return timer
}

/** User + system CPU seconds of a live process (Linux /proc, 100 ticks a second), or null. */
function cpuSeconds(pid: number): number | null {
  try {
    // the fields after the command name, which may itself hold spaces or parentheses
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return null
  }
}

/** Runs a short CLI command to completion. */
export async function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = startProcess(args, env)
  const { code } = await p.exited
  return { code, stdout: p.stdout(), stderr: p.stderr() }
}

/**
 * Runs a command whose stdout goes to `stdout`: a device such as /dev/full or /dev/null (never read
 * back), or `closed-pipe`, a pipe whose reader goes away before the command writes (`| head -0`).
 * Returns its exit code and stderr.
 */
export async function runCliInto(
  args: string[],
  env: Record<string, string>,
  stdout: string,
): Promise<{ code: number | null; stderr: string }> {
  const out = stdout === 'closed-pipe' ? 'pipe' : openSync(stdout, 'w')
  const child = watched(
    spawn(process.execPath, [CLI, ...args], {
      cwd: REPO_ROOT,
      env: childEnv(env),
      stdio: ['ignore', out, 'pipe'],
    }),
  )
  if (typeof out === 'number') child.once('spawn', () => closeSync(out))
  else child.stdout!.destroy()
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d
  })
  // 'close' waits for every stdio stream, and a destroyed one never says it closed
  const ended = once(child.stderr!, 'end')
  const [code] = (await once(child, 'exit')) as [number | null]
  await ended
  return { code, stderr }
}

/**
 * The bootstrap key of a first start, if any: the JSON log names the file (mode 0600) it was written
 * to, never the key itself, so the key is read from that file.
 */
export function bootstrapKeyFrom(stdout: string): string | null {
  const file = bootstrapKeyFileFrom(stdout)
  if (file === null) return null
  return /^\s+(cs_[A-Za-z0-9_-]+)\s*$/m.exec(readFileSync(file, 'utf8'))?.[1] ?? null
}

/** The path of the bootstrap key file named by the JSON log, if any. */
export function bootstrapKeyFileFrom(stdout: string): string | null {
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue
    try {
      const entry = JSON.parse(line) as { msg?: string; file?: string }
      if (entry.msg?.startsWith('a first API key') && entry.file) return entry.file
    } catch {
      // a partial line
    }
  }
  return null
}
