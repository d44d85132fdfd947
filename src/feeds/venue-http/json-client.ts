// A small JSON-over-HTTP GET client shared by the venue adapters (Kalshi, Polymarket): per-attempt
// timeouts, retries of 429, 5xx, timeouts and network errors with full-jitter backoff, adapter-wide
// pacing, one backoff for the whole host after a 429 or a run of 5xx (host-backoff.ts), optional
// signing and per-attempt telemetry. It knows nothing of markets; callers interpret the JSON.
import { setTimeout as delay } from 'node:timers/promises'
import type { Clock } from '../../ports/clock.ts'
import type { Logger } from '../../ports/logger.ts'
import type { VenueTelemetry } from '../../ports/venue.ts'
import { createHostBackoff } from './host-backoff.ts'
import { createRequestPacer, type Sleep } from './request-pacer.ts'
import { type BackoffOptions, retryDelayMs } from './retry-backoff.ts'

/** Headers to add to one request (a venue's API-key signature), from its method, URL and the wall time. */
export type RequestSigner = (method: string, url: URL, nowMs: number) => Record<string, string>

/**
 * Sent on every request, so a venue (and whoever reads its logs) can tell this client apart; some
 * venues' CDNs refuse requests without one (venue facts §3.2.1).
 */
export const VENUE_USER_AGENT = 'contest-signals/1.0 (read-only market data)'

/**
 * A JSON body, or why there is none: `status` is the last HTTP status as a string, `timeout`,
 * `error` (network), `invalid_json` (a 2xx whose body is not JSON) or `aborted` (the caller gave up).
 */
export type JsonReply =
  | { ok: true; body: unknown }
  /** `body` is the error answer's JSON when it had one (the exchange status comes with a 503 too) */
  | { ok: false; status: string; code: string | null; message: string; body?: unknown }

export type JsonClientOptions = {
  /** e.g. `https://external-api.kalshi.com/trade-api/v2` */
  baseUrl: string
  /** the venue's name in logs */
  venue: string
  /** wall clock, for signing timestamps and pacing */
  clock: Clock
  logger: Logger
  telemetry?: VenueTelemetry
  signer?: RequestSigner
  /** per attempt; default 5 s */
  timeoutMs?: number
  /** attempts per call, the first included; default 4 */
  maxAttempts?: number
  /** default 250 ms doubling to at most 8 s */
  backoff?: BackoffOptions
  /** requests per second across the whole adapter (each venue states its own default and why) */
  maxRequestsPerSec?: number
  sleep?: Sleep
  /** for jitter; default Math.random */
  random?: () => number
}

export type JsonCallOptions = { signal?: AbortSignal; maxAttempts?: number }

/** `E` names the kinds of call, the telemetry's endpoint labels. */
export type JsonClient<E extends string = string> = {
  get(endpoint: E, path: string, query?: Record<string, string>, opts?: JsonCallOptions): Promise<JsonReply>
}

export const JSON_CLIENT_DEFAULTS = {
  timeoutMs: 5_000,
  maxAttempts: 4,
  backoff: { baseMs: 250, capMs: 8_000 },
  maxRequestsPerSec: 5,
} as const

/** A failed call as the venue gave it: `HTTP 451: <first words of the body>`, or `timeout`, `error: ECONNREFUSED …`. */
export function describeFailure(status: string, message: string): string {
  const words = message.trim().split(/\s+/).slice(0, 12).join(' ')
  const head = /^\d+$/.test(status) ? `HTTP ${status}` : status
  return words === '' ? head : `${head}: ${words}`
}

/** A `Retry-After` longer than this is waited only this long: a call never hangs for minutes. */
export const RETRY_AFTER_CAP_MS = 60_000

/** `Retry-After` (seconds, or an HTTP date) as milliseconds from `now`; null when absent or unreadable. */
export function retryAfterOf(header: string | null, now: number): number | null {
  if (header === null || header.trim() === '') return null
  const text = header.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  const at = Date.parse(text)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}

const defaultSleep: Sleep = (ms, signal) => delay(ms, undefined, { signal })

const isRetryable = (status: string): boolean =>
  status === 'timeout' || status === 'error' || status === '429' || /^5\d\d$/.test(status)

/** The venue's error body (`{code, message, details}`, or `{error}` on a 429) in a few words. */
function describeError(text: string): { code: string | null; message: string; body?: unknown } {
  try {
    const body: unknown = JSON.parse(text)
    if (typeof body === 'object' && body !== null) {
      const { code, message, details, error } = body as Record<string, unknown>
      const words = [message, details, error].filter((w) => typeof w === 'string' && w !== '')
      return {
        code: typeof code === 'string' ? code : null,
        message: words.length > 0 ? words.join(': ') : text.slice(0, 200),
        body,
      }
    }
  } catch {
    // not JSON: an HTML error page from a proxy or a geo-block, say; its first words are enough
  }
  return {
    code: null,
    message: text
      .replace(/<[^>]*>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 200),
  }
}

