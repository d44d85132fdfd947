// The operator's kit in deploy/: the Prometheus alert rules pass promtool's check and their own unit
// tests, every metric the rules and the Grafana dashboard query is one the service exports, the rules'
// tests feed real series, and src/metrics/README.md's table is the exported families, types and labels.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'
import type { Registry } from 'prom-client'
import { parse } from 'yaml'
import { createMetrics } from '../src/metrics/metrics.ts'
import { REPO_ROOT } from './support/service-process.ts'

const RULES = path.join(REPO_ROOT, 'deploy/prometheus/alerts.yml')
const DASHBOARD = path.join(REPO_ROOT, 'deploy/grafana/contest-signals.json')
const RULE_TESTS = path.join(REPO_ROOT, 'deploy/prometheus/alerts.test.yml')
const METRICS_README = path.join(REPO_ROOT, 'src/metrics/README.md')

/** Every metric a process can export, with each gauge's source wired (no role left out). */
function everyFamily(): Registry {
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
  return metrics.registry
}

/** Each exported cs_ family: its type and label names (Prometheus adds `instance` and `job` on scrape). */
async function exportedFamilies(): Promise<Map<string, { type: string; labels: string[] }>> {
  const registry = everyFamily()
  const families = new Map<string, { type: string; labels: string[] }>()
  for (const m of await registry.getMetricsAsJSON())
    if (m.name.startsWith('cs_')) {
      const metric = registry.getSingleMetric(m.name) as unknown as { labelNames?: string[] }
      families.set(m.name, { type: String(m.type), labels: [...(metric.labelNames ?? [])] })
    }
  return families
}

async function exportedNames(): Promise<Set<string>> {
  const names = new Set<string>()
  for (const m of await everyFamily().getMetricsAsJSON()) {
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

  it('the promtool tests feed series the service exports, with labels it sets', async () => {
    const families = await exportedFamilies()
    const tests = parse(readFileSync(RULE_TESTS, 'utf8')) as {
      tests: { input_series: { series: string }[] }[]
    }
    const series = tests.tests.flatMap((t) => t.input_series.map((i) => i.series))
    assert.ok(series.length > 0)
    for (const one of series) {
      const [, name, labels] = /^([a-z_]+)(?:\{(.*)\})?$/.exec(one) ?? []
      const family = families.get(name ?? '')
      assert.ok(family, `${one}: no such family`)
      for (const [, label] of (labels ?? '').matchAll(/([a-z_]+)="/g))
        assert.ok(['instance', 'job', ...family.labels].includes(label!), `${one}: no label ${label}`)
    }
  })

  it('src/metrics/README.md names every exported family with its type and labels, and no other', async () => {
    const families = await exportedFamilies()
    const rows = new Map<string, { type: string; labels: string[] }>()
    for (const [, name, type, labels] of readFileSync(METRICS_README, 'utf8').matchAll(
      /^\| `(cs_[a-z_]+)`\s*\| (\w+)\s*\|([^|]*)\|/gm,
    ))
      rows.set(name!, { type: type!, labels: [...labels!.matchAll(/`([a-z_]+)`/g)].map((l) => l[1]!) })
    assert.deepEqual([...rows.keys()].sort(), [...families.keys()].sort())
    for (const [name, family] of families) assert.deepEqual(rows.get(name), family, name)
  })
})
