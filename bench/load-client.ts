// One load-generating process, in the manner of wrk: keep-alive connections over raw sockets, each
// with one request in flight, sending requests prebuilt once and shared by every connection (the
// scenario's headers plus an X-Forwarded-For from a pool of addresses, so the service's limiter meets
// a new client on nearly every request, as behind a busy proxy). A response is recognised by its
// head and Content-Length alone; the body is counted, never decoded. autocannon was the first choice,
// but it builds every distinct request once per connection, which for a pool of 100,000 addresses
// took longer than the runs themselves. Latencies go into 10 µs buckets that the parent merges.
//
// One order can load several servers in turn, in slices: each server has its own connections, and
// in each slice only one server's connections send. A slice ends by sending no more and waiting for
// the answers in flight, so no two servers are ever loaded at once, and a server's time is counted
// from its slice's start until its last answer came back. Slices start at instants fixed in
// wall-clock time, the same for every client process. Interleaving service and bare server in short
// slices is what lets a ratio between them survive this machine's swings in speed (BENCHMARKS.md,
// "Measuring on a machine that changes speed"); one server in one slice is a plain wrk run.
// Protocol (IPC): `{ run: LoadOrder }` → `{ done: LoadReport }`.
import { connect, type Socket } from 'node:net'
import { performance } from 'node:perf_hooks'

export type LoadOrder = {
  /** the servers loaded, each over its own `connections` */
  urls: string[]
  path: string
  method: 'GET' | 'HEAD'
  headers: Record<string, string>
  connections: number
  /** the server (an index into `urls`) each slice loads, in order */
  schedule: number[]
  sliceMs: number
  /** between slices: time for the last answers to come back before the next server's turn */
  gapMs: number
  /** when the first slice starts, in ms since the epoch: one instant for every client process */
  startAt: number
  /** distinct X-Forwarded-For addresses this process cycles through (0: send none) */
  forwardedPool: number
  /** this process's first address in the shared pool, so processes send different addresses */
  poolOffset: number
}

/** What one server did in this process's slices. */
export type ServerTally = {
  responses: number
  /** the server's slices, each from its start until its last answer came back */
  durationS: number
  statusCounts: Record<string, number>
  errors: number
  /** latency histogram: bucket (10 µs) → count */
  latency10us: Record<string, number>
}

export type LoadReport = { servers: ServerTally[] }

/** The i-th pool address: from 11.0.0.0 up, never the trusted proxy (TRUST_PROXY is 127.0.0.1). */
export function poolAddress(i: number): string {
  const n = 0x0b000000 + i * 7919
  return `${(n >>> 24) & 0xff}.${(n >>> 16) & 0xff}.${(n >>> 8) & 0xff}.${n & 0xff}`
}

/** A single wrk-like run of `durationS` against one server, starting shortly. */
export function singleRun(
  order: Omit<LoadOrder, 'urls' | 'schedule' | 'sliceMs' | 'gapMs' | 'startAt'> & {
    url: string
    durationS: number
  },
): LoadOrder {
  const { url, durationS, ...rest } = order
  return { ...rest, urls: [url], schedule: [0], sliceMs: durationS * 1000, gapMs: 0, startAt: Date.now() }
}

/** How long a slice's last answers may take before they are counted as errors. */
const DRAIN_LIMIT_MS = 5000
const CRLFCRLF = Buffer.from('\r\n\r\n')
const LENGTH = Buffer.from('\r\ncontent-length: ')

function buildRequests(order: LoadOrder, host: string): Buffer[] {
  const head = `${order.method} ${order.path} HTTP/1.1\r\nHost: ${host}\r\n${Object.entries(order.headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}`
  if (order.forwardedPool === 0) return [Buffer.from(`${head}\r\n`)]
  return Array.from({ length: order.forwardedPool }, (_, i) =>
    Buffer.from(`${head}X-Forwarded-For: ${poolAddress(order.poolOffset + i)}\r\n\r\n`),
  )
}

type Server = {
  tally: ServerTally
  requests: Buffer[]
  connections: Connection[]
  inFlight: number
}

type Connection = { send(): void; waiting(): boolean; socket: Socket }

