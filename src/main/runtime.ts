// The composition root: config → store → engine and/or api → listen, and the orderly shutdown.
// Only this module (and cli/) knows which concrete implementations are in use.
import { type AddressInfo, createServer } from 'node:net'
import type { Logger } from 'pino'
import type { Config } from '../config/config.ts'
import { ConfigError, listensEverywhere, usesSimulator } from '../config/config.ts'
import { createEngine, DEFAULT_TICK_MS } from '../engine/engine.ts'
import { buildApp } from '../http/app.ts'
import type { AppSettings } from '../http/app-settings.ts'
import { createMetrics, type Metrics } from '../metrics/metrics.ts'
import { startMetricsServer } from '../metrics/metrics-server.ts'
import { createReadingModel } from '../model/models.ts'
import type { BucketStore } from '../ports/bucket-store.ts'
import type { Clock } from '../ports/clock.ts'
import type { EventNotifier } from '../ports/event-notifier.ts'
import type { Store } from '../ports/store.ts'
import { createMemoryBucketStore } from '../store/memory/memory-bucket-store.ts'
import { createMemoryEventNotifier } from '../store/memory/memory-event-notifier.ts'
import type { StoreFaults } from '../store/store-faults.ts'
import { createStoreOutage } from '../store/store-outage.ts'
import { createStoreProbe } from '../store/store-probe.ts'
import { createLogFollower } from '../stream/log-follower.ts'
import { createStreamHub } from '../stream/stream-hub.ts'
import { appSettingsFrom, rateLimitPolicy } from './app-settings.ts'
import { announceBootstrapKey, checkBootstrapKeyFile } from './bootstrap-key.ts'
import { watchFeedAges } from './feed-ages.ts'
import { createFeeds } from './feeds.ts'
import { releaseHeap } from './heap-release.ts'
import { openStoreAt } from './open-store.ts'
import { createServiceClock } from './service-clock.ts'
import { resolveSimWorld } from './sim-timeline.ts'
import { spotKeepMinutes } from './spot-history.ts'
import { systemClock } from './system-clock.ts'
import { VERSION } from './version.ts'
import { loadWebAssets } from './web-assets.ts'

export type Role = 'serve' | 'api' | 'engine'

export type RunningService = {
  /** the api's base URL, null for the engine role */
  url: string | null
  close(): Promise<void>
}

type Closer = { name: string; close: () => Promise<unknown> }

