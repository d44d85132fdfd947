// The prerequisite step of `npm test` (test/prerequisites/), run as the test runner's global setup
// with the machine's PostgreSQL and Redis out of its reach (its probes pointed at closed ports): it
// starts private servers, the scaled-out suites pass against them, and when the run ends, fails or is
// interrupted nothing of them is left running or on disk.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { resolveRedis } from './prerequisites/redis.ts'
import { Unmet } from './prerequisites/report.ts'
import { ensureTools } from './prerequisites/tools.ts'
import { freePort, refused } from './support/ports.ts'
import { REPO_ROOT, tempDir } from './support/service-process.ts'
import { waitFor } from './support/wait.ts'

const SETUP = '--test-global-setup=test/prerequisites/setup.ts'
const WITNESS = 'test/fixtures/prerequisites-witness.ts'

type Run = { child: ReturnType<typeof spawn>; output: () => string; exited: Promise<number | null> }

/** `node --test` under the step, with TEST_DATABASE_URL and TEST_REDIS_URL unset and the probes closed. */
async function runUnderStep(files: string[], extra: Record<string, string> = {}): Promise<Run> {
  const env: Record<string, string | undefined> = { ...process.env }
  delete env.TEST_DATABASE_URL
  delete env.TEST_REDIS_URL
  delete env.NODE_TEST_CONTEXT
  Object.assign(env, extra)
  env.TEST_PROBE_DATABASE_URL = `postgres://postgres@127.0.0.1:${await freePort()}/test`
  env.TEST_PROBE_REDIS_URL = `redis://127.0.0.1:${await freePort()}`
  const child = spawn(process.execPath, ['--test', '--test-reporter=spec', SETUP, ...files], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
  return { child, output: () => output, exited }
}

type Private = { port: number; dir: string }

/** The private server a prerequisite line announces, or undefined when the line is not there (yet). */
function announced(output: string, name: 'PostgreSQL' | 'Redis'): Private | undefined {
  const line = new RegExp(
    `^prerequisite +${name} +private, \\w+://(?:postgres@)?127\\.0\\.0\\.1:(\\d+)\\S* in (\\S+) \\(127\\.0\\.0\\.1:\\d+: connection refused\\); removed when the run ends$`,
    'm',
  ).exec(output)
  if (!line) return undefined
  return { port: Number(line[1]), dir: line[2]! }
}

/** The private server the run announced; fails the test with the run's output when it did not. */
function announcedIn(output: string, name: 'PostgreSQL' | 'Redis'): Private {
  const server = announced(output, name)
  assert.ok(server, `no private ${name} announced in:\n${output}`)
  return server
}

/** Command lines of the machine's processes that mention `dir` (a server still running from it). */
function processesUsing(dir: string): string[] {
  const found: string[] = []
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')
      if (cmdline.includes(dir)) found.push(`${pid}: ${cmdline}`)
    } catch {
      // the process ended while being read
    }
  }
  return found
}

async function assertGone(server: Private): Promise<void> {
  assert.ok(await refused(server.port), `port ${server.port} still answers`)
  assert.equal(existsSync(server.dir), false, `${server.dir} is still on disk`)
  assert.deepEqual(processesUsing(server.dir), [])
}

function witnessed(output: string, name: 'postgres' | 'redis'): number | undefined {
  const m = new RegExp(`witness ${name} port (\\d+)`).exec(output)
  return m ? Number(m[1]) : undefined
}

describe('npm test prerequisites with the machine PostgreSQL and Redis out of reach', () => {
  let output: string
  let code: number | null
  let postgres: Private
  let redis: Private

  before(async () => {
    const run = await runUnderStep([
      WITNESS,
      'test/postgres-store.test.ts',
      'test/redis-bucket-store.test.ts',
    ])
    code = await run.exited
    output = run.output()
    postgres = announced(output, 'PostgreSQL')!
    redis = announced(output, 'Redis')!
  })

  it('starts a private PostgreSQL and a private Redis, saying so in one line each', () => {
    assert.ok(postgres, output)
    assert.ok(redis, output)
    for (const name of ['chromium', 'curl', 'jq', 'python3', 'promtool', 'PostgreSQL', 'Redis'])
      assert.equal(output.match(new RegExp(`^prerequisite +${name} `, 'gm'))?.length, 1, `${name}: ${output}`)
    assert.notEqual(postgres.port, 5432)
    assert.notEqual(redis.port, 6379)
  })

  it('runs the PostgreSQL store and Redis bucket store suites against them, all passing', () => {
    assert.equal(code, 0, output)
    assert.equal(witnessed(output, 'postgres'), postgres.port)
    assert.equal(witnessed(output, 'redis'), redis.port)
    const passed = Number(/^ℹ pass (\d+)$/m.exec(output)?.[1])
    assert.ok(passed > 50, `${passed} passed`)
    assert.match(output, /^ℹ fail 0$/m)
    assert.match(output, /^✔ PostgresStore\b/m)
    assert.match(output, /^✔ RedisBucketStore\b/m)
  })

  it('leaves nothing of them running or on disk afterwards', async () => {
    await assertGone(postgres)
    await assertGone(redis)
  })
})

