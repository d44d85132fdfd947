// One load-generating process, in the manner of wrk: keep-alive connections over raw sockets, each
// with one request in flight, sending requests prebuilt once and shared by every connection (the
// scenario's headers plus an X-Forwarded-For from a pool of addresses, so the service's limiter meets
// a new client on nearly every request, as behind a busy proxy). A response is recognised by its
// head and Content-Length alone; the body is counted, never decoded. autocannon was the first choice,
// but it builds every distinct request once per connection, which for a pool of 100,000 addresses
// took longer than the runs themselves. Latencies go into 10 µs buckets that the parent merges.
// Protocol (IPC): `{ run: LoadOrder }` → `{ done: LoadReport }`.
import { connect, type Socket } from 'node:net'
import { performance } from 'node:perf_hooks'

export type LoadOrder = {
  url: string
  path: string
  method: 'GET' | 'HEAD'
  headers: Record<string, string>
  connections: number
  durationS: number
  /** distinct X-Forwarded-For addresses this process cycles through (0: send none) */
  forwardedPool: number
  /** this process's first address in the shared pool, so processes send different addresses */
  poolOffset: number
}

export type LoadReport = {
  responses: number
  durationS: number
  statusCounts: Record<string, number>
  errors: number
  /** latency histogram: bucket (10 µs) → count */
  latency10us: Record<string, number>
}

/** The i-th pool address: from 11.0.0.0 up, never the trusted proxy (TRUST_PROXY is 127.0.0.1). */
export function poolAddress(i: number): string {
  const n = 0x0b000000 + i * 7919
  return `${(n >>> 24) & 0xff}.${(n >>> 16) & 0xff}.${(n >>> 8) & 0xff}.${n & 0xff}`
}

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

async function run(order: LoadOrder): Promise<LoadReport> {
  const url = new URL(order.url)
  const requests = buildRequests(order, url.host)
  const statusCounts: Record<string, number> = {}
  const latency10us: Record<string, number> = {}
  let responses = 0
  let errors = 0
  let next = 0
  let running = true
  const sockets: Socket[] = []
  const isHead = order.method === 'HEAD'

  function start(): void {
    let sentAt = 0
    let pending = Buffer.alloc(0)
    let need = -1 // bytes of the current response still to come, -1 while its head is incomplete
    const socket = connect(Number(url.port), url.hostname)
    socket.setNoDelay(true)
    sockets.push(socket)
    const send = () => {
      if (!running) return
      const req = requests[next]!
      next = next + 1 === requests.length ? 0 : next + 1
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
          statusCounts[status] = (statusCounts[status] ?? 0) + 1
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
        responses++
        const bucket = Math.floor(((performance.now() - sentAt) * 1000) / 10)
        latency10us[bucket] = (latency10us[bucket] ?? 0) + 1
        send()
      }
      pending = buf.length > 0 ? Buffer.from(buf) : Buffer.alloc(0)
    })
    socket.on('error', () => {
      errors++
    })
  }

  const began = performance.now()
  for (let i = 0; i < order.connections; i++) start()
  await new Promise((resolve) => setTimeout(resolve, order.durationS * 1000))
  running = false
  const durationS = (performance.now() - began) / 1000
  for (const s of sockets) s.destroy()
  return { responses, durationS, statusCounts, errors, latency10us }
}

process.on('message', (msg: { run?: LoadOrder }) => {
  if (!msg.run) return
  run(msg.run).then(
    (done) => process.send?.({ done }),
    (err: unknown) => process.send?.({ failed: String(err) }),
  )
})
process.on('disconnect', () => process.exit(0))
process.send?.({ ready: true })
