// One HTTP test world: config from an env object, a SQLite store on a temp file, a log follower,
// rate-limit buckets, the real app listening on an ephemeral port, and an API key. Each test builds
// its own and closes it; useTestWorld() shares one across the tests of a file or describe block.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { pino } from 'pino'
import { type Config, loadConfig } from '../../src/config/config.ts'
import { buildApp } from '../../src/http/app.ts'
import type { WebAssets } from '../../src/http/web-assets.ts'
import { appSettingsFrom, rateLimitPolicy } from '../../src/main/app-settings.ts'
import type { BucketStore } from '../../src/ports/bucket-store.ts'
import type { Clock } from '../../src/ports/clock.ts'
import type { Store } from '../../src/ports/store.ts'
import { createMemoryBucketStore } from '../../src/store/memory/memory-bucket-store.ts'
import { createMemoryEventNotifier } from '../../src/store/memory/memory-event-notifier.ts'
import { createPostgresStore } from '../../src/store/postgres/postgres-store.ts'
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.ts'
import { watchStoreFaults } from '../../src/store/store-faults.ts'
import { createStoreOutage, type StoreOutage } from '../../src/store/store-outage.ts'
import { createLogFollower, type LogFollower } from '../../src/stream/log-follower.ts'
import type { StreamHub } from '../../src/stream/stream-hub.ts'
import { type ApiClient, createApiClient } from './api-client.ts'
import { type IssuedKey, makeIssuedKey } from './contest-fixtures.ts'
import { TEST_FAST_PATH } from './long-runs.ts'
import { createStubStreamHub } from './stub-stream-hub.ts'

export const TEST_BASE_URL = 'https://api.contest-signals.test'

export type TestWorldOptions = {
  /** environment variables on top of the test defaults (e.g. RATE_LIMIT_BURST) */
  env?: Record<string, string>
  /** the stream hub; a recording stub by default */
  streams?: StreamHub
  /** the rate-limit buckets; in-memory from the config by default */
  buckets?: (config: Config, wallClock: Clock) => BucketStore
  /** wraps the store handed to the app (e.g. to make it fail) */
  wrapStore?: (store: Store) => Store
  version?: string
  /** receives every log line (JSON; info and above unless LOG_LEVEL says otherwise) */
  logSink?: (line: string) => void
  /** false: every request goes through Fastify, none through the fast path (default: FAST_PATH) */
  fastPath?: boolean
  /** the wall clock of the app (key and store-probe caches, buckets); Date.now by default */
  wallClock?: Clock
  /** the browser pages (none by default: most tests never fetch them) */
  webAssets?: WebAssets
  /**
   * a PostgreSQL store at this URL (its own `?schema=`, which the test drops) instead of a SQLite file,
   * with this statement timeout
   */
  postgres?: { url: string; statementTimeoutMs?: number }
  /** runs on the built app before it listens (hooks can still be added then) */
  beforeListen?: (app: FastifyInstance) => void
}

export type TestWorld = {
  /** where the app listens, e.g. http://127.0.0.1:43117 */
  baseUrl: string
  /** a valid API key */
  key: string
  keyId: string
  store: Store
  config: Config
  app: FastifyInstance
  follower: LogFollower
  streams: StreamHub
  buckets: BucketStore
  /** the store's outage in the log, as the app counts in it (a real stream hub is handed it too) */
  storeOutage: StoreOutage
  /** Creates and stores another key. */
  issueKey(label?: string): Promise<IssuedKey>
  /** Waits until the follower has handed every event appended so far to its listeners. */
  sync(): Promise<void>
  close(): Promise<void>
}

