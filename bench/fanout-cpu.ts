// npm run bench:fanout-cpu: the stream hub's CPU per event against a bare broadcaster's, in one
// process at once, with no service around them (no engine, store or HTTP framework), so what differs
// is only the per-subscriber work of the fan-out. One server process holds FANOUT_STREAMS (default
// 2,000) streams on the real hub (src/stream/stream-hub.ts, fed by a stand-in follower) and as many on
// a bare `res.write` loop; a client process reads them all. FANOUT_EVENTS (default 200) events of
// FANOUT_FRAME_BYTES go to each side in turn (ABAB…, 20 ms apart); each is timed from the listener's
// call to the next loop turn (the writes and the uncorks in between) with process.cpuUsage(). Prints µs
// of CPU per event, per stream, for both, and their ratio; with FANOUT_PROFILE=1 the server runs
// with --cpu-prof (into a temp directory) and the top self-time functions are printed;
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
const events = Number(process.env.FANOUT_EVENTS ?? 200)
const frameBytes = Number(process.env.FANOUT_FRAME_BYTES ?? 1500)
// FANOUT_ONLY=hub|bare sends events to that side only (a profile of one side)
const only =
  process.env.FANOUT_ONLY === 'hub' || process.env.FANOUT_ONLY === 'bare' ? process.env.FANOUT_ONLY : null
const SERIES = 'KXBTC15M'
const HEAD = 'GET /stream HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n'

if (process.argv[2] === 'client') runClient()
else if (process.argv[2] === 'server') void runServer()
else void runParent()

/** Opens `count` raw streams to the port and reads (and drops) whatever arrives. */
function runClient(): void {
  const sockets: Socket[] = []
  process.on('message', async (msg: { port: number; count: number }) => {
    for (let i = 0; i < msg.count; i++) {
      const s = connect(msg.port, '127.0.0.1')
      s.on('data', () => undefined)
      s.on('error', () => undefined)
      s.write(HEAD)
      sockets.push(s)
      if (i % 200 === 199) await sleep(5)
    }
    process.send?.({ opened: sockets.length })
  })
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
  const hub = createStreamHub({ store, follower, epoch: 'e1', heartbeatMs: 60_000, logger: console })
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

  const data = JSON.stringify({ pad: 'x'.repeat(Math.max(0, frameBytes - 80)) })
  const cpu = { hub: 0, bare: 0 }
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
    if (side === 'hub') listener!([event])
    else {
      const frame = Buffer.from(`event: signal.emitted\nid: bare-${i}\ndata: ${data}\n\n`)
      for (const res of bare) res.write(frame)
    }
    await turn()
    const used = process.cpuUsage(before)
    cpu[side] += used.user + used.system
    await sleep(20)
  }
  process.send?.({
    hubUsPerEvent: cpu.hub / events,
    bareUsPerEvent: cpu.bare / events,
  })
  await hub.close()
  process.exit(0)
}

async function runParent(): Promise<void> {
  const self = import.meta.filename
  const profileDir = mkdtempSync(path.join(tmpdir(), 'cs-fanout-prof-'))
  const profiling = process.env.FANOUT_PROFILE === '1'
  const client = fork(self, ['client'])
  const server = fork(self, ['server'], {
    execArgv: profiling ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  })
  server.on(
    'message',
    (msg: { port?: number; count?: number; hubUsPerEvent?: number; bareUsPerEvent?: number }) => {
      if (msg.port !== undefined) {
        client.once('message', () => server.send({ opened: true }))
        client.send(msg)
        return
      }
      const hub = msg.hubUsPerEvent!
      const bare = msg.bareUsPerEvent!
      console.log(
        `${streams} streams, ${events} events a side, ${frameBytes} B frames: CPU per event hub ${(hub / 1000).toFixed(2)} ms (${(hub / streams).toFixed(2)} µs/stream), bare ${(bare / 1000).toFixed(2)} ms (${(bare / streams).toFixed(2)} µs/stream); hub ÷ bare ${(hub / bare).toFixed(2)}`,
      )
    },
  )
  const code = await new Promise<number | null>((r) => server.on('exit', r))
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
