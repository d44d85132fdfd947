// npm run bench:fanout-cpu: the stream hub's CPU per event and spread against a bare broadcaster's,
// in one process at once, with no service around them (no engine, store or HTTP framework), so what
// differs is only the per-subscriber work of the fan-out. One server process holds FANOUT_STREAMS
// (default 2,000) streams on the real hub (src/stream/stream-hub.ts, fed by a stand-in follower) and
// as many on a bare `res.write` loop; a client process reads them all. FANOUT_EVENTS (default 100)
// events of FANOUT_FRAME_BYTES go to each side in turn (ABAB…, FANOUT_GAP_MS apart, default 100);
// each is timed from the listener's call to the next loop turn (the writes and the uncorks in
// between) with process.cpuUsage(), and each event's spread is its first arrival at the client to its
// last (wall clocks of one machine).
// Prints µs of CPU per event, per stream, the spreads, and the ratios; with FANOUT_PROFILE=1 the
// server runs with --cpu-prof (into a temp directory) and the top self-time functions are printed;
// FANOUT_ONLY=hub or bare sends the events to that side alone, for a profile of one side.
import { fork } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { createServer, type ServerResponse } from 'node:http'
import { type AddressInfo, connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep, setImmediate as turn } from 'node:timers/promises'
import type { StoredEvent } from '../src/domain/events.ts'
import type { Store } from '../src/ports/store.ts'
import type { LogFollower } from '../src/stream/log-follower.ts'
import { createStreamHub } from '../src/stream/stream-hub.ts'
import { readProfile, selfTimes } from './cpu-profile.ts'

const streams = Number(process.env.FANOUT_STREAMS ?? 2000)
const events = Number(process.env.FANOUT_EVENTS ?? 100)
const frameBytes = Number(process.env.FANOUT_FRAME_BYTES ?? 1500)
// FANOUT_ONLY=hub|bare sends events to that side only (a profile of one side)
const only =
  process.env.FANOUT_ONLY === 'hub' || process.env.FANOUT_ONLY === 'bare' ? process.env.FANOUT_ONLY : null
/** wall ms between events (the client tells them apart by the quiet between them) */
const gapMs = Number(process.env.FANOUT_GAP_MS ?? 100)
const SERIES = 'KXBTC15M'
const HEAD = 'GET /stream HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n'

if (process.argv[2] === 'client') runClient()
else if (process.argv[2] === 'server') void runServer()
else void runParent()

/**
 * Opens `count` raw streams to the port and reads (and drops) whatever arrives; once told to record,
 * it notes the wall time of every arrival (comparable with the server's: one machine).
 */
function runClient(): void {
  const sockets: Socket[] = []
  const arrivals: number[] = []
  let recording = false
  const arrived = (): void => {
    if (recording) arrivals.push(performance.timeOrigin + performance.now())
  }
  process.on(
    'message',
    async (msg: { port?: number; count?: number; record?: boolean; report?: boolean }) => {
      if (msg.record) {
        recording = true
        process.send?.({ recording: true })
        return
      }
      if (msg.report) {
        process.send?.({ arrivals })
        return
      }
      for (let i = 0; i < msg.count!; i++) {
        const s = connect(msg.port!, '127.0.0.1')
        s.on('data', arrived)
        s.on('error', () => undefined)
        s.write(HEAD)
        sockets.push(s)
        if (i % 200 === 199) await sleep(5)
      }
      process.send?.({ opened: sockets.length })
    },
  )
  process.on('disconnect', () => process.exit(0))
}

async function runServer(): Promise<void> {
  let listener: ((events: readonly StoredEvent[]) => void) | null = null
  const follower = {
    cursor: 0,
    onEvents(l: (events: readonly StoredEvent[]) => void) {
      listener = l
      return () => undefined
    },
    exclusive: <T>(fn: (cursor: number) => Promise<T>) => fn(0),
    wake: () => undefined,
    start: async () => undefined,
    stop: async () => undefined,
  } as unknown as LogFollower
  const store = {
    hasEvent: async () => false,
    getContest: async () => null,
    getLiveContest: async () => null,
    contestHistoryEvents: async () => [],
    eventsAfter: async () => [],
  } as unknown as Store
  const hub = createStreamHub({
    store,
    follower,
    epoch: 'e1',
    retentionMs: 3_600_000,
    wallClock: { now: Date.now },
    clock: { now: Date.now },
    heartbeatMs: 60_000,
    logger: console,
    storeOutage: { failed: (err) => console.warn(err) },
  })
  const bare = new Set<ServerResponse>()
  let toHub = true
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' })
    res.flushHeaders()
    if (toHub) void hub.attach(res, { series: SERIES, lastEventId: null })
    else {
      res.write('retry: 3000\n\n')
      bare.add(res)
      res.on('close', () => bare.delete(res))
    }
  })
  server.listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  const port = (server.address() as AddressInfo).port
  const ask = (count: number) =>
    new Promise<void>((resolve) => {
      process.once('message', () => resolve())
      process.send?.({ port, count })
    })
  await ask(streams)
  while (hub.size() < streams) await sleep(50)
  toHub = false
  await ask(streams)
  while (bare.size < streams) await sleep(50)

  await new Promise<void>((resolve) => {
    process.once('message', () => resolve())
    process.send?.({ record: true })
  })
  const data = JSON.stringify({ pad: 'x'.repeat(Math.max(0, frameBytes - 80)) })
  const cpu = { hub: 0, bare: 0 }
  const starts: number[] = []
  for (let i = 1; i <= events * 2; i++) {
    const side = i % 2 === 1 ? 'hub' : 'bare'
    if (only !== null && side !== only) continue
    const event = {
      seq: i,
      type: 'signal.emitted',
      series: SERIES,
      ticker: `${SERIES}-T`,
      data,
    } as StoredEvent
    const before = process.cpuUsage()
    starts.push(performance.timeOrigin + performance.now())
    if (side === 'hub') listener!([event])
    else {
      const frame = Buffer.from(`event: signal.emitted\nid: bare-${i}\ndata: ${data}\n\n`)
      for (const res of bare) res.write(frame)
    }
    await turn()
    const used = process.cpuUsage(before)
    cpu[side] += used.user + used.system
    await sleep(gapMs)
  }
  process.send?.({
    hubUsPerEvent: cpu.hub / events,
    bareUsPerEvent: cpu.bare / events,
    starts,
  })
  await hub.close()
  process.exit(0)
}

