// The access log (decisions §4): one JSON line per answered request, at info, written the same way
// whichever path answered it — the fast path, a framework route, a hook's refusal, the bare-socket
// answer to a request Node could not parse, or a stream when it ends. The line is assembled from
// parts fixed at start-up (pino's level, its bindings and the message) and the request's own, and
// lines are handed to the logger's destination in batches, as nginx's `access_log … buffer=64k
// flush=…` does: when 64 KiB have gathered or 100 ms after the first line of a batch, and at exit.
// Each hand-over costs the destination a byte count, copies of the text and an asynchronous write
// through the thread pool, and a line concatenated on its own is flattened again when written, so
// a batch keeps the lines' pieces and joins them once: `npm run bench:log` measured 1.6–2.0 µs of
// CPU a line with a whole line handed over every turn, 1.2–1.3 this way. A health probe that is
// answered gets no line (a load balancer asks every few seconds); one that fails gets its line at
// warn (decisions §4: health probes only at warn).
// Never the key: the request target is logged with key-shaped tokens masked.
import type { ServerResponse } from 'node:http'
import { performance } from 'node:perf_hooks'
import type { FastifyRequest } from 'fastify'
import type { Logger } from 'pino'
import { pino } from 'pino'
import { maskKeys } from '../domain/api-key.ts'
import { PATHS } from './paths.ts'

/**
 * The level of a request's line by its path and status, whichever path answered it: a health
 * probe's answer none, its failure warn (a TRACE refused or bytes Node could not parse alike), every
 * other request info.
 */
export function accessLevel(target: string, status: number): 'info' | 'warn' | null {
  const q = target.indexOf('?')
  if ((q === -1 ? target : target.slice(0, q)) !== PATHS.health) return 'info'
  return status >= 400 ? 'warn' : null
}

export type AccessLine = {
  method: string
  /** the request target as sent (path and query); key-shaped tokens are masked in the line */
  path: string
  status: number
  /** body bytes sent (what Content-Length says, or what was counted) */
  bytes: number
  /** from the moment the request was first looked at, in milliseconds */
  durationMs: number
  address: string
  /** a request id (request-id.ts): characters JSON needs no escape for */
  reqId: string
}

/** The request target as the line shows it: key-shaped tokens masked, as a JSON string. */
export function accessPathJson(path: string): string {
  return JSON.stringify(maskKeys(path))
}

/**
 * The middle of a line: what it says about the answer (method, target, status, bytes), with the
 * punctuation around it, in the line's own order. A caller that answers the same URL the same way
 * again and again keeps it (the fast path).
 */
export function answerPart(method: string, pathJson: string, status: number, bytes: number): string {
  return `","method":${JSON.stringify(method)},"path":${pathJson},"status":${status},"bytes":${bytes},"durationMs":`
}

export type AccessLog = {
  /** the line at info, or at warn (a failed health probe: the only line a probe gets) */
  write(line: AccessLine, level?: 'info' | 'warn'): void
  /**
   * The same line from a kept `answerPart(method, pathJson, status, bytes)`, for a request first
   * looked at `startedAt` (performance.now()): its time and duration come from one clock reading.
   */
  writeAnswer(answerPart: string, startedAt: number, address: string, reqId: string): void
  /** hands the pending batch to the destination now and stops watching for the process's exit */
  close(): void
}

const INFO = 30
const WARN = 40
const MESSAGE = 'request'
/** A batch is handed over once it holds about this many characters… */
const BATCH_CHARS = 64 * 1024
/** …or this long after its first line, whichever comes first. */
const BATCH_MS = 100
/** Durations kept as text: up to 100 ms, in hundredths. */
const KEPT_DURATIONS = 10_000

type PinoInternals = Record<symbol, unknown>

/** how long the line's wall-clock time is read from the monotonic clock before they are lined up again */
const REANCHOR_MS = 1000

/**
 * The wall-clock time (epoch ms) of a performance.now() reading. A line needs both a duration and a
 * time; one reading of the monotonic clock gives both, and on a virtual machine a Date.now() costs
 * about 170 ns (kvm-clock), a good part of what a line costs. Lined up with the wall clock again
 * every second, so a line's time is within a millisecond of it and follows a step of the wall clock
 * within a second.
 */
