// One stream-client process: opens its share of the N streams and notes, for every event id, the
// wall time (timeOrigin + performance.now(), comparable across processes of one machine) of its
// first and last receipt over its streams. Only the `event` and `id` lines are decoded.
// Protocol (IPC): `{ open: OpenOrder }` → `{ opened: ms }`; `{ admit: boolean }` → `{ admitted }`;
// `{ counts: true }` → `{ counts: Record<id, count> }`; `{ report: true }` → `{ report: ClientReport }`;
// `{ closeAll: true }` → `{ closed: true }`.
import { type ClientRequest, get } from 'node:http'
import { performance } from 'node:perf_hooks'

/** `localAddress`: the loopback address the streams connect from (see stream-fanout.ts) */
export type OpenOrder = {
  url: string
  path: string
  key: string | null
  count: number
  localAddress?: string
}
export type Receipt = {
  id: string
  type: string
  first: number
  last: number
  count: number
  frameBytes: number
}
/** `lost`: streams that ended while open (the server ended them, or their socket failed), by how */
export type ClientReport = { receipts: Receipt[]; handlerMs: number; lost: Record<string, number> }

const receipts = new Map<string, Receipt>()
const excluded = new Set<string>()
let accepting = false
let recording = true
let handlerMs = 0
const streams: ClientRequest[] = []
/** streams that ended or failed while open (not by closeAll), by how */
const lost = new Map<string, number>()
let closing = false
function noteLost(how: string): void {
  if (!closing) lost.set(how, (lost.get(how) ?? 0) + 1)
}

function record(id: string, type: string, at: number, frameBytes: number): void {
  if (!recording || excluded.has(id)) return
  const seen = receipts.get(id)
  if (seen) {
    seen.count++
    if (at > seen.last) seen.last = at
  } else if (accepting) receipts.set(id, { id, type, first: at, last: at, count: 1, frameBytes })
  else excluded.add(id)
}

function headerFields(buf: Buffer, end: number): { type: string; id: string } | null {
  const first = buf.indexOf(10, 0)
  const second = first === -1 ? -1 : buf.indexOf(10, first + 1)
  if (first === -1 || second === -1 || second > end) return null
  const eventLine = buf.toString('latin1', 0, first)
  const idLine = buf.toString('latin1', first + 1, second)
  if (!eventLine.startsWith('event: ') || !idLine.startsWith('id: ')) return null
  return { type: eventLine.slice(7), id: idLine.slice(4) }
}

function openStream(order: OpenOrder): Promise<ClientRequest> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Accept: 'text/event-stream' }
    if (order.key) headers.Authorization = `Bearer ${order.key}`
    const options = order.localAddress
      ? { agent: false, headers, localAddress: order.localAddress }
      : { agent: false, headers }
    const req = get(new URL(order.path, order.url), options, (res) => {
      if (res.statusCode !== 200) {
        res.resume()
        reject(new Error(`stream answered ${res.statusCode}`))
        return
      }
      let pending: Buffer | null = null
      res.on('data', (chunk: Buffer) => {
        const t = performance.now()
        const at = performance.timeOrigin + t
        let buf = pending ? Buffer.concat([pending, chunk]) : chunk
        let end = buf.indexOf('\n\n')
        while (end !== -1) {
          const frame = headerFields(buf, end)
          if (frame) record(frame.id, frame.type, at, end + 2)
          buf = buf.subarray(end + 2)
          end = buf.indexOf('\n\n')
        }
        pending = buf.length > 0 ? buf : null
        if (accepting) handlerMs += performance.now() - t
      })
      res.on('error', (err: Error) => noteLost(`error: ${err.message}`))
      res.on('end', () => noteLost('ended by the server'))
      resolve(req)
    })
    req.on('error', reject)
  })
}

async function openAll(order: OpenOrder): Promise<number> {
  const started = performance.now()
  // A few dozen connects at a time: a burst of thousands of SYNs would overflow the listen backlog
  // and measure the kernel's retransmit timer instead of the service.
  const batch = 50
  for (let i = 0; i < order.count; i += batch) {
    const n = Math.min(batch, order.count - i)
    streams.push(...(await Promise.all(Array.from({ length: n }, () => openStream(order)))))
  }
  return performance.now() - started
}

process.on('message', (msg: Record<string, unknown>) => {
  if (msg.open) {
    closing = false
    openAll(msg.open as OpenOrder).then(
      (opened) => process.send?.({ opened }),
      (err: unknown) =>
        process.send?.({ failed: `opened ${streams.length}: ${String(err)} (check ulimit -n)` }),
    )
  } else if (msg.admit !== undefined) {
    accepting = msg.admit === true
    process.send?.({ admitted: accepting })
  } else if (msg.counts) {
    const counts: Record<string, number> = {}
    for (const r of receipts.values()) if (r.type === 'signal.emitted') counts[r.id] = r.count
    process.send?.({ counts })
  } else if (msg.report) {
    recording = false
    process.send?.({
      report: {
        receipts: [...receipts.values()],
        handlerMs,
        lost: Object.fromEntries(lost),
      } satisfies ClientReport,
    })
  } else if (msg.closeAll) {
    closing = true
    for (const s of streams) s.destroy()
    streams.length = 0
    lost.clear()
    receipts.clear()
    excluded.clear()
    recording = true
    accepting = false
    handlerMs = 0
    process.send?.({ closed: true })
  }
})
process.on('disconnect', () => process.exit(0))
process.send?.({ ready: true })
