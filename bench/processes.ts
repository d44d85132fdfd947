// Helper processes of the benchmark (bare servers, load and stream clients): forked with the same
// Node binary, spoken to over IPC, and always stopped, whatever happens to the run.
import { type ChildProcess, fork } from 'node:child_process'
import path from 'node:path'
import { SETTINGS } from '../src/config/settings.ts'

export type Helper = {
  pid: number
  /** sends a message and resolves with the first answer that has `key` */
  ask<T>(message: unknown, key: string): Promise<T>
  /** resolves with the first message that has `key` */
  next<T>(key: string): Promise<T>
  /**
   * Closes the IPC channel, so the helper exits by itself (and writes what it writes at exit, a CPU
   * profile); resolves with performance.now() at its exit.
   */
  leave(): Promise<number>
  stop(): void
}

const helpers = new Set<ChildProcess>()

/**
 * What every helper is told of the service it stands beside: the keep-alive the bench's service runs
 * with (its default; the service gets no environment of ours), so a bare server's `Keep-Alive:
 * timeout=` is the service's to the byte.
 */
const SERVICE_FACTS = { HTTP_KEEP_ALIVE_TIMEOUT_S: SETTINGS.HTTP_KEEP_ALIVE_TIMEOUT_S.default }

/** Forks bench/<file>; `fileLimit` raises its open-files limit first (stream clients). */
export function startHelper(
  file: string,
  opts: { fileLimit?: number; env?: Record<string, string> } = {},
): Helper {
  const script = path.join(import.meta.dirname, file)
  const common = {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'] as ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, ...SERVICE_FACTS, ...opts.env },
  }
  const child =
    opts.fileLimit === undefined
      ? fork(script, [], common)
      : fork(script, [], {
          ...common,
          execPath: 'bash',
          execArgv: [
            '-c',
            `ulimit -n ${opts.fileLimit} 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec "$0" "$@"`,
            process.execPath,
          ],
        })
  helpers.add(child)
  child.once('exit', () => helpers.delete(child))
  const next = <T>(key: string) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (msg: Record<string, unknown>) => {
        if (typeof msg.failed === 'string') {
          cleanup()
          reject(new Error(`${file}: ${msg.failed}`))
        } else if (key in msg) {
          cleanup()
          resolve(msg[key] as T)
        }
      }
      const onExit = (code: number | null) => {
        cleanup()
        reject(new Error(`${file} exited (${code})`))
      }
      const cleanup = () => {
        child.off('message', onMessage)
        child.off('exit', onExit)
      }
      child.on('message', onMessage)
      child.once('exit', onExit)
    })
  return {
    get pid() {
      return child.pid ?? -1
    },
    ask<T>(message: unknown, key: string) {
      const answer = next<T>(key)
      child.send(message as object)
      return answer
    },
    next,
    leave() {
      const exited = new Promise<number>((resolve) => child.once('exit', () => resolve(performance.now())))
      if (child.exitCode !== null) return Promise.resolve(performance.now())
      child.disconnect()
      return exited
    },
    stop() {
      if (child.exitCode === null) child.kill('SIGKILL')
    },
  }
}

/** Last resort on the way out (synchronous, for process 'exit'). */
export function killAllHelpers(): void {
  for (const child of helpers) if (child.exitCode === null) child.kill('SIGKILL')
  helpers.clear()
}