async function run(order: LoadOrder): Promise<LoadReport> {
  const isHead = order.method === 'HEAD'
  let next = 0
  /** the server whose slice is on, or -1 between slices */
  let active = -1
  let sliceEnd = 0
  /** the server whose last answers are awaited, and what to call when they are in */
  let draining: { server: Server; done(): void } | null = null
  const settled = (server: Server) => {
    server.inFlight--
    if (server.inFlight === 0 && draining?.server === server) draining.done()
  }

  const servers: Server[] = order.urls.map((u) => ({
    tally: { responses: 0, durationS: 0, statusCounts: {}, errors: 0, latency10us: {} },
    requests: buildRequests(order, new URL(u).host),
    connections: [],
    inFlight: 0,
  }))

  function open(server: Server, url: URL): Connection {
    const { tally, requests } = server
    let sentAt = 0
    let inFlight = false
    let pending = Buffer.alloc(0)
    let need = -1 // bytes of the current response still to come, -1 while its head is incomplete
    const socket = connect(Number(url.port), url.hostname)
    socket.setNoDelay(true)
    const mine = servers.indexOf(server)
    const send = () => {
      if (inFlight || active !== mine || socket.connecting || socket.destroyed) return
      if (performance.now() >= sliceEnd) return
      const req = requests[next]!
      next = next + 1 === requests.length ? 0 : next + 1
      inFlight = true
      server.inFlight++
      sentAt = performance.now()
      socket.write(req)
    }
    socket.on('connect', send)
    socket.on('data', (chunk: Buffer) => {
      let buf = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk
      for (;;) {
        if (need === -1) {
          const end = buf.indexOf(CRLFCRLF)
          if (end === -1) break
          const status = buf.toString('latin1', 9, 12)
          tally.statusCounts[status] = (tally.statusCounts[status] ?? 0) + 1
          const at = buf.indexOf(LENGTH)
          const length =
            at !== -1 && at < end && !isHead && status !== '304'
              ? Number(buf.toString('latin1', at + LENGTH.length, buf.indexOf(13, at + LENGTH.length)))
              : 0
          need = length
          buf = buf.subarray(end + 4)
        }
        if (buf.length < need) {
          need -= buf.length
          buf = buf.subarray(buf.length)
          break
        }
        buf = buf.subarray(need)
        need = -1
        tally.responses++
        const bucket = Math.floor(((performance.now() - sentAt) * 1000) / 10)
        tally.latency10us[bucket] = (tally.latency10us[bucket] ?? 0) + 1
        inFlight = false
        settled(server)
        send()
      }
      pending = buf.length > 0 ? Buffer.from(buf) : Buffer.alloc(0)
    })
    // 'close' follows: counted there, once
    socket.on('error', () => undefined)
    // A connection that ended is not used again; an answer it still owed never comes.
    socket.on('close', (hadError) => {
      if (hadError || inFlight) tally.errors++
      if (!inFlight) return
      inFlight = false
      settled(server)
    })
    return { send, waiting: () => inFlight, socket }
  }

  for (const [i, server] of servers.entries()) {
    const url = new URL(order.urls[i]!)
    for (let c = 0; c < order.connections; c++) server.connections.push(open(server, url))
  }

  /** performance.now() of a wall-clock instant, in this process's clock */
  const local = (epochMs: number) => epochMs - performance.timeOrigin
  const sleepUntil = (t: number) =>
    new Promise((resolve) => setTimeout(resolve, Math.max(0, t - performance.now())))

  const first = local(order.startAt)
  for (const [i, target] of order.schedule.entries()) {
    await sleepUntil(first + i * (order.sliceMs + order.gapMs))
    const server = servers[target]!
    active = target
    const sliceStart = performance.now()
    sliceEnd = sliceStart + order.sliceMs
    for (const c of server.connections) c.send()
    await sleepUntil(sliceEnd)
    active = -1
    if (server.inFlight > 0) {
      await new Promise<void>((resolve) => {
        // An answer that never comes is an error (its connection is closed), not a hung run.
        const timer = setTimeout(() => {
          for (const c of server.connections) if (c.waiting()) c.socket.destroy()
        }, DRAIN_LIMIT_MS)
        draining = {
          server,
          done: () => {
            clearTimeout(timer)
            resolve()
          },
        }
      })
      draining = null
    }
    server.tally.durationS += (performance.now() - sliceStart) / 1000
  }
  for (const s of servers) for (const c of s.connections) c.socket.destroy()
  return { servers: servers.map((s) => s.tally) }
}

// Only as the forked load process: other scripts import poolAddress and singleRun.
if (import.meta.main) {
  process.on('message', (msg: { run?: LoadOrder }) => {
    if (!msg.run) return
    run(msg.run).then(
      (done) => process.send?.({ done }),
      (err: unknown) => process.send?.({ failed: String(err) }),
    )
  })
  process.on('disconnect', () => process.exit(0))
  process.send?.({ ready: true })
}