export async function startService(
  role: Role,
  config: Config,
  logger: Logger,
  /** where a person sees the bootstrap key besides its file: stderr when it is a terminal */
  terminal: ((text: string) => void) | null = process.stderr.isTTY
    ? (text) => process.stderr.write(`${text}\n`)
    : null,
  /**
   * aborted by a stop asked for while starting (SIGTERM during a first start's backfill): the
   * backfill stops at its next window, and nothing more is started
   */
  stopping?: AbortSignal,
): Promise<RunningService> {
  const wallClock: Clock = systemClock
  // Closed in reverse order of opening: streams first (they would hold the listener open), the store last.
  const closers: Closer[] = []
  const closeAll = async () => {
    for (const c of closers.reverse()) {
      await c.close().catch((err: unknown) => logger.error({ err }, `closing ${c.name} failed`))
    }
  }

  // Read first (the TLS files are read here), so a bad file stops the program before anything opens.
  const settings = role === 'engine' ? null : appSettingsFrom(config)
  // Metrics exist only when they are served: nothing else in the process depends on them.
  const metrics =
    config.metricsPort === null
      ? null
      : createMetrics({
          role,
          build: { version: VERSION, model: createReadingModel(config.model).version },
        })

  // A port another program holds stops the start before the store opens or the engine writes.
  await checkPortsFree(role, config)
  try {
    const { store, faults: storeFaults, location } = await openStoreAt(config)
    closers.push({ name: 'store', close: () => store.close() })
    // The absolute path of a SQLite file, or the URL without its password (decisions §7); a new,
    // empty SQLite store is said so, in case the path was not the one meant.
    logger.info(
      { store: location.display, ...(location.kind === 'sqlite' ? { created: !location.exists } : {}) },
      'store opened',
    )
    if (role === 'serve' && config.bootstrapKey) await checkBootstrapKeyFile(store, config.bootstrapKeyFile)
    metrics?.watchStore(createStoreProbe({ store, wallClock, faults: storeFaults }).read, () =>
      wallClock.now(),
    )
    // With a real venue every timestamp is the wall clock (decisions §8): the virtual clock is for the simulator.
    const clock = usesSimulator(config)
      ? await createServiceClock(store, wallClock, config.simSpeed, config.simStart)
      : wallClock
    const notifier = await openNotifier(config, logger)
    closers.push({ name: 'notifier', close: () => notifier.close() })

    if (role !== 'api') {
      const feedLogger = logger.child({ role: 'engine', component: 'feeds' })
      const model = createReadingModel(config.model)
      // the sandbox this store's timeline runs on, fixed at its first start (a restart continues it)
      const sim = usesSimulator(config) ? await resolveSimWorld(store, config) : undefined
      const { venue, venues, feed, recorder } = await createFeeds(config, {
        wallClock,
        clock,
        logger: feedLogger,
        ...(sim ? { sim } : {}),
        spotKeepMinutes: spotKeepMinutes(model),
        ...(metrics ? { telemetry: metrics.venueTelemetry, spotTelemetry: metrics.spotTelemetry } : {}),
      })
      // Not awaited: an unreachable venue or exchange must not hold up the api, which serves the
      // stored history meanwhile and reports the outage in health once it has lasted a minute.
      const feedsStarted = Promise.all([venue.start(), feed.start()]).catch((err: unknown) =>
        feedLogger.error({ err }, 'starting the venue or the spot feed failed'),
      )
      closers.push({
        name: 'venue and spot feed',
        close: async () => {
          await Promise.all([venue.close(), feed.close()])
          await feedsStarted
          await recorder?.close()
        },
      })
      if (metrics) watchFeedAges(metrics, { venue, feed }, { wallClock, clock })
      const engine = createEngine({
        store,
        venue,
        feed,
        notifier,
        series: config.series,
        clock,
        wallClock,
        backfillDays: usesSimulator(config) ? config.simBackfillDays : 0,
        retentionMs: config.eventRetentionHours * 3_600_000,
        model,
        readingMaxLateMs: config.readingMaxLateS * 1000,
        tickMs: engineTickMs(config),
        // boundaries come on the service clock: the simulator's runs SIM_SPEED times the wall clock
        clockSpeed: usesSimulator(config) ? config.simSpeed : 1,
        logger: logger.child({ role: 'engine' }),
        ...(metrics ? { onSkippedReading: (reason: string) => metrics.countSkippedReading(reason) } : {}),
        afterBackfill: () => {
          const released = releaseHeap()
          if (released) logger.info(released, 'memory released after the backfill')
        },
        ...(stopping ? { stopping } : {}),
      })
      await engine.start()
      closers.push({ name: 'engine', close: () => engine.stop() })
      // stopped while starting: no api to open, no key to hand over; the caller closes what is open
      if (stopping?.aborted) return { url: null, close: closeAll }
      metrics?.watchEngine(() => engine.isLeader())
      logger.info(
        usesSimulator(config)
          ? { series: config.series, venue: venue.name, simSpeed: config.simSpeed, simSeed: sim?.seed }
          : {
              series: config.series,
              // each venue with its series and where it is reached (decisions §14)
              venues: venues.map((v) => ({ venue: v.name, series: v.series, baseUrl: v.baseUrl })),
              spot: config.priceFeeds,
            },
        'engine started',
      )
    }

    const api =
      role === 'engine'
        ? null
        : await startApi({
            config,
            settings: settings!,
            store,
            storeFaults,
            notifier,
            clock,
            wallClock,
            logger,
            closers,
            metrics,
          })
    if (metrics !== null && config.metricsPort !== null) {
      // On its own port, away from the public API and its rate limit; every role serves it.
      const server = await startMetricsServer(metrics.registry, config.metricsPort, config.host).catch(
        (err: unknown) => {
          throw listenError('METRICS_PORT', config.metricsPort!, config.host, err)
        },
      )
      closers.push({ name: 'metrics server', close: () => server.close() })
      logger.info({ url: server.url }, 'metrics listening')
    }
    // the curl lines name the address clients use (PUBLIC_BASE_URL), which in a container is not
    // the address listened on
    if (api !== null && role === 'serve' && config.bootstrapKey)
      await announceBootstrapKey(store, api.publicBaseUrl, config.series[0]!, clock, {
        file: config.bootstrapKeyFile,
        logger,
        terminal,
      })
    return { url: api?.url ?? null, close: closeAll }
  } catch (err) {
    await closeAll()
    throw err
  }
}

