// Request load for the gray-failure tests: a steady rate of keyed reads spread over replicas and
// client addresses, every answer recorded with its status, latency and Retry-After.
import { setTimeout as sleep } from 'node:timers/promises'

export type Sample = {
  /** ms since the load started, when the request was sent */
  at: number
  path: string
  status: number
  ms: number
  retryAfter: string | null
  contentType: string | null
}

export type LoadOptions = {
  urls: readonly string[]
  /** request n: its path and the key it sends (default `key`) */
  requestOf: (n: number) => { path: string; key?: string }
  key: string
  ratePerSec: number
  durationMs: number
  /** X-Forwarded-For of request n (distinct addresses keep the rate limiter out of the way) */
  clientOf?: (n: number) => string
}

export type LoadRun = { samples: Sample[]; startedAt: number; done: Promise<Sample[]> }

/** Starts the load and returns at once; `done` resolves when every request has answered. */
export function startLoad(opts: LoadOptions): LoadRun {
  const samples: Sample[] = []
  const startedAt = performance.now()
  const clientOf = opts.clientOf ?? ((n: number) => `203.0.113.${(n % 250) + 1}`)
  const inflight = new Set<Promise<void>>()
  const one = async (n: number) => {
    const { path, key = opts.key } = opts.requestOf(n)
    const url = opts.urls[n % opts.urls.length]!
    const sent = performance.now()
    let status = 0
    let retryAfter: string | null = null
    let contentType: string | null = null
    try {
      const res = await fetch(`${url}${path}`, {
        headers: { Authorization: `Bearer ${key}`, 'X-Forwarded-For': clientOf(n) },
        signal: AbortSignal.timeout(30_000),
      })
      await res.arrayBuffer()
      status = res.status
      retryAfter = res.headers.get('retry-after')
      contentType = res.headers.get('content-type')
    } catch {
      status = -1 // no answer at all
    }
    samples.push({
      at: sent - startedAt,
      path,
      status,
      ms: performance.now() - sent,
      retryAfter,
      contentType,
    })
  }
  const done = (async () => {
    const interval = 1000 / opts.ratePerSec
    for (let n = 0; performance.now() - startedAt < opts.durationMs; n++) {
      const p = one(n).finally(() => inflight.delete(p))
      inflight.add(p)
      const next = startedAt + (n + 1) * interval
      await sleep(Math.max(0, next - performance.now()))
    }
    await Promise.all(inflight)
    return samples
  })()
  return { samples, startedAt, done }
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

export function statusCounts(samples: readonly Sample[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const s of samples) counts[s.status] = (counts[s.status] ?? 0) + 1
  return counts
}