export async function createTestWorld(opts: TestWorldOptions = {}): Promise<TestWorld> {
  const dir = mkdtempSync(join(tmpdir(), 'cs-http-'))
  const dbPath = join(dir, 'test.db')
  const config = loadConfig({
    DATABASE_URL: `sqlite:${dbPath}`,
    PUBLIC_BASE_URL: TEST_BASE_URL,
    // Tests that are not about rate limiting must never meet it.
    RATE_LIMIT_BURST: '1000000',
    // The access log is written (and thrown away unless a test gives a logSink), as in production.
    LOG_LEVEL: 'info',
    BOOTSTRAP_KEY: 'off',
    // `FAST_PATH=off npm run test:http` runs the whole HTTP suite through the framework path alone.
    ...(TEST_FAST_PATH ? { FAST_PATH: TEST_FAST_PATH } : {}),
    ...opts.env,
  })
  const wallClock: Clock = opts.wallClock ?? { now: () => Date.now() }
  const sink = opts.logSink
  // A destination receives bytes: the access log hands over several lines at once.
  const logger = pino(
    { level: config.logLevel },
    {
      write: (chunk: string) => {
        if (sink) for (const line of chunk.split('\n')) if (line !== '') sink(line)
      },
    },
  )
  const rawStore = opts.postgres
    ? createPostgresStore(opts.postgres.url, {
        ...(opts.postgres.statementTimeoutMs ? { statementTimeoutMs: opts.postgres.statementTimeoutMs } : {}),
      })
    : createSqliteStore(dbPath)
  // a short statement timeout is for the test's outage, not the schema: on a loaded machine the
  // migrations themselves ran past 200 ms, so a store without it makes the schema
  const migrator = opts.postgres?.statementTimeoutMs ? createPostgresStore(opts.postgres.url) : rawStore
  await migrator.migrate()
  if (migrator !== rawStore) await migrator.close()
  // watched as the service watches its store (src/main/open-store.ts): health's faults, an outage's end
  const { store, faults: storeFaults } = watchStoreFaults(
    opts.wrapStore ? opts.wrapStore(rawStore) : rawStore,
    wallClock,
  )
  const notifier = createMemoryEventNotifier()
  const follower = createLogFollower({ store: rawStore, notifier, pollMs: 25, logger, wallClock })
  await follower.start()
  const buckets = opts.buckets
    ? opts.buckets(config, wallClock)
    : createMemoryBucketStore({ ...rateLimitPolicy(config), clock: wallClock })
  const streams = opts.streams ?? createStubStreamHub()
  const storeOutage = createStoreOutage({ wallClock, logger, faults: storeFaults })
  const app = await buildApp({
    settings: {
      ...appSettingsFrom(config),
      ...(opts.fastPath !== undefined ? { fastPath: opts.fastPath } : {}),
    },
    store,
    storeFaults,
    storeOutage,
    buckets,
    follower,
    streams,
    clock: wallClock,
    wallClock,
    logger,
    version: opts.version ?? '1.2.3-test',
    ...(opts.webAssets ? { webAssets: opts.webAssets } : {}),
  })
  opts.beforeListen?.(app)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('app is not listening on TCP')
  const issued = makeIssuedKey('test-world')
  await rawStore.createKey(issued.record)

  let closed = false
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    key: issued.key,
    keyId: issued.record.id,
    store: rawStore,
    config,
    app,
    follower,
    streams,
    buckets,
    storeOutage,
    async issueKey(label) {
      const k = makeIssuedKey(label)
      await rawStore.createKey(k.record)
      return k
    },
    async sync() {
      follower.wake()
      await follower.exclusive(async () => undefined)
    },
    async close() {
      if (closed) return
      closed = true
      await app.close()
      storeOutage.close()
      await follower.stop()
      await buckets.close()
      await notifier.close()
      await rawStore.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * One world for the tests of the enclosing file or describe block: built in a before hook (then
 * `setup` runs on it), closed in an after hook. The returned world and api client stand in for the
 * real ones, which exist only once the hook has run, so they may be used in tests but not at load
 * time. Put set-up in `setup` rather than in another before(): top-level hooks do not wait for each other.
 */
export function useTestWorld(
  opts: TestWorldOptions = {},
  setup?: (world: TestWorld, api: ApiClient) => Promise<void>,
): { world: TestWorld; api: ApiClient } {
  let world: TestWorld | undefined
  let api: ApiClient | undefined
  before(async () => {
    world = await createTestWorld(opts)
    api = createApiClient(world)
    await setup?.(world, api)
  })
  after(() => world?.close())
  return { world: late(() => world, 'the test world'), api: late(() => api, 'the api client') }
}

function late<T extends object>(current: () => T | undefined, what: string): T {
  return new Proxy({} as T, {
    get(_, prop) {
      const target = current()
      if (target === undefined) throw new Error(`${what} is used before its before() hook has run`)
      return Reflect.get(target, prop, target)
    },
  })
}
