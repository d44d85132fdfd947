// The stream baseline: a bare node:http server that holds text/event-stream responses open and, once
// a second, writes one prebuilt frame of the size the service's signal.emitted frames have to every
// client: the least a process can do to fan an event out. Same Node binary, same harness, same
// clients as the service's rounds. Protocol (IPC): `{ frameBytes: n }` → `{ ready: true }` starts the
// ticks; it reports `{ port }` once listening.
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { serviceKeepAliveMs } from './helper-env.ts'

const clients = new Set<ServerResponse>()
let seq = 0
let frameBytes = 0
let ticking = false

const server = createServer((req, res) => {
  if (!req.url?.startsWith('/stream')) {
    res.writeHead(404).end()
    return
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
  })
  res.write('retry: 3000\n\n')
  clients.add(res)
  res.once('close', () => clients.delete(res))
  res.on('error', () => undefined)
})
// The service's own keep-alive timeout (startHelper passes it), so one Keep-Alive header is on both wires.
server.keepAliveTimeout = serviceKeepAliveMs()

function frame(): Buffer {
  seq++
  const head = `event: signal.emitted\nid: bare-${String(seq).padStart(12, '0')}\ndata: `
  const pad = Math.max(2, frameBytes - head.length - 2)
  return Buffer.from(`${head}${'x'.repeat(pad)}\n\n`)
}

process.on('message', (msg: { frameBytes?: number }) => {
  if (msg.frameBytes === undefined) return
  frameBytes = msg.frameBytes
  if (!ticking) {
    ticking = true
    setInterval(() => {
      const bytes = frame()
      for (const res of clients) res.write(bytes)
    }, 1000)
  }
  process.send?.({ ready: true })
})
process.on('disconnect', () => process.exit(0))

server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }))
