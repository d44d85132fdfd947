// The benchmark's figures: their shape in results/latest.json and the tables printed at the end of a run.
import { BUSY_PCT } from './machine-load.ts'
import type { FanoutResult } from './stream-fanout.ts'

export type HttpFigure = {
  name: string
  path: string
  status: number
  bodyBytes: number
  contentEncoding: string | null
  requests: number
  reqPerSec: number
  p50Ms: number
  p99Ms: number
  /** median over rounds of req/s ÷ the mean req/s of the baseline runs just before and after */
  ratio: number
  ratioMin: number
  ratioMax: number
  /** req/s of each round */
  rounds: number[]
  unexpected: number
  statusCounts: Record<string, number>
}

export type BenchReport = {
  date: string
  commit: string | null
  /** the working tree had uncommitted changes when the run started */
  dirty: boolean | null
  machine: {
    cpus: number
    cpuModel: string
    totalMemMiB: number
    platform: string
    release: string
    node: string
    /** other work on the machine skews every figure; ratios less so */
    loadAverage1m: { before: number; after: number }
  }
  settings: {
    durationS: number
    connections: number
    rounds: number
    /** seconds of each single load run */
    runS: number
    /** false when the benchmark turned off autocannon's decoding of response bodies (see http-load.ts) */
    autocannonBodyDecoding: boolean
    streams: number[]
    signalsPerRound: number
    service: Record<string, string>
  }
  /** null when BENCH_ONLY=stream */
  http: {
    /** name of the scenario every ratio divides by; it is the first of `scenarios` */
    baseline: string
    historyPageContests: number
    /** CPU share (of all cores) used by other processes during the HTTP rounds, %; null off Linux */
    otherCpuPct: number | null
    /** every round run; figures come from the counted ones */
    rounds: { otherCpuPct: number | null; counted: boolean }[]
    scenarios: HttpFigure[]
  } | null
  /** null when BENCH_ONLY=http */
  stream: {
    simSpeed: number
    /** CPU share (of all cores) used by other processes during the stream rounds, %; null off Linux */
    otherCpuPct: number | null
    rounds: FanoutResult[]
    serviceWarnings: string[]
  } | null
}

type Cell = string | number | null

function table(head: string[], rows: Cell[][]): string {
  const text = rows.map((row) => row.map((c) => (c === null ? '–' : String(c))))
  const widths = head.map((h, i) => Math.max(h.length, ...text.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[], numeric: boolean) =>
    cells
      .map((c, i) => (numeric && i > 0 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd()
  return [
    line(head, false),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...text.map((r) => line(r, true)),
  ].join('\n')
}

const fixed = (n: number | null, digits: number): string | null => (n === null ? null : n.toFixed(digits))
const bytes = (n: number): string => (n >= 10_240 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`)
const mib = (kib: number | null): string | null => (kib === null ? null : (kib / 1024).toFixed(1))

const pct = (n: number | null) => (n === null ? '?' : `${n.toFixed(0)}%`)
const busyNote = (busy: boolean) => (busy ? ': the machine was busy, these figures are not comparable' : '')

function formatHttp(r: BenchReport, h: NonNullable<BenchReport['http']>): string[] {
  const base = h.scenarios[0]!
  const counted = h.rounds.filter((x) => x.counted)
  const busy = counted.some((x) => x.otherCpuPct !== null && x.otherCpuPct > BUSY_PCT)
  const rows = h.scenarios.map((s) => [
    s.name,
    s.status,
    `${bytes(s.bodyBytes)}${s.contentEncoding ? ` ${s.contentEncoding}` : ''}`,
    Math.round(s.reqPerSec),
    fixed(s.p50Ms, 2),
    fixed(s.p99Ms, 2),
    fixed(s.ratio, 2),
    `${s.ratioMin.toFixed(2)}–${s.ratioMax.toFixed(2)}`,
  ])
  return [
    `HTTP: autocannon, ${r.settings.connections} connections; each round runs every request kind for ${r.settings.runS} s between two ${h.baseline} runs; the history page holds ${h.historyPageContests} contests`,
    `rounds counted: ${counted.length} of ${h.rounds.length}; CPU used by other processes per round: ${h.rounds.map((x) => pct(x.otherCpuPct)).join(', ')}${busyNote(busy)}`,
    `ratio = median over counted rounds of req/s ÷ the mean of the two baseline runs around it (baseline per round: ${base.rounds.map((n) => Math.round(n)).join(', ')} req/s)`,
    '',
    table(['request', 'status', 'body', 'req/s', 'p50 ms', 'p99 ms', 'ratio', 'ratio range'], rows),
    '',
  ]
}

function formatStream(s: NonNullable<BenchReport['stream']>): string[] {
  const busy = s.otherCpuPct !== null && s.otherCpuPct > BUSY_PCT
  const head = [
    'streams',
    'open ms',
    'RSS MiB before → open',
    'RSS KiB/stream',
    'live KiB/stream',
    'signals',
    'spread p50 ms',
    'spread p99 ms',
    'max ms',
  ]
  const rows = s.rounds.map((f) => [
    f.streams,
    Math.round(f.openMs),
    `${mib(f.memory.before.rssKiB) ?? '?'} → ${mib(f.memory.open.rssKiB) ?? '?'}`,
    fixed(f.rssKiBPerStream, 1),
    fixed(f.liveKiBPerStream, 1),
    f.incompleteSignals > 0 ? `${f.signals} (+${f.incompleteSignals} incomplete)` : f.signals,
    fixed(f.spreadP50Ms, 2),
    fixed(f.spreadP99Ms, 2),
    fixed(f.spreadMaxMs, 2),
  ])
  return [
    `Stream fan-out: SIM_SPEED=${s.simSpeed}; spread = first to last receipt of one live signal.emitted across all streams (wall clock)`,
    `CPU used by other processes meanwhile: ${pct(s.otherCpuPct)}${busyNote(busy)}`,
    '',
    table(head, rows),
    ...(s.serviceWarnings.length > 0
      ? ['', `service warnings during the stream rounds: ${s.serviceWarnings.length}`]
      : []),
    '',
  ]
}

export function formatReport(r: BenchReport): string {
  const m = r.machine
  return [
    `contest-signals bench  ${r.date}  commit ${r.commit?.slice(0, 12) ?? 'unknown'}${r.dirty ? ' (dirty tree)' : ''}`,
    `${m.cpus} × ${m.cpuModel}, ${Math.round(m.totalMemMiB / 1024)} GiB, ${m.platform} ${m.release}, node ${m.node}, load average ${m.loadAverage1m.before.toFixed(2)} at start`,
    '',
    ...(r.http ? formatHttp(r, r.http) : []),
    ...(r.stream ? formatStream(r.stream) : []),
  ].join('\n')
}
