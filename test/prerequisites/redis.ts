// Redis for the scaled-out tests: TEST_REDIS_URL when set, else the machine's server when it answers,
// else a private redis-server on a free port, with no persistence, that lives as long as the run.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createClient } from 'redis'
import { freePort } from '../support/ports.ts'
import { waitUntil } from '../support/wait.ts'
import { lastLine, onPath } from './programs.ts'
import { Unmet } from './report.ts'
import type { PrivateService, Resolved } from './services.ts'

export type RedisSettings = {
  /** TEST_REDIS_URL */
  given: string | undefined
  /** the machine's server, tried before starting one */
  probe: string
  searchPath: string
}

export async function resolveRedis(settings: RedisSettings): Promise<Resolved> {
  if (settings.given !== undefined) {
    const problem = await unanswered(settings.given)
    if (problem !== null) throw new Unmet('Redis', `TEST_REDIS_URL=${settings.given}: ${problem}`)
    return { url: settings.given, line: `TEST_REDIS_URL=${settings.given}` }
  }
  const problem = await unanswered(settings.probe)
  if (problem === null) return { url: settings.probe, line: `the machine's, ${settings.probe}` }
  const server = onPath('redis-server', settings.searchPath)
  if (server === null)
    throw new Unmet(
      'Redis',
      `${new URL(settings.probe).host} does not answer (${problem}) and redis-server is not installed: apt-get install redis-server (or set TEST_REDIS_URL)`,
    )
  const service = await startPrivateRedis(server)
  return {
    url: service.url,
    service,
    line: `private, ${service.url} in ${service.dir} (${new URL(settings.probe).host}: ${problem}); removed when the run ends`,
  }
}

/** null when `url` answers PING, else why not. */
async function unanswered(url: string): Promise<string | null> {
  const client = createClient({ url, socket: { reconnectStrategy: false, connectTimeout: 3000 } })
  client.on('error', () => undefined)
  try {
    await client.connect()
    await client.ping()
    return null
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    return e.code === 'ECONNREFUSED' ? 'connection refused' : e.message
  } finally {
    if (client.isOpen) await client.close().catch(() => undefined)
  }
}

async function startPrivateRedis(server: string): Promise<PrivateService> {
  const dir = mkdtempSync(path.join(tmpdir(), 'contest-signals-test-redis-'))
  let child: ChildProcess | null = null
  const stopSync = () => {
    if (child !== null && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    child = null
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    // The free port can be taken between the probe and the start: try another.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort()
      const url = `redis://127.0.0.1:${port}`
      const log = path.join(dir, 'server.log')
      const started = spawn(
        server,
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'no',
          '--dir',
          dir,
          '--logfile',
          log,
        ],
        { stdio: 'ignore' },
      )
      child = started
      if (await answers(url, started)) {
        return {
          url,
          dir,
          stopSync,
          stop: async () => {
            const c = child
            if (c !== null && c.exitCode === null && c.signalCode === null) {
              const exited = new Promise((resolve) => c.once('exit', resolve))
              c.kill('SIGTERM')
              await exited
            }
            stopSync()
          },
        }
      }
      started.kill('SIGKILL')
      if (attempt === 3) throw new Unmet('Redis', `redis-server did not start: ${lastLine(readLog(log))}`)
    }
  } catch (err) {
    stopSync()
    throw err
  }
}

/** Waits for the new server to answer, or to exit (its port was taken). */
async function answers(url: string, child: ChildProcess): Promise<boolean> {
  const exited = () => child.exitCode !== null || child.signalCode !== null
  try {
    await waitUntil(async () => exited() || (await unanswered(url)) === null, 'the new redis-server', 10_000)
  } catch {
    return false
  }
  return !exited()
}

function readLog(file: string): string {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return ''
  }
}
