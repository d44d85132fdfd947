// The part of autocannon 9's programmatic API the benchmark uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events'

  export type Histogram = {
    average: number
    mean: number
    stddev: number
    min: number
    max: number
    total: number
    p50: number
    p90: number
    p99: number
  }

  export type RequestSpec = {
    method?: string
    path?: string
    headers?: Record<string, string>
  }

  export type Options = {
    url: string
    connections?: number
    duration?: number
    pipelining?: number
    timeout?: number
    headers?: Record<string, string>
    requests?: RequestSpec[]
    title?: string
  }

  export type Result = {
    title?: string
    url: string
    requests: Histogram
    latency: Histogram
    throughput: Histogram
    duration: number
    errors: number
    timeouts: number
    non2xx: number
    statusCodeStats: Record<string, { count: number }>
  }

  export type Instance = EventEmitter &
    PromiseLike<Result> & {
      stop(): void
      on(
        event: 'response',
        listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void,
      ): Instance
    }

  function autocannon(opts: Options): Instance
  export default autocannon
}
