// Prometheus metrics of one process (issue: operations at scale). Each replica exposes its own
// registry on METRICS_PORT; nothing here is on the public API port.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'

export type Metrics = {
  registry: Registry
  httpRequests: Counter<'route' | 'method' | 'status'>
  rateLimited: Counter
  openStreams: Gauge
  eventsFannedOut: Counter<'type'>
  fanoutLag: Histogram
  engineLeader: Gauge
  engineLag: Gauge
  storeUp: Gauge
  redisUp: Gauge
}

export function createMetrics(): Metrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const registers = [registry]
  return {
    registry,
    httpRequests: new Counter({
      name: 'cs_http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status',
      labelNames: ['route', 'method', 'status'] as const,
      registers,
    }),
    rateLimited: new Counter({
      name: 'cs_http_rate_limited_total',
      help: 'requests refused with 429',
      registers,
    }),
    openStreams: new Gauge({ name: 'cs_streams_open', help: 'open SSE streams', registers }),
    eventsFannedOut: new Counter({
      name: 'cs_events_fanned_out_total',
      help: 'events read from the log and dispatched to this process’s streams and caches',
      labelNames: ['type'] as const,
      registers,
    }),
    fanoutLag: new Histogram({
      name: 'cs_fanout_lag_seconds',
      help: 'time from an event’s commit to its dispatch in this process',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    engineLeader: new Gauge({
      name: 'cs_engine_leader',
      help: '1 when this engine holds the lease and publishes, 0 on standby',
      registers,
    }),
    engineLag: new Gauge({
      name: 'cs_engine_heartbeat_age_seconds',
      help: 'seconds since any engine last wrote its heartbeat',
      registers,
    }),
    storeUp: new Gauge({ name: 'cs_store_up', help: '1 when the store answered its last check', registers }),
    redisUp: new Gauge({
      name: 'cs_redis_up',
      help: '1 when the shared rate-limit store is reachable (absent when not configured)',
      registers,
    }),
  }
}