/** Each event's first to last arrival, an arrival counted for the latest event sent before it. */
function spreadsOf(starts: readonly number[], arrivals: readonly number[]): number[] {
  const first = starts.map(() => Number.POSITIVE_INFINITY)
  const last = starts.map(() => Number.NEGATIVE_INFINITY)
  let k = 0
  for (const at of [...arrivals].sort((a, b) => a - b)) {
    while (k + 1 < starts.length && starts[k + 1]! <= at) k++
    if (at < starts[k]!) continue
    first[k] = Math.min(first[k]!, at)
    last[k] = Math.max(last[k]!, at)
  }
  return first.map((f, i) => last[i]! - f)
}

async function runParent(): Promise<void> {
  const self = import.meta.filename
  const profileDir = mkdtempSync(path.join(tmpdir(), 'cs-fanout-prof-'))
  const profiling = process.env.FANOUT_PROFILE === '1'
  const client = fork(self, ['client'])
  const server = fork(self, ['server'], {
    execArgv: profiling ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  })
  let reported: Promise<void> = Promise.resolve()
  server.on(
    'message',
    (msg: {
      port?: number
      count?: number
      record?: boolean
      hubUsPerEvent?: number
      bareUsPerEvent?: number
      starts?: number[]
    }) => {
      if (msg.port !== undefined || msg.record) {
        client.once('message', () => server.send({ go: true }))
        client.send(msg)
        return
      }
      reported = report(msg.hubUsPerEvent!, msg.bareUsPerEvent!, msg.starts!)
    },
  )
  async function report(hub: number, bare: number, starts: number[]): Promise<void> {
    console.log(
      `${streams} streams, ${events} events a side, ${frameBytes} B frames: CPU per event hub ${(hub / 1000).toFixed(2)} ms (${(hub / streams).toFixed(2)} µs/stream), bare ${(bare / 1000).toFixed(2)} ms (${(bare / streams).toFixed(2)} µs/stream); hub ÷ bare ${(hub / bare).toFixed(2)}`,
    )
    const arrivals = await new Promise<number[]>((resolve) => {
      client.once('message', (m: { arrivals: number[] }) => resolve(m.arrivals))
      client.send({ report: true })
    })
    const spreads = spreadsOf(starts, arrivals)
    const sides = only === null ? 2 : 1
    const of = (side: number) => spreads.filter((_, i) => i % sides === side).sort((a, b) => a - b)
    const p = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.ceil((q / 100) * xs.length) - 1)]!
    const [hubSpreads, bareSpreads] = [of(0), of(1)]
    if (only !== null)
      console.log(`spread p50 ${p(hubSpreads, 50).toFixed(2)} ms, p99 ${p(hubSpreads, 99).toFixed(2)} ms`)
    else
      console.log(
        `spread (first to last arrival at the client) p50 / p99: hub ${p(hubSpreads, 50).toFixed(2)} / ${p(hubSpreads, 99).toFixed(2)} ms, bare ${p(bareSpreads, 50).toFixed(2)} / ${p(bareSpreads, 99).toFixed(2)} ms; p99 hub ÷ bare ${(p(hubSpreads, 99) / p(bareSpreads, 99)).toFixed(2)}`,
      )
  }
  const code = await new Promise<number | null>((r) => server.on('exit', r))
  await reported
  client.kill()
  if (profiling) {
    const profile = readProfile(profileDir)
    const self = selfTimes(profile, { endBeforeEndUs: 0, lengthUs: Number.MAX_SAFE_INTEGER / 2 }, true)
    const total = [...self.values()].reduce((a, b) => a + b, 0)
    console.log('top self time over the whole server process (both sides, opening included):')
    for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15))
      console.log(`  ${name.padEnd(60)} ${((us / total) * 100).toFixed(1).padStart(5)} %`)
  }
  process.exit(code ?? 1)
}
