// The operator's kit in deploy/: the Prometheus alert rules pass promtool's check and their own unit
// tests, and every metric the rules and the Grafana dashboard query is one the service exports.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'
import { createMetrics } from '../src/metrics/metrics.ts'
import { REPO_ROOT } from './support/service-process.ts'

const RULES = path.join(REPO_ROOT, 'deploy/prometheus/alerts.yml')
const DASHBOARD = path.join(REPO_ROOT, 'deploy/grafana/contest-signals.json')

/** Every metric a process can export, with each gauge's source wired (no role left out). */
async function exportedNames(): Promise<Set<string>> {
  const metrics = createMetrics({ build: { version: '0', model: 'm' } })
  metrics.watchStreams(() => 0)
  metrics.watchEngine(() => true)
  metrics.watchStore(
    async () => ({ reachable: true, engineHeartbeat: 0 }),
    () => 0,
  )
  metrics.watchRedis(() => 'ok')
  metrics.watchFeeds(
    () => [],
    () => [],
    () => 0,
    () => 0,
  )
  metrics.venueTelemetry('kalshi')
  const names = new Set<string>()
  for (const m of await metrics.registry.getMetricsAsJSON()) {
    names.add(m.name)
    if (String(m.type) === 'histogram')
      for (const suffix of ['_bucket', '_count', '_sum']) names.add(m.name + suffix)
  }
  return names
}

const queried = (expr: string): string[] => expr.match(/\bcs_[a-z_]+/g) ?? []

describe('deploy/', () => {
  it('alert rules pass promtool check rules and promtool test rules', () => {
    const checked = execFileSync('promtool', ['check', 'rules', RULES], { encoding: 'utf8' })
    assert.match(checked, /SUCCESS: \d+ rules found/)
    const tested = execFileSync('promtool', ['test', 'rules', 'alerts.test.yml'], {
      cwd: path.dirname(RULES),
      encoding: 'utf8',
    })
    assert.match(tested, /SUCCESS/)
  })

  it('the alert rules and the Grafana dashboard query only metrics the service exports', async () => {
    const names = await exportedNames()
    const rules = [...readFileSync(RULES, 'utf8').matchAll(/^\s+expr: (.+)$/gm)].map((m) => m[1]!)
    assert.ok(rules.length >= 10)
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
      panels: { title: string; targets: { expr: string }[] }[]
    }
    assert.ok(dashboard.panels.length >= 10)
    const exprs = [...rules, ...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr))]
    for (const expr of exprs) {
      assert.ok(queried(expr).length > 0, expr)
      for (const name of queried(expr)) assert.ok(names.has(name), `${name} in ${expr}`)
    }
    // the latency histogram and the build info are graphed
    assert.ok(exprs.some((e) => e.includes('cs_http_request_duration_seconds_bucket')))
    assert.ok(exprs.some((e) => e.includes('cs_build_info')))
  })
})
