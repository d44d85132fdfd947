// HTTP throughput of one request shape under autocannon (fixed connections and duration), with latency
// recorded at microsecond resolution and a count of every answer that was not the expected status.
import { createRequire } from 'node:module'
import type { RecordableHistogram } from 'node:perf_hooks'
import autocannon, { type RequestSpec } from 'autocannon'
import { rawRequest } from '../test/support/raw-request.ts'

export type HttpScenario = {
  name: string
  path: string
  expectStatus: number
  /** resolved before each run, so a value that can go stale (an ETag) is read fresh */
  headers(): Promise<Record<string, string>>
}

export type LoadSettings = { connections: number; durationS: number }

export type LoadResult = {
  requests: number
  durationS: number
  reqPerSec: number
  /** answers with another status than the scenario expects, plus connection errors and timeouts */
  unexpected: number
  statusCounts: Record<string, number>
}

export type BodyProbe = { status: number; bodyBytes: number; contentEncoding: string | null }

/** One request as a client sees it on the wire: status, body bytes as sent (compressed if it was). */
export async function probeBody(baseUrl: string, scenario: HttpScenario): Promise<BodyProbe> {
  const res = await rawRequest(`${baseUrl}${scenario.path}`, { headers: await scenario.headers() })
  const encoding = res.headers['content-encoding']
  return {
    status: res.status,
    bodyBytes: res.body.length,
    contentEncoding: typeof encoding === 'string' ? encoding : null,
  }
}

/** Loads one scenario; latencies go to `latencyUs` in microseconds (autocannon's own histogram has 1 ms resolution). */
export async function runLoad(
  baseUrl: string,
  scenario: HttpScenario,
  settings: LoadSettings,
  latencyUs: RecordableHistogram,
): Promise<LoadResult> {
  const headers = await scenario.headers()
  const statusCounts: Record<string, number> = {}
  let responses = 0
  let unexpected = 0
  const instance = autocannon({
    url: `${baseUrl}${scenario.path}`,
    connections: settings.connections,
    duration: settings.durationS,
    headers,
    timeout: 10,
  })
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    responses++
    statusCounts[statusCode] = (statusCounts[statusCode] ?? 0) + 1
    if (statusCode !== scenario.expectStatus) unexpected++
    latencyUs.record(Math.max(1, Math.round(responseTime * 1000)))
  })
  const result = await instance
  return {
    requests: responses,
    durationS: result.duration,
    reqPerSec: responses / result.duration,
    unexpected: unexpected + result.errors + result.timeouts,
    statusCounts,
  }
}

/** Runs every scenario round-robin on each connection for a short while: JIT, caches, compressed variants. */
export async function warmUp(
  baseUrl: string,
  scenarios: HttpScenario[],
  settings: LoadSettings,
): Promise<void> {
  const requests: RequestSpec[] = []
  for (const s of scenarios) requests.push({ method: 'GET', path: s.path, headers: await s.headers() })
  await autocannon({
    url: baseUrl,
    connections: settings.connections,
    duration: settings.durationS,
    requests,
    timeout: 10,
  })
}

/**
 * autocannon appends every response body to a string, for body checks this benchmark does not use.
 * Decoding binary bytes (a br or gzip body) as UTF-8 costs it several times more than ASCII JSON, so
 * with client and service sharing two cores the client, not the service, set the pace of compressed
 * runs (the service sat 75% idle). Counting bytes only keeps the client's cost independent of what a
 * body holds. Returns false, changing nothing, if autocannon's internals have moved.
 */
export function skipBodyDecoding(): boolean {
  try {
    const queue = createRequire(import.meta.url)('autocannon/lib/pipelinedRequestsQueue.js') as {
      prototype: { addBody?: unknown }
    }
    if (typeof queue.prototype.addBody !== 'function') return false
    queue.prototype.addBody = () => undefined
    return true
  } catch {
    return false
  }
}
