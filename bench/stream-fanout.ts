// Stream fan-out: N plain HTTP clients on /v1/stream/contests, each splitting its bytes into SSE frames
// and noting the wall time (performance.now) at which every event id reached it. For each live
// signal.emitted, the spread is the time from its first receipt to its last across all N clients.
// raised_at is on the service's virtual clock, so it is never compared with these wall times.
import { type ClientRequest, get } from 'node:http'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import type { MemoryReading } from './service.ts'

export type FanoutSettings = {
  streams: number
  /** live signal.emitted events to collect once every stream is open */
  signals: number
  /** give up collecting after this long (the figures then cover fewer signals) */
  maxWaitMs: number
}

export type FanoutResult = {
  streams: number
  /** wall time to open every stream (status 200 received) */
  openMs: number
  /**
   * The service's memory, each read after a full GC: before opening, a second after the last stream
   * opened, and at the end of the window (streams still open).
   */
  memory: { before: MemoryReading; open: MemoryReading; after: MemoryReading }
  /** VmRSS growth from before to open, ÷ streams */
  rssKiBPerStream: number | null
  /** growth of live heap + external memory from before to open, ÷ streams */
  liveKiBPerStream: number | null
  /** live signal.emitted events that reached every stream */
  signals: number
  /** admitted live signals that some stream had still not received a second after the window closed */
  incompleteSignals: number
  spreadP50Ms: number | null
  spreadP99Ms: number | null
  spreadMaxMs: number | null
  /** receipts of any other event type, all streams together, while measuring */
  otherEvents: number
  /**
   * This process's time in its data handlers per measured event, all streams together: the share
   * of a spread that is the client's own work (one thread reading every stream) rather than the service's.
   */
  clientMsPerEvent: number | null
}

type Target = { url: string; key: string; series: string; memory(): Promise<MemoryReading> }

type Receipt = { type: string; first: number; last: number; count: number }

/**
 * Receipt times per event id, from every stream. Ids first seen before open() (connect-time snapshots,
 * or a live event that was half delivered when the window opened) are left out for good.
 */
function createRecorder() {
  const receipts = new Map<string, Receipt>()
  const excluded = new Set<string>()
  let accepting = false
  let recording = true
  let handlerMs = 0
  return {
    /** time this process spent splitting and noting frames, counted while the window is open */
    addHandlerTime(ms: number): void {
      if (accepting) handlerMs += ms
    },
    handlerMs: () => handlerMs,
    record(id: string, type: string, at: number): void {
      if (!recording || excluded.has(id)) return
      const seen = receipts.get(id)
      if (seen) {
        seen.count++
        if (at > seen.last) seen.last = at
      } else if (accepting) receipts.set(id, { type, first: at, last: at, count: 1 })
      else excluded.add(id)
    },
    /** Events first seen from now on are measured. */
    open(): void {
      accepting = true
    },
    /** Stops admitting new events; receipts of admitted ones still count. */
    stopAccepting(): void {
      accepting = false
    },
    stopRecording(): void {
      recording = false
    },
    receipts: () => [...receipts.values()],
  }
}

type Recorder = ReturnType<typeof createRecorder>

/** Opens one stream and feeds its frames to the recorder; resolves once the 200 has arrived. */
function openStream(target: Target, recorder: Recorder): Promise<ClientRequest> {
  const url = new URL(`/v1/stream/contests?series=${encodeURIComponent(target.series)}`, target.url)
  return new Promise((resolve, reject) => {
    const req = get(
      url,
      { agent: false, headers: { Accept: 'text/event-stream', Authorization: `Bearer ${target.key}` } },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume()
          reject(new Error(`stream answered ${res.statusCode}`))
          return
        }
        // Bytes, not text: only the two header lines of a frame are decoded, so the client's share
        // of a spread stays small next to the service's.
        let pending: Buffer | null = null
        res.on('data', (chunk: Buffer) => {
          const at = performance.now()
          let buf = pending ? Buffer.concat([pending, chunk]) : chunk
          let end = buf.indexOf('\n\n')
          while (end !== -1) {
            const frame = headerFields(buf, end)
            if (frame) recorder.record(frame.id, frame.type, at)
            buf = buf.subarray(end + 2)
            end = buf.indexOf('\n\n')
          }
          pending = buf.length > 0 ? buf : null
          recorder.addHandlerTime(performance.now() - at)
        })
        res.on('error', () => undefined)
        resolve(req)
      },
    )
    req.on('error', reject)
  })
}

