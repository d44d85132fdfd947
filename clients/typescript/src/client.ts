// The three REST operations (the active contest, one contest, settled history) and health, each
// retried on 429 after Retry-After with bounded exponential backoff, plus history paging done as the
// API contract says (`before` = the oldest expires_at received, the repeated rows dropped) and the
// resumable stream (stream.ts).
import { ApiError, problemOf } from './errors.ts'
import type { Contest, ContestList, Health, Operations } from './generated/api-types.ts'
import { BACKOFF_BASE_MS, type ClientOptions, type Settings, settingsOf } from './options.ts'
import { type ContestStream, openContestStream, type StreamOptions } from './stream.ts'
import { backoffMs, retryAfterMs } from './waits.ts'

export type RequestOptions = { signal?: AbortSignal }

/** The most contests the history endpoint returns in one answer. */
const MAX_LIMIT = 100

export type HistoryQuery = Operations['listSettledContests']['parameters']

export type HistoryPaging = {
  series: string
  /** contests per request, 1–100 (default 100); a page after the first asks for one more per repeated row */
  pageSize?: number
  since?: string
  before?: string
}

export type ContestSignalsClient = {
  /** The live contest of a series (404 ApiError when there is none). */
  activeContest(series: string, opts?: RequestOptions): Promise<Contest>
  /** One contest by its full ticker, live or settled. */
  contest(ticker: string, opts?: RequestOptions): Promise<Contest>
  /** One page of settled contests, newest first. */
  settledContests(query: HistoryQuery, opts?: RequestOptions): Promise<Contest[]>
  /** Every settled contest matching the query, newest first, fetched page by page as you iterate. */
  settledHistory(paging: HistoryPaging, opts?: RequestOptions): AsyncGenerator<Contest>
  /** The health check (needs no key): also the 503 body that says the store cannot be reached. */
  health(opts?: RequestOptions): Promise<Health>
  /** The contest stream of a series, resumed with Last-Event-ID across disconnects (stream.ts). */
  stream(opts: StreamOptions): ContestStream
}

export function createClient(options: ClientOptions): ContestSignalsClient {
  const settings = settingsOf(options)
  const get = <T>(path: string, query: Record<string, unknown>, opts: RequestOptions = {}, keyed = true) =>
    getJson<T>(settings, urlOf(settings.baseUrl, path, query), opts.signal, keyed)

  const settledContests = async (query: HistoryQuery, opts?: RequestOptions) =>
    (await get<ContestList>('/v1/contests', query, opts)).contests

  return {
    activeContest: (series, opts) => get<Contest>('/v1/contests/active', { series }, opts),
    contest: (ticker, opts) => get<Contest>(`/v1/contests/${encodeURIComponent(ticker)}`, {}, opts),
    settledContests,
    async *settledHistory(paging, opts) {
      const pageSize = paging.pageSize ?? 100
      let before = paging.before
      // contests already yielded that expire at `before`: the next page repeats them (inclusive bound)
      let boundary = new Set<string>()
      for (;;) {
        // room for the repeated rows as well, so a page of 1 still moves on (the API allows up to 100)
        const limit = Math.min(MAX_LIMIT, pageSize + boundary.size)
        const page = await settledContests(
          { series: paging.series, limit, since: paging.since, before },
          opts,
        )
        const fresh = page.filter((c) => !boundary.has(c.ticker))
        yield* fresh
        const oldest = page.at(-1)
        if (page.length < limit || fresh.length === 0 || oldest === undefined) return
        const next = oldest.window.expires_at
        if (next !== before) boundary = new Set()
        for (const c of page) if (c.window.expires_at === next) boundary.add(c.ticker)
        before = next
      }
    },
    health: (opts) =>
      getJson<Health>(settings, urlOf(settings.baseUrl, '/v1/health', {}), opts?.signal, false, isHealth),
    stream: (opts) => openContestStream(settings, opts),
  }
}

function urlOf(baseUrl: string, path: string, query: Record<string, unknown>): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value))
  const search = params.toString()
  return `${baseUrl}${path}${search ? `?${search}` : ''}`
}

async function getJson<T>(
  settings: Settings,
  url: string,
  signal: AbortSignal | undefined,
  keyed: boolean,
  /** a 503 whose body this accepts is an answer, not an error (health: status "unavailable") */
  answersOn503?: (body: unknown) => boolean,
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (keyed) headers.authorization = `Bearer ${settings.apiKey}`
  for (let attempt = 0; ; attempt++) {
    const res = await settings.fetch(url, { headers, signal })
    if (res.ok) return (await res.json()) as T
    if (res.status === 503 && answersOn503) {
      const body: unknown = await res
        .clone()
        .json()
        .catch(() => null)
      if (answersOn503(body)) return body as T
    }
    const askedMs = retryAfterMs(res.headers.get('retry-after'))
    const retryAfterS = askedMs === null ? null : Math.ceil(askedMs / 1000)
    // a Retry-After beyond the longest wait the caller allows is theirs to decide on, not to cut short
    const tooLong = askedMs !== null && askedMs > settings.maxWaitMs
    if (res.status !== 429 || attempt >= settings.maxRetries || tooLong)
      throw new ApiError(res.status, await problemOf(res), retryAfterS)
    await res.body?.cancel()
    const waitMs = backoffMs(attempt, askedMs, BACKOFF_BASE_MS, settings.maxWaitMs)
    settings.onRateLimited?.({ attempt, waitMs, retryAfterS })
    await settings.sleep(waitMs, signal)
  }
}

/** A health document (not a problem): the service sends one with 503 when its store cannot be reached. */
function isHealth(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false
  const { status, checks } = body as { status?: unknown; checks?: unknown }
  return typeof status === 'string' && typeof checks === 'object' && checks !== null
}
