// The test run's global setup (`node --test --test-global-setup=…`): before any test file runs, makes
// sure of what the tests need beyond npm ci, one line each, and hands the test processes where to find
// it through the environment. Private servers it starts are stopped and removed by globalTeardown,
// which the runner calls when the run ends, fails or is interrupted (SIGINT, SIGTERM); an exit handler
// backs it up when the setup itself stops the run.
import { tmpdir } from 'node:os'
import path from 'node:path'
import { MACHINE_POSTGRES_URL } from '../support/postgres.ts'
import { MACHINE_REDIS_URL } from '../support/redis.ts'
import { resolvePostgres } from './postgres.ts'
import { resolveRedis } from './redis.ts'
import { say, Unmet } from './report.ts'
import type { PrivateService } from './services.ts'
import { ensureTools } from './tools.ts'
import { unprivileged } from './unprivileged.ts'

const started: PrivateService[] = []

function stopAllSync(): void {
  for (const service of started.splice(0)) service.stopSync()
}

export async function globalSetup(): Promise<void> {
  process.once('exit', stopAllSync)
  const env = process.env
  const searchPath = env.PATH ?? ''
  const isRoot = process.geteuid?.() === 0
  // Every test process and every CLI it starts loads hundreds of modules, TypeScript stripped on
  // each load: a compile cache shared through the environment spends that once per run, not once
  // per process (the suite is CPU-bound on two cores). Node keys it by content; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
  env.NODE_COMPILE_CACHE ??= path.join(tmpdir(), 'contest-signals-test-compile-cache')
  try {
    Object.assign(env, await ensureTools({ searchPath, chromiumPath: env.CHROMIUM_PATH, isRoot }))

    const postgres = await resolvePostgres({
      given: env.TEST_DATABASE_URL,
      // TEST_PROBE_* move the probe (the prerequisite step's own test points them at closed ports)
      probe: env.TEST_PROBE_DATABASE_URL ?? MACHINE_POSTGRES_URL,
      searchPath,
      runAs: () => unprivileged(isRoot, searchPath),
    })
    if (postgres.service) started.push(postgres.service)
    say('PostgreSQL', postgres.line)
    env.TEST_DATABASE_URL = postgres.url

    const redis = await resolveRedis({
      given: env.TEST_REDIS_URL,
      probe: env.TEST_PROBE_REDIS_URL ?? MACHINE_REDIS_URL,
      searchPath,
    })
    if (redis.service) started.push(redis.service)
    say('Redis', redis.line)
    env.TEST_REDIS_URL = redis.url
  } catch (err) {
    if (!(err instanceof Unmet)) throw err
    process.stderr.write(`${err.line()}\n`)
    // exit rather than throw: the runner would print a stack trace for what one line says
    process.exit(1)
  }
}

let stopping: Promise<void> | null = null

/** Called twice on an interrupted run (by the signal and by the end of the run): stops once. */
export function globalTeardown(): Promise<void> {
  stopping ??= (async () => {
    // each leaves the list only once stopped, so the exit handler still sees one cut short
    while (started.length > 0) {
      await started[0]!.stop()
      started.shift()
    }
  })()
  return stopping
}
