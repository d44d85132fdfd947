// Stream fan-out: N streams opened by a few client processes (stream-client.ts), each noting the wall
// time at which every event id reached each of its streams. For each live signal.emitted, the spread
// is the time from its first receipt to its last across all N streams. The same harness measures the
// service and the bare broadcaster (bare-broadcaster.ts), so their figures compare directly.
import { setTimeout as sleep } from 'node:timers/promises'
import { processTicks, TICK_MS } from './machine-load.ts'
import type { Helper } from './processes.ts'
import type { MemoryReading } from './service.ts'
import type { ClientReport, OpenOrder, Receipt } from './stream-client.ts'

export type FanoutSettings = {
  streams: number
  /** live signal.emitted events to collect once every stream is open */
  signals: number
  /** give up collecting after this long (the figures then cover fewer signals) */
  maxWaitMs: number
}

export type FanoutResult = {
  /** 'service' or 'bare' */
  side: string
  streams: number
  /** wall time to open every stream (status 200 received), slowest client process */
  openMs: number
  memory: { before: MemoryReading; open: MemoryReading; after: MemoryReading }
  /** VmRSS growth from before to open, ÷ streams */
  rssKiBPerStream: number | null
  /** growth of live heap + external memory from before to open, ÷ streams */
  liveKiBPerStream: number | null
  /** live signal.emitted events that reached every stream */
  signals: number
  /** admitted signals that some stream had still not received a second after the window closed */
  incompleteSignals: number
  /** streams that ended while open, by how (a stream-client's view); none in a sound round */
  lost: Record<string, number>
  lostStreams: number
  /** bytes of one signal.emitted frame (the bare broadcaster sends frames of this size) */
  frameBytes: number | null
  spreadP50Ms: number | null
  spreadP99Ms: number | null
  spreadMaxMs: number | null
  /** the client processes' own handler time per measured event, all streams together */
  clientMsPerEvent: number | null
  /**
   * the server process's CPU (user + system, all threads, from /proc) over the collecting window ÷
   * the events that reached the streams in it: everything the process did meanwhile, fan-out
   * included (the service also runs its engine); null off Linux
   */
  cpuMsPerEvent: number | null
  /** the same CPU as a share of one core over the window, % */
  cpuPctOfCore: number | null
}

export type FanoutTarget = {
  side: string
  url: string
  path: string
  key: string | null
  /** the server process, for its CPU time */
  pid: number
  memory(): Promise<MemoryReading>
}

/**
 * Every stream of a round connects to one server port, so each client address has only the kernel's
 * ephemeral ports (about 28,000 by default) for all of them, and the previous round's connections
 * hold theirs in TIME_WAIT for a minute after they close: 19,000 closed and 19,000 opening would not
 * fit. On Linux all of 127.0.0.0/8 is loopback, so each round and client process connects from an
 * address of its own (127.0.<round>.<process>), with a whole port range each. Elsewhere (macOS has
 * only 127.0.0.1 unless told otherwise) they share 127.0.0.1.
 */
let roundsOpened = 0
function localAddressFor(target: FanoutTarget, round: number, client: number): string | undefined {
  if (process.platform !== 'linux' || new URL(target.url).hostname !== '127.0.0.1') return undefined
  return `127.0.${1 + (round % 250)}.${1 + client}`
}

export async function measureFanout(
  target: FanoutTarget,
  settings: FanoutSettings,
  clients: Helper[],
): Promise<FanoutResult> {
  await sleep(500)
  const memBefore = await target.memory()
  const shares = clients.map(
    (_, i) => Math.floor(settings.streams / clients.length) + (i < settings.streams % clients.length ? 1 : 0),
  )
  const round = roundsOpened++
  const opened = await Promise.all(
    clients.map((c, i) =>
      c.ask<number>(
        {
          open: {
            url: target.url,
            path: target.path,
            key: target.key,
            count: shares[i]!,
            localAddress: localAddressFor(target, round, i),
          } satisfies OpenOrder,
        },
        'opened',
      ),
    ),
  )
  try {
    // Let every connect-time snapshot arrive before reading the memory.
    await sleep(1000)
    const memOpen = await target.memory()
    await Promise.all(clients.map((c) => c.ask({ admit: true }, 'admitted')))
    const windowStart = performance.now()
    const ticksBefore = processTicks(target.pid)
    const deadline = windowStart + settings.maxWaitMs
    for (;;) {
      const counts = await Promise.all(
        clients.map((c) => c.ask<Record<string, number>>({ counts: true }, 'counts')),
      )
      const total: Record<string, number> = {}
      for (const part of counts) for (const [id, n] of Object.entries(part)) total[id] = (total[id] ?? 0) + n
      const complete = Object.values(total).filter((n) => n >= settings.streams).length
      if (complete >= settings.signals || performance.now() > deadline) break
      await sleep(200)
    }
    await Promise.all(clients.map((c) => c.ask({ admit: false }, 'admitted')))
    const cpuMs = (processTicks(target.pid) - ticksBefore) * TICK_MS
    const windowMs = performance.now() - windowStart
    // Receipts of admitted events may still be on their way to the slowest streams.
    await sleep(1000)
    const reports = await Promise.all(clients.map((c) => c.ask<ClientReport>({ report: true }, 'report')))
    const memAfter = await target.memory()

    const merged = new Map<string, Receipt>()
    for (const r of reports) {
      for (const x of r.receipts) {
        const m = merged.get(x.id)
        if (!m) merged.set(x.id, { ...x })
        else {
          m.first = Math.min(m.first, x.first)
          m.last = Math.max(m.last, x.last)
          m.count += x.count
        }
      }
    }
    const signals = [...merged.values()].filter((r) => r.type === 'signal.emitted')
    const spreads = signals
      .filter((r) => r.count >= settings.streams)
      .map((r) => r.last - r.first)
      .sort((a, b) => a - b)
    const perStream = (a: number | null, b: number | null) =>
      a === null || b === null ? null : (b - a) / settings.streams
    const handlerMs = reports.reduce((n, r) => n + r.handlerMs, 0)
    const lost: Record<string, number> = {}
    for (const r of reports) for (const [how, n] of Object.entries(r.lost)) lost[how] = (lost[how] ?? 0) + n
    return {
      side: target.side,
      streams: settings.streams,
      openMs: Math.max(...opened),
      memory: { before: memBefore, open: memOpen, after: memAfter },
      rssKiBPerStream: perStream(memBefore.rssKiB, memOpen.rssKiB),
      liveKiBPerStream: perStream(memBefore.liveKiB, memOpen.liveKiB),
      signals: spreads.length,
      incompleteSignals: signals.length - spreads.length,
      lost,
      lostStreams: Object.values(lost).reduce((a, b) => a + b, 0),
      frameBytes: signals[0]?.frameBytes ?? null,
      spreadP50Ms: percentile(spreads, 50),
      spreadP99Ms: percentile(spreads, 99),
      spreadMaxMs: spreads.at(-1) ?? null,
      clientMsPerEvent: merged.size > 0 ? handlerMs / merged.size : null,
      cpuMsPerEvent: process.platform === 'linux' && merged.size > 0 ? cpuMs / merged.size : null,
      cpuPctOfCore: process.platform === 'linux' ? (cpuMs / windowMs) * 100 : null,
    }
  } finally {
    await Promise.all(clients.map((c) => c.ask({ closeAll: true }, 'closed')))
    // Let the server notice the disconnects before the next round reads its memory.
    await sleep(1000)
  }
}

/** Nearest-rank percentile of sorted values; null when there are none. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? null
}
