// The scaled-out set of deploy/compose.yaml, started as plain processes from its own service
// definitions (command and environment), with the compose network's hosts pointed at the machine's
// PostgreSQL (a schema of its own) and Redis: the engine writes, both api replicas answer with the
// same contest, and one key works on both.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { parse } from 'yaml'
import { freePort } from './support/ports.ts'
import { dropSchema, POSTGRES_TEST_URL, uniqueSchemaUrl } from './support/postgres.ts'
import { deletePrefix, REDIS_TEST_URL, uniquePrefix } from './support/redis.ts'
import { childEnv, REPO_ROOT, runCli, startProcess } from './support/service-process.ts'
import { OFF_PAUSE_START } from './support/timeline.ts'
import { eventually } from './support/wait.ts'

type Service = {
  command?: string[]
  environment?: Record<string, string>
  image?: string
  healthcheck?: { test?: string[] }
}
const compose = parse(readFileSync(path.join(REPO_ROOT, 'deploy/compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>
}

describe('deploy/compose.yaml', () => {
  const databaseUrl = uniqueSchemaUrl('compose')
  const redisPrefix = uniquePrefix('compose')
  const started: ReturnType<typeof startProcess>[] = []
  const urls: string[] = []

  /** A service's environment with the compose hosts made the test's, listening where the test can reach. */
  const envOf = (service: Service): Record<string, string> => ({
    ...service.environment,
    DATABASE_URL: databaseUrl,
    REDIS_URL: REDIS_TEST_URL,
    REDIS_PREFIX: redisPrefix,
    HOST: '127.0.0.1',
    PORT: '0',
    METRICS_PORT: '0',
    SIM_START: OFF_PAUSE_START,
    SIM_SPEED: '60',
    SIM_BACKFILL_DAYS: '0',
    // the 2 s production default failed a replica's first connection in a loaded npm test (exit 1,
    // "connection timeout"); nothing here is about that timeout
    PG_CONNECT_TIMEOUT_MS: '30000',
  })
  let engineMetricsPort = ''
  const run = (name: string, extra: Record<string, string> = {}) => {
    const service = compose.services[name]!
    assert.deepEqual(service.command?.slice(0, 2), ['node', 'src/cli/main.ts'], name)
    const p = startProcess(service.command!.slice(2), { ...envOf(service), ...extra })
    started.push(p)
    return p
  }

  before(async () => {
    engineMetricsPort = String(await freePort())
    run('engine', { METRICS_PORT: engineMetricsPort })
    for (const api of ['api-1', 'api-2']) urls.push(await run(api).url)
  })
  after(async () => {
    await Promise.all(started.map((p) => p.kill('SIGTERM')))
    await dropSchema(databaseUrl)
    await deletePrefix(redisPrefix)
  })

  it('gives the engine a health check it can pass: its metrics port, since it serves no API', async () => {
    const [kind, command, ...args] = compose.services.engine!.healthcheck!.test!
    assert.deepEqual([kind, command], ['CMD', 'node'])
    const check = () =>
      new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, args, {
          env: childEnv({ METRICS_PORT: engineMetricsPort }),
          stdio: 'ignore',
        })
        child.on('exit', (code) => resolve(code))
      })
    await eventually(check, (code) => code === 0, 20_000)
    // the image's own check asks PORT's /v1/health, which the engine never opens
    assert.match(
      readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8'),
      /HEALTHCHECK[^\n]*\n[^\n]*\/v1\/health/,
    )
  })

  it('defines the scaled-out set: PostgreSQL, Redis, one engine and two api replicas of one image', () => {
    assert.ok(compose.services.postgres?.image?.startsWith('postgres:'))
    assert.ok(compose.services.redis?.image?.startsWith('redis:'))
    for (const name of ['engine', 'api-1', 'api-2']) {
      const env = compose.services[name]!.environment!
      assert.match(env.DATABASE_URL!, /^postgres:\/\/.*@postgres:5432\//, name)
      assert.equal(env.REDIS_URL, 'redis://redis:6379', name)
    }
    assert.ok(POSTGRES_TEST_URL)
  })

  it('makes the replicas interchangeable behind a load balancer: the same OpenAPI document and problems', async () => {
    // the public URL names problem types and the OpenAPI servers (docs/scaling.md): one per deployment
    const answers = await Promise.all(
      urls.flatMap((url) =>
        ['/v1/openapi.json', '/v1/contests/active?series=KXBTC15M'].map(async (p) => {
          const res = await fetch(`${url}${p}`)
          const body = await res.text()
          // the document's URLs, not its 90 kB, in a failure's message; the ETag covers the rest
          const shown = p === '/v1/openapi.json' ? JSON.stringify(JSON.parse(body).servers) : body
          return { path: p, status: res.status, etag: res.headers.get('etag'), shown }
        }),
      ),
    )
    assert.equal(answers[2]!.status, 200)
    assert.equal(answers[3]!.status, 401)
    assert.deepEqual(answers.slice(2), answers.slice(0, 2))
  })

  it('both replicas report the store and the engine ok, and serve the same live contest to one key', async () => {
    for (const url of urls)
      await eventually(
        async () => (await (await fetch(`${url}/v1/health`)).json()) as { status: string },
        (h) => h.status === 'ok',
        20_000,
      )
    const created = await runCli(['keys', 'create', '--label', 'compose'], envOf(compose.services['api-1']!))
    assert.equal(created.code, 0, created.stderr)
    const key = created.stdout.trim().split('\n').at(-1)!
    const tickers = []
    for (const url of urls) {
      const res = await eventually(
        () =>
          fetch(`${url}/v1/contests/active?series=KXBTC15M`, { headers: { Authorization: `Bearer ${key}` } }),
        (r) => r.status === 200,
        20_000,
      )
      tickers.push(((await res.json()) as { ticker: string }).ticker)
    }
    assert.equal(tickers[0], tickers[1])
  })
})