/**
 * `event` and `id` of a frame ending at `end`, or null for other frames (retry, comments). The server
 * writes them as the first two lines; the id is a key here, never parsed.
 */
function headerFields(buf: Buffer, end: number): { type: string; id: string } | null {
  const first = buf.indexOf(10, 0)
  const second = first === -1 ? -1 : buf.indexOf(10, first + 1)
  if (first === -1 || second === -1 || second > end) return null
  const eventLine = buf.toString('latin1', 0, first)
  const idLine = buf.toString('latin1', first + 1, second)
  if (!eventLine.startsWith('event: ') || !idLine.startsWith('id: ')) return null
  return { type: eventLine.slice(7), id: idLine.slice(4) }
}

async function openAll(target: Target, count: number, recorder: Recorder): Promise<ClientRequest[]> {
  const opened: ClientRequest[] = []
  // A few dozen connects at a time: a burst of 1000 SYNs would overflow the listen backlog and
  // measure the kernel's retransmit timer instead of the service.
  const batch = 50
  try {
    for (let i = 0; i < count; i += batch) {
      const n = Math.min(batch, count - i)
      const reqs = await Promise.all(Array.from({ length: n }, () => openStream(target, recorder)))
      opened.push(...reqs)
    }
  } catch (err) {
    for (const req of opened) req.destroy()
    const reason = err instanceof Error ? err.message : String(err)
    // Each stream holds a file descriptor here and one in the service.
    throw new Error(`opening ${count} streams failed after ${opened.length}: ${reason} (check ulimit -n)`)
  }
  return opened
}

export async function measureFanout(target: Target, settings: FanoutSettings): Promise<FanoutResult> {
  const recorder = createRecorder()
  await sleep(500)
  const memBefore = await target.memory()
  const openedAt = performance.now()
  const streams = await openAll(target, settings.streams, recorder)
  const openMs = performance.now() - openedAt
  try {
    // Let every connect-time snapshot arrive before reading the memory.
    await sleep(1000)
    const memOpen = await target.memory()
    recorder.open()
    const deadline = performance.now() + settings.maxWaitMs
    const complete = () =>
      recorder.receipts().filter((r) => r.type === 'signal.emitted' && r.count >= settings.streams).length
    while (complete() < settings.signals && performance.now() < deadline) await sleep(100)
    recorder.stopAccepting()
    // Receipts of admitted events may still be on their way to the slowest streams.
    await sleep(1000)
    recorder.stopRecording()
    const memAfter = await target.memory()

    const receipts = recorder.receipts()
    const signals = receipts.filter((r) => r.type === 'signal.emitted')
    const spreads = signals
      .filter((r) => r.count >= settings.streams)
      .map((r) => r.last - r.first)
      .sort((a, b) => a - b)
    const perStream = (a: number | null, b: number | null) =>
      a === null || b === null ? null : (b - a) / settings.streams
    return {
      streams: settings.streams,
      openMs,
      memory: { before: memBefore, open: memOpen, after: memAfter },
      rssKiBPerStream: perStream(memBefore.rssKiB, memOpen.rssKiB),
      liveKiBPerStream: perStream(memBefore.liveKiB, memOpen.liveKiB),
      signals: spreads.length,
      incompleteSignals: signals.length - spreads.length,
      spreadP50Ms: percentile(spreads, 50),
      spreadP99Ms: percentile(spreads, 99),
      spreadMaxMs: spreads.at(-1) ?? null,
      otherEvents: receipts.filter((r) => r.type !== 'signal.emitted').reduce((n, r) => n + r.count, 0),
      clientMsPerEvent: receipts.length > 0 ? recorder.handlerMs() / receipts.length : null,
    }
  } finally {
    for (const req of streams) req.destroy()
    // Let the service notice the disconnects before the next round reads its memory.
    await sleep(500)
  }
}

/** Nearest-rank percentile of sorted values; null when there are none. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? null
}
