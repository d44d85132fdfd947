// What a client is configured with, and the defaults filled in once.
import { type Sleep, sleep } from './waits.ts'

export type RateLimitedInfo = {
  /** 0 for the first retry */
  attempt: number
  waitMs: number
  /** what the service asked (Retry-After), null when it gave none */
  retryAfterS: number | null
}

export type ClientOptions = {
  /** where the service answers, e.g. https://signals.example.com (no trailing /v1) */
  baseUrl: string
  /** an API key: sent as `Authorization: Bearer <key>` */
  apiKey: string
  /** retries of a request refused with 429 before ApiError is thrown (default 3) */
  maxRetries?: number
  /**
   * the longest single wait of a request, ms (default 60 000): a 429 asking for longer is thrown at
   * once as ApiError with its retryAfterS (the stream waits whatever it is asked)
   */
  maxWaitMs?: number
  /** told before each wait for a 429 */
  onRateLimited?: (info: RateLimitedInfo) => void
  /** a fetch to use instead of the global one */
  fetch?: typeof fetch
  /** a sleep to use instead of setTimeout (tests) */
  sleep?: Sleep
}

export type Settings = Required<Omit<ClientOptions, 'onRateLimited'>> & Pick<ClientOptions, 'onRateLimited'>

export function settingsOf(options: ClientOptions): Settings {
  if (!/^https?:\/\//.test(options.baseUrl)) throw new TypeError('baseUrl must be an http(s) URL')
  if (options.apiKey === '') throw new TypeError('apiKey is empty')
  return {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    apiKey: options.apiKey,
    maxRetries: options.maxRetries ?? 3,
    maxWaitMs: options.maxWaitMs ?? 60_000,
    onRateLimited: options.onRateLimited,
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    sleep: options.sleep ?? sleep,
  }
}

/** The base wait of the exponential backoff, doubled per retry. */
export const BACKOFF_BASE_MS = 500
