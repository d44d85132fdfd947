// The importer's HTTP: one paced JSON client per host (the shared venue client, so timeouts, retries
// of 429/5xx with backoff and Retry-After are the adapters' own), counting requests and retries for
// the summary, and turning any answer the importer cannot use into one HistoryError that names the
// endpoint — the command prints it as its one line and writes no half day.

import { createJsonClient, describeFailure, type JsonClient } from '../feeds/venue-http/json-client.ts'
import type { Sleep } from '../feeds/venue-http/request-pacer.ts'
import type { Clock } from '../ports/clock.ts'
import type { Logger } from '../ports/logger.ts'

/** A venue answer the import cannot use: `where` is the endpoint (method and path). */
export class HistoryError extends Error {
  readonly where: string
  constructor(where: string, problem: string) {
    super(`${where}: ${problem}`)
    this.name = 'HistoryError'
    this.where = where
  }
}

/** Requests sent (every attempt) and retries, over every host of one run. */
export type HttpCounts = { requests: number; retries: number }

export type HistoryHost = {
  /** The JSON body of `GET path?query`, or null on a 404 when `absentOk`; anything else unusable throws. */
  get(path: string, query?: Record<string, string>, opts?: { absentOk?: boolean }): Promise<unknown>
}

export type HistoryHostOptions = {
  /** the host's name in messages: `kalshi`, `coinbase`, … */
  name: string
  baseUrl: string
  /** the pace this host is held to: under its documented public limit (docs/history-import.md) */
  perSecond: number
  counts: HttpCounts
  logger: Logger
  /** paces the host's requests and times its retries */
  clock: Clock
  sleep?: Sleep
}

/** History calls are few and not urgent: more patience than a live poll's. */
const HISTORY_HTTP = { timeoutMs: 20_000, maxAttempts: 6, backoff: { baseMs: 500, capMs: 15_000 } } as const

export function createHistoryHost(opts: HistoryHostOptions): HistoryHost {
  const client: JsonClient<string> = createJsonClient<string>({
    baseUrl: opts.baseUrl,
    venue: opts.name,
    clock: opts.clock,
    logger: opts.logger,
    maxRequestsPerSec: opts.perSecond,
    ...HISTORY_HTTP,
    ...(opts.sleep ? { sleep: opts.sleep } : {}),
    telemetry: {
      request: () => {
        opts.counts.requests++
      },
      retry: () => {
        opts.counts.retries++
      },
    },
  })
  return {
    async get(path, query = {}, call = {}) {
      const where = `${opts.name} GET ${path}`
      const reply = await client.get(path, path, query)
      if (reply.ok) return reply.body
      if (reply.status === '404' && call.absentOk) return null
      if (reply.status === 'invalid_json') throw new HistoryError(where, 'the answer is not JSON')
      throw new HistoryError(where, describeFailure(reply.status, reply.message))
    },
  }
}
