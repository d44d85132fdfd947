// The access log (decisions §4): one JSON line per answered request, at info, written the same way
// whichever path answered it — the fast path, a framework route, a hook's refusal, the bare-socket
// answer to a request Node could not parse, or a stream when it ends. The line is assembled from
// parts fixed at start-up (pino's level, its bindings and the message) and handed to the logger's
// destination once per turn of the event loop, joined: logging a cached answer then costs a string
// and an array push rather than a pino call with serializers — and rather than one append to the
// destination per line, which measures the byte length of its whole pending buffer each time
// (about 3 µs a line under load, a fifth of a bare answer). Health probes get no line (a load
// balancer asks every few seconds).
// Never the key: the request target is logged with key-shaped tokens masked.
import type { ServerResponse } from 'node:http'
import type { FastifyRequest } from 'fastify'
import type { Logger } from 'pino'
import { pino } from 'pino'
import { maskKeys } from '../domain/api-key.ts'

export type AccessLine = {
  method: string
  /** the request target as sent (path and query), key-shaped tokens masked */
  path: string
  status: number
  /** body bytes sent (what Content-Length says, or what was counted) */
  bytes: number
  /** from the moment the request was first looked at, in milliseconds */
  durationMs: number
  address: string
  reqId: string
}

export type AccessLog = {
  /** false when the logger's level is above info: the caller may skip gathering the line */
  enabled(): boolean
  write(line: AccessLine): void
  /** hands the lines of this turn to the destination now and stops watching for the process's exit */
  close(): void
}

const INFO = 30
const MESSAGE = 'request'

type PinoInternals = Record<symbol, unknown>

export function createAccessLog(logger: Logger): AccessLog {
  const internals = logger as unknown as PinoInternals
  const destination = internals[pino.symbols.streamSym] as { write(line: string): unknown }
  // `,"pid":…,"hostname":…` plus the logger's own bindings, exactly as pino writes them.
  const bindings = String(internals[pino.symbols.chindingsSym] ?? '')
  const head = `{"level":${INFO},"time":`
  const tail = `,"msg":${JSON.stringify(MESSAGE)}}\n`
  const methods = new Map<string, string>()
  const quotedMethod = (method: string): string => {
    let quoted = methods.get(method)
    if (quoted === undefined) {
      quoted = JSON.stringify(method)
      if (methods.size < 64) methods.set(method, quoted)
    }
    return quoted
  }
  let pending: string[] = []
  let scheduled = false
  const flush = () => {
    scheduled = false
    if (pending.length === 0) return
    const lines = pending
    pending = []
    destination.write(lines.length === 1 ? lines[0]! : lines.join(''))
  }
  // Lines wait at most for the end of the current turn; an exit in between still writes them,
  // ahead of the logger's own flush at exit (registered earlier, hence prepended).
  process.prependListener('exit', flush)
  return {
    enabled: () => logger.isLevelEnabled('info'),
    close() {
      process.removeListener('exit', flush)
      flush()
    },
    write(l) {
      if (!logger.isLevelEnabled('info')) return
      if (!scheduled) {
        scheduled = true
        setImmediate(flush)
      }
      pending.push(
        `${head}${Date.now()}${bindings},"reqId":${JSON.stringify(l.reqId)},"method":${quotedMethod(l.method)},"path":${JSON.stringify(maskKeys(l.path))},"status":${l.status},"bytes":${l.bytes},"durationMs":${Math.round(l.durationMs * 100) / 100},"address":${JSON.stringify(l.address)}${tail}`,
      )
    },
  }
}

/** How a request appears in Fastify's own lines (errors): no headers, key-shaped tokens masked. */
export function serializeRequest(request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: maskKeys(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }
}

const counted = new WeakMap<ServerResponse, number>()

/** Counts the body bytes written to a response that has no Content-Length (a compressed stream). */
export function countBodyBytes(res: ServerResponse): void {
  counted.set(res, 0)
  const add = (chunk: unknown, encoding?: unknown) => {
    if (chunk == null || typeof chunk === 'function') return
    const n =
      typeof chunk === 'string'
        ? Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : (chunk as Uint8Array).byteLength
    counted.set(res, (counted.get(res) ?? 0) + n)
  }
  const write = res.write
  const end = res.end
  res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    add(chunk, rest[0])
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest)
  } as typeof res.write
  res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    add(chunk, rest[0])
    return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest)
  } as typeof res.end
}

export function countedBodyBytes(res: ServerResponse): number {
  return counted.get(res) ?? 0
}