type ApiParts = {
  config: Config
  storeFaults: StoreFaults
  settings: AppSettings
  store: Store
  notifier: EventNotifier
  clock: Clock
  wallClock: Clock
  logger: Logger
  /** the api's parts are pushed here, to be closed in reverse order */
  closers: Closer[]
  metrics: Metrics | null
}

/** Listens; the URL listened on, and the base URL clients are told (PUBLIC_BASE_URL). */
async function startApi(parts: ApiParts): Promise<{ url: string; publicBaseUrl: string }> {
  const { store, notifier, clock, wallClock, logger, closers, metrics } = parts
  // PORT=0 picks a free port; the default PUBLIC_BASE_URL (http://HOST:PORT) must name that port,
  // not 0, or problem types and the OpenAPI servers would point nowhere: pick it before building.
  const { config, settings } = await withChosenPort(parts.config, parts.settings)
  const follower = createLogFollower({ store, notifier, pollMs: 250, logger, wallClock })
  // Registered first, so the lag is measured before the streams spend time writing the batch.
  if (metrics) follower.onEvents((events) => metrics.countFanout(events, wallClock.now()))
  await follower.start()
  closers.push({ name: 'event follower', close: () => follower.stop() })

  const buckets = await openBuckets(config, wallClock, logger)
  closers.push({ name: 'rate-limit buckets', close: () => buckets.close() })
  // Only a shared store can be down; the in-process buckets have no gauge.
  if (metrics && config.redisUrl !== null) metrics.watchRedis(() => buckets.health())

  // one store outage in the log for the api's 503s and the streams the store cannot open
  const storeOutage = createStoreOutage({ wallClock, logger, faults: parts.storeFaults })
  closers.push({ name: 'store outage log', close: async () => storeOutage.close() })
  const streams = createStreamHub({
    store,
    follower,
    storeOutage,
    epoch: await store.epoch(),
    retentionMs: config.eventRetentionHours * 3_600_000,
    wallClock,
    clock,
    heartbeatMs: config.streamHeartbeatS * 1000,
    logger,
  })
  metrics?.watchStreams(() => streams.size())
  const app = await buildApp({
    settings,
    store,
    buckets,
    follower,
    streams,
    clock,
    wallClock,
    logger,
    version: VERSION,
    webAssets: loadWebAssets(),
    storeFaults: parts.storeFaults,
    storeOutage,
    ...(metrics ? { metrics } : {}),
  })
  // The app closes before the stream hub would be closed by reverse order, so the app's own
  // preClose ends the streams; closing the hub again here is harmless.
  closers.push({ name: 'stream hub', close: () => streams.close() })
  await app.listen({ port: config.port, host: config.host }).catch((err: unknown) => {
    throw listenError('PORT', config.port, config.host, err)
  })
  closers.push({ name: 'http server', close: () => app.close() })
  const address = app.server.address() as AddressInfo
  const scheme = settings.tls ? 'https' : 'http'
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  const url = `${scheme}://${host}:${address.port}`
  logger.info(
    { url, publicBaseUrl: settings.publicBaseUrl, fastPath: config.fastPath ? 'on' : 'off' },
    // says which request path is on: FAST_PATH=off sends every request through the framework
    'api listening',
  )
  if (config.publicBaseUrlDefaulted && listensEverywhere(config.host))
    logger.warn(
      { host: config.host, publicBaseUrl: settings.publicBaseUrl },
      'PUBLIC_BASE_URL is unset and HOST listens on every address: problem types and the OpenAPI servers name localhost; set PUBLIC_BASE_URL to the address clients use',
    )
  return { url, publicBaseUrl: settings.publicBaseUrl }
}

/**
 * With PORT=0 and no PUBLIC_BASE_URL, asks the system for a free port on HOST (listening on 0 and
 * letting go), and gives the api that port and the base URL that names it. Between letting go and
 * the api's own listen another program could take the port; the start then fails naming PORT.
 */
