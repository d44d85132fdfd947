// Redis for tests: the machine's server with a unique key prefix per test, or a private
// redis-server on a free port when a test needs to stop and restart it.
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createClient } from 'redis'
import { freePort } from './ports.ts'
import { waitUntil } from './wait.ts'

/** The machine's server, used when it answers and nothing else is set. */
export const MACHINE_REDIS_URL = 'redis://127.0.0.1:6379'

/** Set by the test run's prerequisite step (test/prerequisites/) to the server it settled on. */
export const REDIS_TEST_URL = process.env.TEST_REDIS_URL ?? MACHINE_REDIS_URL

export function uniquePrefix(name: string): string {
  return `cs-test:${name}:${randomBytes(6).toString('hex')}:`
}

/** Deletes every key under `prefix` on the shared test server. */
export async function deletePrefix(prefix: string, url = REDIS_TEST_URL): Promise<void> {
  const client = createClient({ url })
  await client.connect()
  try {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
      if (keys.length > 0) await client.del(keys)
    }
  } finally {
    await client.close()
  }
}

export type PrivateRedis = {
  url: string
  port: number
  stop(): Promise<void>
  start(): Promise<void>
  /** SIGSTOP: the process keeps its sockets open but answers nothing (a gray failure) */
  pause(): void
  /** SIGCONT after pause() */
  resume(): void
}

/** A redis-server of the test's own, which it may stop and start at will. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort()
  let child: ChildProcess | null = null
  const url = `redis://127.0.0.1:${port}`
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    )
    await waitUntil(async () => {
      const probe = createClient({ url, socket: { reconnectStrategy: false } })
      probe.on('error', () => undefined)
      await probe.connect()
      await probe.close()
      return true
    }, 'the private redis-server to answer')
  }
  const stop = async () => {
    const c = child
    child = null
    if (c && c.exitCode === null) {
      c.kill('SIGCONT')
      c.kill('SIGKILL')
      await once(c, 'exit')
    }
  }
  const signal = (name: NodeJS.Signals) => {
    if (child && child.exitCode === null) child.kill(name)
  }
  await start()
  return { url, port, start, stop, pause: () => signal('SIGSTOP'), resume: () => signal('SIGCONT') }
}
