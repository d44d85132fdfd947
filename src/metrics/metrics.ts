// Prometheus metrics of one process (issue: operations at scale). Each replica exposes its own
// registry on METRICS_PORT; nothing here is on the public API port. Counters are pushed by the code
// that sees the event; gauges are read from their sources at scrape time, and only the sources this
// process has are registered (no Redis gauge without REDIS_URL, no leadership gauge without an engine).
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { StoredEvent } from '../domain/events.ts'
import type { SourceStatus, SpotSourceStatus, SpotTelemetry, VenueTelemetry } from '../ports/venue.ts'

/** What the store answered when last asked (see http/store-probe.ts, which caches it for ~1 s). */
export type StoreReading = { reachable: boolean; engineHeartbeat: number | null }

export type Metrics = {
  registry: Registry
  /**
   * One answered HTTP request; `route` must be a route pattern or 'unknown', never a raw URL.
   * `seconds` from its first byte to its answer, or null for a stream (its life is not a latency).
   */
  countRequest(route: string, method: string, status: number, seconds: number | null): void
  /** A batch the log follower dispatched, observed at wall time `wallNow` (ms). */
  countFanout(events: readonly StoredEvent[], wallNow: number): void
  watchStreams(openStreams: () => number): void
  watchEngine(isLeader: () => boolean): void
  /** `read` is asked once per scrape for both the store gauge and the heartbeat age. */
  watchStore(read: () => Promise<StoreReading>, wallNow: () => number): void
  watchRedis(health: () => 'ok' | 'degraded'): void
  /** Request accounting handed to the networked venue adapter `venue` (engine roles): every series labelled with it. */
  venueTelemetry(venue: string): VenueTelemetry
  /**
   * What the spot exchange `source` reports (engine roles, real exchanges): its socket, its REST
   * requests and the frames it could not use. Its socket reads 0 and its drops 0 from the moment it
   * is made, so a source that never connects is a 0, not an absent series.
   */
  spotTelemetry(source: string): SpotTelemetry
  /** A contest minute whose reading could not be raised, by reason (engine roles). */
  countSkippedReading(reason: string): void
  /**
   * Ages of each venue's last good poll, on the wall clock, and of each spot source's last price, on
   * `spotNow`: the clock the spot's freshness (SPOT_MAX_AGE_S) is judged on, the sources' `midAt`'s
   * (the wall clock with real exchanges, the virtual clock under the simulator). Engine roles.
   */
  watchFeeds(
    venues: () => readonly SourceStatus[],
    spot: () => readonly SpotSourceStatus[],
    wallNow: () => number,
    spotNow: () => number,
  ): void
}

/** Which roles this process runs: each exports its own families only (`serve` runs both). */
export type MetricsRole = 'serve' | 'api' | 'engine'

export type MetricsOptions = {
  /** default `serve`; an `engine` exports no HTTP or fan-out family, an `api` no venue, spot or skip family */
  role?: MetricsRole
  /** cs_build_info's labels: the package version and the model_version readings are published with */
  build?: { version: string; model: string }
  /** a scrape reports the store down rather than wait longer than this for it; default 2 s */
  storeTimeoutMs?: number
}

const DEFAULT_STORE_TIMEOUT_MS = 2000