/** Why fetch failed, in the operator's terms: the system error code and address when there is one. */
function describeNetworkError(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; address?: unknown; port?: unknown; message?: unknown } })
    ?.cause
  if (cause && typeof cause.code === 'string') {
    const where =
      typeof cause.address === 'string' ? ` ${cause.address}${cause.port ? `:${cause.port}` : ''}` : ''
    return `${cause.code}${where}`
  }
  // a cause without a code (fetch's "bad port", an invalid URL) still says more than "fetch failed"
  const message = err instanceof Error ? err.message : String(err)
  return cause && typeof cause.message === 'string' && cause.message !== ''
    ? `${message}: ${cause.message}`
    : message
}

export function createJsonClient<E extends string>(opts: JsonClientOptions): JsonClient<E> {
  const timeoutMs = opts.timeoutMs ?? JSON_CLIENT_DEFAULTS.timeoutMs
  const defaultAttempts = opts.maxAttempts ?? JSON_CLIENT_DEFAULTS.maxAttempts
  const backoff = opts.backoff ?? JSON_CLIENT_DEFAULTS.backoff
  const sleep = opts.sleep ?? defaultSleep
  const random = opts.random ?? Math.random
  const pacer = createRequestPacer({
    perSecond: opts.maxRequestsPerSec ?? JSON_CLIENT_DEFAULTS.maxRequestsPerSec,
    clock: opts.clock,
    sleep,
  })
  // one per client, and each client talks to one host (Polymarket has one for Gamma, one for the CLOB)
  const hostBackoff = createHostBackoff({
    clock: opts.clock,
    sleep,
    backoff,
    random,
    retryAfterCapMs: RETRY_AFTER_CAP_MS,
  })
  const base = opts.baseUrl.replace(/\/+$/, '')

  /** `retryAfterMs`: what a 429 or 503's `Retry-After` header asked for, when it said */
  type Attempt = { status: string; text: string; retryAfterMs?: number }

  async function attempt(url: URL, endpoint: E, signal?: AbortSignal): Promise<Attempt> {
    const timeout = AbortSignal.timeout(timeoutMs)
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': VENUE_USER_AGENT,
      ...opts.signer?.('GET', url, opts.clock.now()),
    }
    const started = performance.now()
    let result: Attempt
    try {
      const res = await fetch(url, { headers, signal: signal ? AbortSignal.any([signal, timeout]) : timeout })
      const retryAfterMs = retryAfterOf(res.headers.get('retry-after'), opts.clock.now())
      result = {
        status: String(res.status),
        text: await res.text(),
        ...(retryAfterMs === null ? {} : { retryAfterMs }),
      }
    } catch (err) {
      if (signal?.aborted) return { status: 'aborted', text: '' }
      result = timeout.aborted
        ? { status: 'timeout', text: `no answer within ${timeoutMs} ms` }
        : { status: 'error', text: describeNetworkError(err) }
    }
    opts.telemetry?.request(endpoint, result.status, (performance.now() - started) / 1000)
    return result
  }

  return {
    async get(endpoint, path, query = {}, call = {}) {
      const url = new URL(base + path)
      for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v)
      const attempts = call.maxAttempts ?? defaultAttempts
      for (let n = 0; ; n++) {
        let reply: Attempt
        try {
          await hostBackoff.wait(call.signal)
          await pacer.acquire(call.signal)
          reply = await attempt(url, endpoint, call.signal)
        } catch {
          // only the pacer's sleep throws, and only when the caller aborted
          reply = { status: 'aborted', text: '' }
        }
        if (reply.status === 'aborted')
          return { ok: false, status: 'aborted', code: null, message: 'aborted' }
        hostBackoff.answered(reply.status, reply.retryAfterMs)
        if (/^2\d\d$/.test(reply.status)) {
          try {
            return { ok: true, body: JSON.parse(reply.text) }
          } catch {
            return { ok: false, status: 'invalid_json', code: null, message: reply.text.slice(0, 200) }
          }
        }
        const failure = {
          ok: false as const,
          status: reply.status,
          ...(/^\d+$/.test(reply.status) ? describeError(reply.text) : { code: null, message: reply.text }),
        }
        if (!isRetryable(reply.status) || n + 1 >= attempts) return failure
        // the venue's own word on when to come back beats our guess, up to a bound
        const waitMs = Math.max(
          retryDelayMs(n, backoff, random),
          Math.min(reply.retryAfterMs ?? 0, RETRY_AFTER_CAP_MS),
        )
        opts.telemetry?.retry(endpoint)
        opts.logger.debug(
          {
            venue: opts.venue,
            endpoint,
            path: url.pathname,
            status: reply.status,
            attempt: n + 1,
            retryInMs: waitMs,
          },
          `${opts.venue} request failed; retrying`,
        )
        try {
          await sleep(waitMs, call.signal)
        } catch {
          return { ok: false, status: 'aborted', code: null, message: 'aborted' }
        }
      }
    },
  }
}
