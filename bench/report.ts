// The benchmark's figures: their shape in results/latest.json and the tables printed at the end of a run.
import { BUSY_PCT } from './machine-load.ts'
import type { FanoutResult } from './stream-fanout.ts'

/** One side (the service or the bare server) of a request kind, over the counted rounds. */
export type SideFigure = {
  reqPerSec: number
  /** req/s of each counted round */
  rounds: number[]
  p50Ms: number
  p99Ms: number
  unexpected: number
}

export type HttpFigure = {
  name: string
  path: string
  /** the least ratio to bare this kind must reach in its configuration; null: no target */
  target: number | null
  status: number
  bodyBytes: number
  /** header bytes as captured (Date, Connection, Keep-Alive aside), replayed by the bare server */
  headerBytes: number
  contentEncoding: string | null
  service: SideFigure
  bare: SideFigure
  /** median over rounds of the service's req/s ÷ the bare server's in the same pair */
  ratio: number
  ratioMin: number
  ratioMax: number
  ratios: number[]
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
    connections: number
    rounds: number
    /** seconds of each side of an HTTP pair */
    runS: number
    /** the sides of a pair take turns in slices this long */
    sliceMs: number
    streams: number[]
    signalsPerRound: number
    service: Record<string, string>
  }
  /** one per service configuration; null when BENCH_ONLY=stream */
  http: HttpReport[] | null
  /** null when BENCH_ONLY=http */
  stream: {
    simSpeed: number
    clientProcesses: number
    /** CPU share (of all cores) used by other processes during the stream rounds, %; null off Linux */
    otherCpuPct: number | null
    rounds: FanoutResult[]
    serviceWarnings: string[]
  } | null
}

export type HttpReport = {
  /** which configuration of the service: the defaults, or LOG_LEVEL=warn */
  configuration: string
  env: Record<string, string>
  /** access-log bytes written per second of load on the service (the defaults); null otherwise */
  logBytesPerSecond: number | null
  clientProcesses: number
  connections: number
  forwardedPool: number
  runS: number
  sliceMs: number
  /** CPU share (of all cores) used by other processes during each round, %; null off Linux */
  otherCpuPct: (number | null)[]
  /** every round run; figures come from the counted ones */
  rounds: { otherCpuPct: number | null; counted: boolean }[]
  scenarios: HttpFigure[]
}

const sliceText = (h: HttpReport) =>
  h.sliceMs >= h.runS * 1000 ? 'one whole run each' : `${h.sliceMs} ms slices (ABBA order)`

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

function formatHttp(h: HttpReport): string[] {
  const counted = h.rounds.filter((x) => x.counted)
  const busy = counted.some((x) => x.otherCpuPct !== null && x.otherCpuPct > BUSY_PCT)
  const rows = h.scenarios.map((s) => [
    `${s.name}${s.target !== null ? ` (≥ ${s.target.toFixed(2)})` : ''}`,
    s.status,
    `${bytes(s.bodyBytes)}${s.contentEncoding ? ` ${s.contentEncoding}` : ''}`,
    Math.round(s.service.reqPerSec),
    Math.round(s.bare.reqPerSec),
    fixed(s.service.p50Ms, 2),
    fixed(s.service.p99Ms, 2),
    fixed(s.bare.p99Ms, 2),
    fixed(s.ratio, 2),
    `${s.ratioMin.toFixed(2)}–${s.ratioMax.toFixed(2)}`,
  ])
  return [
    `HTTP, ${h.configuration}${h.logBytesPerSecond !== null ? `: ${(h.logBytesPerSecond / 1024 / 1024).toFixed(1)} MiB of access log per second of load` : ''}`,
    `${h.clientProcesses} load-client processes (wrk-like), ${h.connections} connections, X-Forwarded-For from a pool of ${h.forwardedPool} addresses; ${h.runS} s a side in each pair, service and bare taking turns in ${sliceText(h)}`,
    'bare = node:http replaying the exact status, headers and body the service sent for that request',
    `rounds counted: ${counted.length} of ${h.rounds.length}; CPU used by other processes per round: ${h.rounds.map((x) => pct(x.otherCpuPct)).join(', ')}${busyNote(busy)}`,
    'ratio = median over counted rounds of service req/s ÷ bare req/s in the same interleaved pair; (≥ x) = the target ratio',
    '',
    table(
      [
        'request',
        'status',
        'body',
        'svc req/s',
        'bare req/s',
        'svc p50 ms',
        'svc p99 ms',
        'bare p99 ms',
        'ratio',
        'ratio range',
      ],
      rows,
    ),
    '',
  ]
}

function formatStream(s: NonNullable<BenchReport['stream']>): string[] {
  const busy = s.otherCpuPct !== null && s.otherCpuPct > BUSY_PCT
  const head = [
    'streams',
    'side',
    'open ms',
    'RSS MiB before → open',
    'RSS KiB/stream',
    'live KiB/stream',
    'signals',
    'spread p50 ms',
    'spread p99 ms',
    'CPU ms/event',
    'CPU % of a core',
    'p99 ÷ bare',
    'live mem ÷ bare',
    'CPU/event ÷ bare',
  ]
  const bareOf = (f: FanoutResult) => s.rounds.find((b) => b.side === 'bare' && b.streams === f.streams)
  const ratio = (a: number | null, b: number | null | undefined) =>
    a === null || b === null || b === undefined || b <= 0 ? null : (a / b).toFixed(2)
  const rows = s.rounds.map((f) => {
    const bare = f.side === 'service' ? bareOf(f) : undefined
    return [
      f.streams,
      f.side,
      Math.round(f.openMs),
      `${mib(f.memory.before.rssKiB) ?? '?'} → ${mib(f.memory.open.rssKiB) ?? '?'}`,
      fixed(f.rssKiBPerStream, 1),
      fixed(f.liveKiBPerStream, 1),
      `${f.signals}${f.incompleteSignals > 0 ? ` (+${f.incompleteSignals} incomplete)` : ''}${f.lostStreams > 0 ? ` (${f.lostStreams} streams lost)` : ''}`,
      fixed(f.spreadP50Ms, 2),
      fixed(f.spreadP99Ms, 2),
      fixed(f.cpuMsPerEvent, 1),
      fixed(f.cpuPctOfCore, 0),
      bare ? ratio(f.spreadP99Ms, bare.spreadP99Ms) : null,
      bare ? ratio(f.liveKiBPerStream, bare.liveKiBPerStream) : null,
      bare ? ratio(f.cpuMsPerEvent, bare.cpuMsPerEvent) : null,
    ]
  })
  return [
    `Stream fan-out: SIM_SPEED=${s.simSpeed}; ${s.clientProcesses} client processes; spread = first to last receipt of one live signal.emitted across all streams (wall clock)`,
    'bare = node:http writing one frame of the same size once a second to the same number of clients; targets: p99 ÷ bare ≤ 1.25, live mem ÷ bare ≤ 1.2',
    "CPU ms/event = the server process's CPU (user + system, /proc) over the collecting window ÷ the events that reached the streams in it (the service's includes its engine and every event type; bare sends one a second)",
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
    ...(r.http ? r.http.flatMap(formatHttp) : []),
    ...(r.stream ? formatStream(r.stream) : []),
  ].join('\n')
}