export function createMetrics(opts: MetricsOptions = {}): Metrics {
  const storeTimeoutMs = opts.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const registers = [registry]
  const role = opts.role ?? 'serve'
  // A family of the other role is still created (its callers need no role check) but never
  // registered, so it is not exported: not even as a 0 or a bare # TYPE line.
  const apiRegisters = role === 'engine' ? [] : registers
  const engineRegisters = role === 'api' ? [] : registers

  const httpRequests = new Counter({
    name: 'cs_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status; a stream is counted when it ends',
    labelNames: ['route', 'method', 'status'] as const,
    registers: apiRegisters,
  })
  const requestCounters = new Map<string, Map<string, Map<number, { inc(): void }>>>()
  const httpDuration = new Histogram({
    name: 'cs_http_request_duration_seconds',
    help: 'time from a request to its answer, by route pattern (streams excluded); p99 by histogram_quantile',
    labelNames: ['route'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: apiRegisters,
  })
  const durationByRoute = new Map<string, { observe(seconds: number): void }>()
  if (opts.build)
    new Gauge({
      name: 'cs_build_info',
      help: 'always 1: the running package version and the model it publishes readings with',
      labelNames: ['version', 'model'] as const,
      registers,
    }).set(opts.build, 1)
  const rateLimited = new Counter({
    name: 'cs_http_rate_limited_total',
    help: 'requests refused with 429',
    registers: apiRegisters,
  })
  const eventsFannedOut = new Counter({
    name: 'cs_events_fanned_out_total',
    help: 'events read from the log and dispatched to this process’s streams and caches, by type',
    labelNames: ['type'] as const,
    registers: apiRegisters,
  })
  const fanoutLag = new Histogram({
    name: 'cs_fanout_lag_seconds',
    help: 'wall time from an event’s append to its dispatch in this process (includes clock skew between hosts)',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: apiRegisters,
  })

  const venueRequests = new Histogram({
    name: 'cs_venue_request_duration_seconds',
    help: 'requests to the venue by endpoint and status (HTTP code, timeout or error); _count is the request count',
    labelNames: ['venue', 'endpoint', 'status'] as const,
    buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: engineRegisters,
  })
  const venueRetries = new Counter({
    name: 'cs_venue_retries_total',
    help: 'venue requests retried after a 429, a 5xx, a timeout or a network error, by endpoint',
    labelNames: ['venue', 'endpoint'] as const,
    registers: engineRegisters,
  })
  const venueRejected = new Counter({
    name: 'cs_venue_rejected_bodies_total',
    help: 'venue answers the adapter could not use (a market, a book, the exchange status), by endpoint and the field that was wrong',
    labelNames: ['venue', 'endpoint', 'field'] as const,
    registers: engineRegisters,
  })
  const venueSocket = new Gauge({
    name: 'cs_venue_socket_connected',
    help: '1 while the venue WebSocket (with an API key) is connected, else 0; REST polling carries on either way',
    labelNames: ['venue'] as const,
    registers: engineRegisters,
  })
  const venueSocketDrops = new Counter({
    name: 'cs_venue_socket_drops_total',
    help: 'times the venue WebSocket ended or failed to connect (each followed by a reconnect with backoff)',
    labelNames: ['venue'] as const,
    registers: engineRegisters,
  })
  const spotSocket = new Gauge({
    name: 'cs_spot_socket_connected',
    help: '1 while the spot exchange’s WebSocket is connected, else 0; its REST ticker stands in while it is not',
    labelNames: ['source'] as const,
    registers: engineRegisters,
  })
  const spotSocketDrops = new Counter({
    name: 'cs_spot_socket_drops_total',
    help: 'times the spot exchange’s WebSocket ended or failed to connect (each followed by a reconnect with backoff)',
    labelNames: ['source'] as const,
    registers: engineRegisters,
  })
  const spotRejected = new Counter({
    name: 'cs_spot_rejected_frames_total',
    help: 'spot exchange frames and REST bodies the adapter could not use, by the field that was wrong (array indices dropped)',
    labelNames: ['source', 'field'] as const,
    registers: engineRegisters,
  })
  const spotRequests = new Counter({
    name: 'cs_spot_rest_requests_total',
    help: 'REST requests to the spot exchange (ticker while its socket is not delivering, candles at warm-up), by HTTP status, timeout or error',
    labelNames: ['source', 'endpoint', 'status'] as const,
    registers: engineRegisters,
  })
  const skippedReadings = new Counter({
    name: 'cs_readings_skipped_total',
    help: 'contest minutes whose reading could not be raised when first tried, by reason',
    labelNames: ['reason'] as const,
    registers: engineRegisters,
  })
  const ageSeconds = (at: number | null, now: number): number =>
    at === null ? Number.POSITIVE_INFINITY : Math.max(0, now - at) / 1000

  return {
    registry,
    venueTelemetry: (venue) => ({
      request(endpoint, status, seconds) {
        venueRequests.observe({ venue, endpoint, status }, seconds)
      },
      retry(endpoint) {
        venueRetries.inc({ venue, endpoint })
      },
      rejected(endpoint, field) {
        venueRejected.inc({ venue, endpoint, field })
      },
      socket(connected) {
        venueSocket.set({ venue }, connected ? 1 : 0)
        if (!connected) venueSocketDrops.inc({ venue })
      },
    }),
    spotTelemetry: (source) => {
      spotSocket.set({ source }, 0)
      spotSocketDrops.inc({ source }, 0)
      return {
        request(endpoint, status) {
          spotRequests.inc({ source, endpoint, status })
        },
        rejected(field) {
          // a bad level anywhere in a book (or row of candles) is one series, not one per index
          spotRejected.inc({ source, field: field.replace(/\[\d+\]/g, '[]') })
        },
        socket(connected) {
          spotSocket.set({ source }, connected ? 1 : 0)
          if (!connected) spotSocketDrops.inc({ source })
        },
      }
    },
    countSkippedReading(reason) {
      skippedReadings.inc({ reason })
    },
    watchFeeds(venues, spot, wallNow, spotNow) {
      new Gauge({
        name: 'cs_venue_last_poll_age_seconds',
        help: 'seconds since each venue last answered a whole poll (+Inf before the first); 0 for the simulator',
        labelNames: ['venue'] as const,
        registers,
        collect() {
          const now = wallNow()
          for (const status of venues())
            this.set(
              { venue: status.name },
              status.lastOkAt === null && status.state === 'ok' ? 0 : ageSeconds(status.lastOkAt, now),
            )
        },
      })
      new Gauge({
        name: 'cs_spot_source_age_seconds',
        help: 'seconds since each spot source last gave a price (+Inf before the first), on the clock its freshness is judged on (the simulator’s virtual clock under VENUE=sim)',
        labelNames: ['source'] as const,
        registers,
        collect() {
          const now = spotNow()
          for (const source of spot()) this.set({ source: source.name }, ageSeconds(source.midAt, now))
        },
      })
      new Gauge({
        name: 'cs_spot_source_lag_seconds',
        help: 'receipt time minus the exchange’s own timestamp of each source’s last price (a backlogged socket shows here); absent where the exchange sends no time',
        labelNames: ['source'] as const,
        registers,
        collect() {
          this.reset()
          for (const source of spot())
            if (source.lagMs !== null && source.lagMs !== undefined)
              this.set({ source: source.name }, source.lagMs / 1000)
        },
      })
    },
    countRequest(route, method, status, seconds) {
      if (seconds !== null) {
        let histogram = durationByRoute.get(route)
        if (histogram === undefined) {
          histogram = httpDuration.labels({ route })
          durationByRoute.set(route, histogram)
        }
        histogram.observe(seconds)
      }
      // One child counter per label set, found without building a label object or key string.
      let byMethod = requestCounters.get(route)
      if (byMethod === undefined) {
        byMethod = new Map()
        requestCounters.set(route, byMethod)
      }
      let byStatus = byMethod.get(method)
      if (byStatus === undefined) {
        byStatus = new Map()
        byMethod.set(method, byStatus)
      }
      let child = byStatus.get(status)
      if (child === undefined) {
        child = httpRequests.labels({ route, method, status: String(status) })
        byStatus.set(status, child)
      }
      child.inc()
      if (status === 429) rateLimited.inc()
    },
    countFanout(events, wallNow) {
      for (const event of events) {
        eventsFannedOut.inc({ type: event.type })
        // Clocks of different hosts may disagree slightly; a negative lag is no lag.
        fanoutLag.observe(Math.max(0, wallNow - event.appendedAt) / 1000)
      }
    },
    watchStreams(openStreams) {
      new Gauge({
        name: 'cs_streams_open',
        help: 'open SSE streams in this process',
        registers,
        collect() {
          this.set(openStreams())
        },
      })
    },
    watchEngine(isLeader) {
      new Gauge({
        name: 'cs_engine_leader',
        help: '1 when this engine holds the lease and publishes, 0 on standby',
        registers,
        collect() {
          this.set(isLeader() ? 1 : 0)
        },
      })
    },
    watchStore(read, wallNow) {
      // Both gauges are collected in one scrape; they share one reading.
      let pending: Promise<StoreReading> | undefined
      let lastHeartbeat: number | null = null
      const reading = (): Promise<StoreReading> => {
        pending ??= withTimeout(read(), storeTimeoutMs)
          .catch(() => ({ reachable: false, engineHeartbeat: null }))
          .then((r) => {
            // An unreachable store says nothing about the engine: keep ageing the last heartbeat seen.
            if (r.engineHeartbeat !== null) lastHeartbeat = r.engineHeartbeat
            return r
          })
          .finally(() => {
            pending = undefined
          })
        return pending
      }
      new Gauge({
        name: 'cs_store_up',
        help: '1 when the store answered a ping at this scrape, 0 otherwise',
        registers,
        async collect() {
          this.set((await reading()).reachable ? 1 : 0)
        },
      })
      new Gauge({
        name: 'cs_engine_heartbeat_age_seconds',
        help: 'seconds since any engine last wrote its heartbeat (+Inf when none ever has); the engine lag',
        registers,
        async collect() {
          await reading()
          this.set(
            lastHeartbeat === null ? Number.POSITIVE_INFINITY : Math.max(0, wallNow() - lastHeartbeat) / 1000,
          )
        },
      })
    },
    watchRedis(health) {
      new Gauge({
        name: 'cs_redis_up',
        help: '1 when the shared rate-limit store (Redis) is reachable, 0 while buckets run in process',
        registers,
        collect() {
          this.set(health() === 'ok' ? 1 : 0)
        },
      })
    },
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)
    timer.unref()
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
