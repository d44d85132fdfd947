// The dashboard's calls to the API: the key in the Authorization header, a 429 answered by waiting
// Retry-After plus exponential backoff with jitter (as the spec advises), and history read page by
// page through the spec's `before` cursor.
import type { ContestJson } from './types.ts'

export class ApiError extends Error {
  readonly status: number
  constructor(status: number, message: string) {
    super(message)
    this.status = status
  }
}

const MAX_ATTEMPTS = 5

export async function getJson<T>(path: string, key: string): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(path, { headers: { Authorization: `Bearer ${key}`, Accept: 'application/json' } })
    if (res.status === 429 && attempt < MAX_ATTEMPTS) {
      const seconds = Number(res.headers.get('retry-after') ?? '1')
      const base = (Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * 1000
      await new Promise((r) => setTimeout(r, base * 2 ** attempt + Math.random() * 1000))
      continue
    }
    const body = (await res.json().catch(() => null)) as (T & { detail?: string }) | null
    if (!res.ok) throw new ApiError(res.status, body?.detail ?? `HTTP ${res.status}`)
    return body as T
  }
}

/** Every settled contest of `series` with expires_at in [since, before], newest first. */
export async function settledBetween(
  series: string,
  since: string,
  before: string,
  key: string,
): Promise<ContestJson[]> {
  const out: ContestJson[] = []
  const seen = new Set<string>()
  let cursor = before
  for (;;) {
    const q = new URLSearchParams({ series, limit: '100', since, before: cursor })
    const page = await getJson<{ contests: ContestJson[] }>(`/v1/contests?${q}`, key)
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