describe('npm test prerequisites when the run fails or is interrupted', () => {
  const tmp = tempDir()
  after(() => tmp.remove())

  it('stops and removes the private servers after a failing run, which still fails', async () => {
    const run = await runUnderStep([WITNESS], { WITNESS_FAIL: '1' })
    const code = await run.exited
    const output = run.output()
    assert.equal(code, 1, output)
    assert.match(output, /asked to fail/)
    await assertGone(announcedIn(output, 'PostgreSQL'))
    await assertGone(announcedIn(output, 'Redis'))
  })

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`stops and removes them when the run is interrupted (${signal})`, async () => {
      const hold = path.join(tmp.dir, `connected-${signal}`)
      const run = await runUnderStep([WITNESS], { WITNESS_HOLD_FILE: hold })
      await waitFor('the witness connected', () => (existsSync(hold) ? true : undefined), 60_000)
      const postgres = announcedIn(run.output(), 'PostgreSQL')
      const redis = announcedIn(run.output(), 'Redis')
      assert.equal(await refused(postgres.port), false, 'the private PostgreSQL runs while the run does')
      assert.ok(existsSync(redis.dir))
      run.child.kill(signal)
      assert.notEqual(await run.exited, 0, run.output())
      await assertGone(postgres)
      await assertGone(redis)
    })
  }
})

describe('npm test prerequisites that cannot be had', () => {
  const tmp = tempDir()
  after(() => tmp.remove())

  it('names the command that installs the missing tools when the run may not install them', async () => {
    // a PATH holding apt-get alone: chromium, curl, jq, python3 and promtool are all missing
    const bin = path.join(tmp.dir, 'bin')
    mkdirSync(bin)
    symlinkSync('/usr/bin/apt-get', path.join(bin, 'apt-get'))
    await assert.rejects(ensureTools({ searchPath: bin, chromiumPath: undefined, isRoot: false }), (err) => {
      assert.ok(err instanceof Unmet)
      assert.equal(
        err.line(),
        'prerequisite  chromium    missing chromium, curl, jq, python3, promtool: run: sudo apt-get update && sudo apt-get install -y chromium curl jq python3 prometheus (or point CHROMIUM_PATH at a Chromium)',
      )
      return true
    })
  })

  it('stops the run with one line, starting nothing, when CHROMIUM_PATH is not a program', async () => {
    const run = await runUnderStep([WITNESS], { CHROMIUM_PATH: path.join(tmp.dir, 'no-chromium') })
    assert.equal(await run.exited, 1, run.output())
    assert.equal(
      run.output(),
      `prerequisite  chromium    CHROMIUM_PATH=${path.join(tmp.dir, 'no-chromium')} is not an executable file: point it at a Chromium or unset it\n`,
    )
  })

  it('stops the run with one line when TEST_DATABASE_URL does not answer', async () => {
    const url = `postgres://postgres@127.0.0.1:${await freePort()}/test`
    const run = await runUnderStep([WITNESS], { TEST_DATABASE_URL: url })
    assert.equal(await run.exited, 1, run.output())
    assert.match(
      run.output(),
      new RegExp(`^prerequisite  PostgreSQL  TEST_DATABASE_URL=${url}: connection refused$`, 'm'),
    )
    assert.doesNotMatch(run.output(), /^\s+at /m, 'no stack trace')
  })

  it('names the package when Redis neither answers nor is installed', async () => {
    const probe = `redis://127.0.0.1:${await freePort()}`
    await assert.rejects(resolveRedis({ given: undefined, probe, searchPath: tmp.dir }), (err) => {
      assert.ok(err instanceof Unmet)
      assert.match(
        err.message,
        /does not answer \(connection refused\) and redis-server is not installed: apt-get install redis-server/,
      )
      return true
    })
  })
})
