// The REST baseline: a bare node:http server that answers every request with one captured response —
// the exact status, header lines (Date, Connection and Keep-Alive aside, which Node writes itself for
// both servers) and body bytes the service sent — from prebuilt buffers. It runs as its own process
// with the same Node binary, so "bare" and "service" differ only in the work the service does. The
// parent sends `{ replay: CapturedResponse }` over IPC before each run and waits for `{ ready: true }`.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { serviceKeepAliveMs } from './helper-env.ts'

export type CapturedResponse = { status: number; headers: [string, string][]; bodyBase64: string }

let status = 200
let flat: string[] = []
let body = Buffer.alloc(0)

// BENCH_BARE_OPTIMIZE_EMPTY=1 gives the baseline the service's `optimizeEmptyRequests` too (Node ends
// a body-less request's stream at once): with it, the ratio compares the service's own work only.
const server = createServer(
  { optimizeEmptyRequests: process.env.BENCH_BARE_OPTIMIZE_EMPTY === '1' },
  (req, res) => {
    res.writeHead(status, flat)
    if (req.method === 'HEAD') res.end()
    else res.end(body)
  },
)
// The service's own keep-alive timeout (startHelper passes it), so one Keep-Alive header is on both wires.
server.keepAliveTimeout = serviceKeepAliveMs()

process.on('message', (msg: { replay?: CapturedResponse }) => {
  if (!msg.replay) return
  status = msg.replay.status
  flat = msg.replay.headers.flat()
  body = Buffer.from(msg.replay.bodyBase64, 'base64')
  process.send?.({ ready: true })
})
process.on('disconnect', () => process.exit(0))

server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port })
})
