// The dashboard's calls to the API: the key in the Authorization header; a 429 or 503 answered by
// waiting Retry-After plus exponential backoff with jitter (as the spec advises), and a service that
// cannot be reached tried again the same way, for as long as the caller wants the answer (until its
// signal aborts); history read page by page through the spec's `before` cursor.
import { retryWait, sleep, type Wait } from './retry.ts'
import type { ContestJson } from './types.ts'

export class ApiError extends Error {
  readonly status: number
  constructor(status: number, message: string) {
    super(message)
    this.status = status
  }
}

export type CallOptions = {
  /** stop waiting and trying: the page no longer wants the answer */
  signal?: AbortSignal
  /** told each wait before a retry, and null once an answer came after one */
  onWait?: (wait: Wait | null) => void
}

export async function getJson<T>(path: string, key: string, opts: CallOptions = {}): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    let res: Response | null
    let text = ''
    try {
      res = await fetch(path, {
        headers: { Authorization: `Bearer ${key}`, Accept: 'application/json' },
        signal: opts.signal,
      })
      if (res.status === 429 || res.status === 503) await res.body?.cancel()
      else text = await res.text()
    } catch (err) {
      // aborted, or the network failed (the service is down or unreachable): the latter is retried
      if (opts.signal?.aborted) throw err
      res = null
    }
    if (res === null || res.status === 429 || res.status === 503) {
      const wait = retryWait(res, attempt)
      opts.onWait?.(wait)
      await sleep(wait.ms, opts.signal)
      continue
    }
    if (attempt > 0) opts.onWait?.(null)
    const body = parse(text) as (T & { detail?: string }) | null
    if (!res.ok) throw new ApiError(res.status, body?.detail ?? `HTTP ${res.status}`)
    return body as T
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

/** Every settled contest of `series` with expires_at in [since, before], newest first. */
export async function settledBetween(
  series: string,
  since: string,
  before: string,
  key: string,
  opts: CallOptions = {},
): Promise<ContestJson[]> {
  const out: ContestJson[] = []
  const seen = new Set<string>()
  let cursor = before
  for (;;) {
    const q = new URLSearchParams({ series, limit: '100', since, before: cursor })
    const page = await getJson<{ contests: ContestJson[] }>(`/v1/contests?${q}`, key, opts)
    const fresh = page.contests.filter((c) => !seen.has(c.ticker))
    for (const c of fresh) {
      seen.add(c.ticker)
      out.push(c)
    }
    // `before` is inclusive: the oldest row comes back first on the next page, hence the seen set
    if (page.contests.length < 100 || fresh.length === 0) return out
    cursor = page.contests[page.contests.length - 1]!.window.expires_at
  }
}
