// Request load for the gray-failure tests: a few clients sending keyed reads back to back, spread
// over replicas and client addresses, every answer recorded with its status and Retry-After and
// with the phase of the test it was sent and answered in. Nothing here is timed: a test marks its
// phases (Redis paused, resumed) and asks which answers came when (test/README.md).

export type Sample = {
  path: string
  status: number
  retryAfter: string | null
  contentType: string | null
  /** the phase marked when the request was sent, and when its answer (or failure) came */
  sentIn: string
  answeredIn: string
}

export type LoadOptions = {
  urls: readonly string[]
  /** request n: its path and the key it sends (default `key`) */
  requestOf: (n: number) => { path: string; key?: string }
  key: string
  /** how many requests are in flight at once: each client sends its next once answered */
  clients: number
  /** X-Forwarded-For of request n (distinct addresses keep the rate limiter out of the way) */
  clientOf?: (n: number) => string
}

export type LoadRun = {
  /** every answer so far, in the order they came */
  samples: Sample[]
  /** names the phase later requests and answers are recorded in */
  mark(phase: string): void
  /** sends no new request; resolves with every sample once the requests in flight have answered */
  stop(): Promise<Sample[]>
}

/** Starts the load in phase `start` and returns at once. */
export function startLoad(opts: LoadOptions): LoadRun {
  const samples: Sample[] = []
  const clientOf = opts.clientOf ?? ((n: number) => `203.0.113.${(n % 250) + 1}`)
  let phase = 'start'
  let stopped = false
  let next = 0
  const one = async (n: number) => {
    const { path, key = opts.key } = opts.requestOf(n)
    const url = opts.urls[n % opts.urls.length]!
    const sentIn = phase
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
    samples.push({ path, status, retryAfter, contentType, sentIn, answeredIn: phase })
  }
  const clients = Array.from({ length: opts.clients }, async () => {
    while (!stopped) await one(next++)
  })
  return {
    samples,
    mark: (p) => {
      phase = p
    },
    async stop() {
      stopped = true
      await Promise.all(clients)
      return samples
    },
  }
}

export function statusCounts(samples: readonly Sample[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const s of samples) counts[s.status] = (counts[s.status] ?? 0) + 1
  return counts
}