async function withChosenPort(
  config: Config,
  settings: AppSettings,
): Promise<{ config: Config; settings: AppSettings }> {
  if (config.port !== 0 || !config.publicBaseUrlDefaulted) return { config, settings }
  const probe = createServer()
  const port = await new Promise<number>((resolve, reject) => {
    probe.once('error', (err) => reject(listenError('PORT', 0, config.host, err)))
    probe.listen(0, config.host, () => resolve((probe.address() as AddressInfo).port))
  })
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  const base = new URL(config.publicBaseUrl)
  base.port = String(port)
  const publicBaseUrl = base.origin
  return { config: { ...config, port, publicBaseUrl }, settings: { ...settings, publicBaseUrl } }
}

/**
 * The ports this role will listen on, tried (listened on and let go) before anything opens: the
 * api's PORT (not 0, which the system chooses) and METRICS_PORT. The same port for both is refused
 * as such, not as another program's. Between the try and the real listen another program could
 * still take a port; that start then fails naming it, as before.
 */
async function checkPortsFree(role: Role, config: Config): Promise<void> {
  const ports: [string, number][] = []
  if (role !== 'engine' && config.port !== 0) ports.push(['PORT', config.port])
  if (config.metricsPort !== null && config.metricsPort !== 0) {
    if (ports.some(([, p]) => p === config.metricsPort))
      throw new ConfigError([
        `METRICS_PORT=${config.metricsPort} is PORT too: the metrics are served on a port of their own`,
      ])
    ports.push(['METRICS_PORT', config.metricsPort])
  }
  for (const [variable, port] of ports) {
    const probe = createServer()
    await new Promise<void>((resolve, reject) => {
      probe.once('error', (err) => reject(listenError(variable, port, config.host, err)))
      probe.listen(port, config.host, () => resolve())
    })
    await new Promise<void>((resolve) => probe.close(() => resolve()))
  }
}

/** A port that cannot be listened on, naming the variable that chose it (and HOST when the address is the fault). */
function listenError(variable: string, port: number, host: string, err: unknown): unknown {
  const code = (err as { code?: unknown }).code
  if (code === 'EADDRINUSE')
    return new ConfigError([`${variable}=${port}: ${host}:${port} is already in use by another program`])
  if (code === 'EACCES')
    return new ConfigError([`${variable}=${port}: not allowed to listen on ${host}:${port} (EACCES)`])
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new ConfigError([`HOST=${JSON.stringify(host)} is not an address of this machine (${code})`])
  return err
}

async function openNotifier(config: Config, logger: Logger): Promise<EventNotifier> {
  if (config.databaseUrl.startsWith('postgres')) {
    const { createPostgresEventNotifier } = await import('../store/postgres/postgres-event-notifier.ts')
    return createPostgresEventNotifier(config.databaseUrl, logger, systemClock)
  }
  // SQLite: engine and api share a process under `serve`; a separate api process on the same file
  // finds new events by polling the log.
  return createMemoryEventNotifier()
}

async function openBuckets(config: Config, wallClock: Clock, logger: Logger): Promise<BucketStore> {
  const limits = { ...rateLimitPolicy(config), clock: wallClock }
  if (config.redisUrl === null) return createMemoryBucketStore(limits)
  const { createRedisBucketStore } = await import('../store/redis/redis-bucket-store.ts')
  return createRedisBucketStore({
    ...limits,
    url: config.redisUrl,
    prefix: config.redisPrefix,
    commandTimeoutMs: config.redisCommandTimeoutMs,
    logger,
  })
}

/**
 * Wall ms between engine ticks. A faster simulator clock ticks more often, so a minute's reading
 * still starts within READING_MAX_LATE_S of its boundary in virtual time (decisions §11): a quarter
 * of that limit, never below 20 ms (past about 125× a tick spans more than the limit, and some
 * minutes are skipped as late).
 */
export function engineTickMs(config: Pick<Config, 'venues' | 'simSpeed' | 'readingMaxLateS'>): number {
  if (!usesSimulator(config) || config.simSpeed <= 1) return DEFAULT_TICK_MS
  return Math.max(20, Math.min(DEFAULT_TICK_MS, (config.readingMaxLateS * 1000) / config.simSpeed / 4))
}