export function createWallClock(readWall: () => number = Date.now): (monotonic: number) => number {
  let anchorMonotonic = Number.NEGATIVE_INFINITY
  let anchorWall = 0
  return (monotonic) => {
    if (monotonic - anchorMonotonic >= REANCHOR_MS) {
      anchorMonotonic = monotonic
      anchorWall = readWall()
    }
    return Math.round(anchorWall + (monotonic - anchorMonotonic))
  }
}

/** One for the process: every access log of it lines up with the wall clock on the same anchor. */
const processWallClock = createWallClock()

export function createAccessLog(logger: Logger, wallClockAt = processWallClock): AccessLog {
  const internals = logger as unknown as PinoInternals
  const destination = internals[pino.symbols.streamSym] as { write(line: string): unknown }
  // The fixed parts, pino's own: level and time first, then `,"pid":…,"hostname":…` and the
  // logger's bindings, then ours, with the message last.
  const head = `{"level":${INFO},"time":`
  const warnHead = `{"level":${WARN},"time":`
  const afterTime = `${String(internals[pino.symbols.chindingsSym] ?? '')},"reqId":"`
  const addressKey = ',"address":'
  const tail = `,"msg":${JSON.stringify(MESSAGE)}}\n`
  /** a line's characters other than the request id, the answer part and the address (a 13-digit
   * time, a duration of about 4) */
  const fixedChars = head.length + afterTime.length + addressKey.length + tail.length + 13 + 4
  // A batch is the lines' pieces in order, joined once when it goes: no line is ever concatenated
  // (and later flattened) on its own.
  let pending: string[] = []
  let pendingChars = 0
  let timer: NodeJS.Timeout | null = null
  const flush = () => {
    if (timer !== null) {
      clearTimeout(timer)
      timer = null
    }
    if (pending.length === 0) return
    const pieces = pending
    pending = []
    pendingChars = 0
    destination.write(pieces.join(''))
  }
  // An exit in between still writes the batch, ahead of the logger's own flush at exit (registered
  // earlier, hence prepended).
  process.prependListener('exit', flush)
  // Numbers as text, kept: tens of lines share a millisecond, and most durations are a few ms.
  let lastMs = 0
  let lastMsText = '0'
  const durationTexts: (string | undefined)[] = new Array<string | undefined>(KEPT_DURATIONS).fill(undefined)
  const durationText = (durationMs: number): string => {
    const hundredths = Math.round(durationMs * 100)
    if (hundredths < 0 || hundredths >= KEPT_DURATIONS) return String(hundredths / 100)
    let text = durationTexts[hundredths]
    if (text === undefined) {
      text = String(hundredths / 100)
      durationTexts[hundredths] = text
    }
    return text
  }
  /** A line answered at `end` (performance.now()). */
  function record(
    part: string,
    end: number,
    durationMs: number,
    address: string,
    reqId: string,
    lineHead = head,
  ): void {
    const now = wallClockAt(end)
    if (now !== lastMs) {
      lastMs = now
      lastMsText = String(now)
    }
    const addressJson = JSON.stringify(address)
    pending.push(
      lineHead,
      lastMsText,
      afterTime,
      reqId,
      part,
      durationText(durationMs),
      addressKey,
      addressJson,
      tail,
    )
    pendingChars += fixedChars + reqId.length + part.length + addressJson.length
    if (pendingChars >= BATCH_CHARS) flush()
    else if (timer === null) {
      // unref: a batch waiting never keeps the process alive; the exit listener writes it
      timer = setTimeout(flush, BATCH_MS)
      timer.unref()
    }
  }
  return {
    close() {
      process.removeListener('exit', flush)
      flush()
    },
    write(l, level = 'info') {
      if (!logger.isLevelEnabled(level)) return
      record(
        answerPart(l.method, accessPathJson(l.path), l.status, l.bytes),
        performance.now(),
        l.durationMs,
        l.address,
        l.reqId,
        level === 'warn' ? warnHead : head,
      )
    },
    writeAnswer(part, startedAt, address, reqId) {
      if (!logger.isLevelEnabled('info')) return
      const end = performance.now()
      record(part, end, end - startedAt, address, reqId)
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
