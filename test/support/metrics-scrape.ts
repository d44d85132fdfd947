// Reading the real CLI's Prometheus metrics in tests: where it serves them (from its log) and one
// sample of the exposition text.
import assert from 'node:assert/strict'
import type { ServiceProcess } from './service-process.ts'
import { waitFor } from './wait.ts'

/** One sample of the exposition text; labels not named are ignored. Undefined when absent. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!m || m[1] !== name) continue
    const got = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]),
    )
    if (Object.entries(labels).every(([k, v]) => got[k] === v))
      return m[3] === '+Inf' ? Infinity : Number(m[3])
  }
  return undefined
}

/** The URL from the process's 'metrics listening' log line; fails with its output if it exits first. */
export async function metricsUrlOf(service: ServiceProcess): Promise<string> {
  let exited = false
  void service.exited.then(() => {
    exited = true
  })
  const found = await waitFor('the "metrics listening" log line', () => {
    for (const line of service.stdout().split('\n')) {
      if (!line.startsWith('{')) continue
      const entry = JSON.parse(line) as { msg?: string; url?: string }
      if (entry.msg === 'metrics listening') return entry.url
    }
    return exited ? null : undefined
  })
  if (found === null || found === undefined) {
    throw new Error(`process exited before serving metrics: ${service.stderr()}${service.stdout()}`)
  }
  return found
}

export async function scrape(url: string): Promise<string> {
  const res = await fetch(url)
  assert.equal(res.status, 200)
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/)
  return res.text()
}

/** The names of the metric families the exposition text declares (its `# TYPE` lines). */
export function families(text: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!)
}
