// The access log (decisions §4): one JSON line per answered request, at info, written the same way
// whichever path answered it — the fast path, a framework route, a hook's refusal, the bare-socket
// answer to a request Node could not parse, or a stream when it ends. Health probes get no line (a
// load balancer asks every few seconds). Never the key: the request target is logged with key-shaped
// tokens masked.
//
// The request path only records a line: five numbers (time, duration, and where in the batch's
// texts the request id, the answer part and the address are), the texts kept once per batch. A batch
// goes when about 64 KiB of lines have gathered or 100 ms after its first line, as nginx's
// `access_log … buffer=64k flush=…` does, to a worker thread that makes the lines' text
// (access-batch.ts); the text comes back and is written through the logger's own destination, so
// the logger's other lines and these share one writer and one order. Making the text was most of the
// log's cost on the request path (`npm run bench:log`, `npm run bench:profile-pair`). At exit or
// close, what is recorded or still with the worker is made on this thread and written at once, in
// order; if the worker cannot run, every batch is made here.
import type { ServerResponse } from 'node:http'
import { performance } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'
import type { FastifyRequest } from 'fastify'
import type { Logger } from 'pino'
import { pino } from 'pino'
import { maskKeys } from '../domain/api-key.ts'
import {
  type AccessBatch,
  formatBatch,
  RECORD_ADDRESS,
  RECORD_ANSWER,
  RECORD_DURATION,
  RECORD_REQUEST_ID,
  RECORD_SIZE,
  RECORD_TIME,
} from './access-batch.ts'
import type { FormattedBatch } from './access-log-worker.ts'

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
  write(line: AccessLine): void
  /**
   * The same line from a kept `answerPart(method, pathJson, status, bytes)`, for a request first
   * looked at `startedAt` (performance.now()): the line's time and duration come from one reading
   * of the clock, now.
   */
  writeAnswer(answerPart: string, startedAt: number, address: string, reqId: string): void
  /** resolves once every batch handed over so far has been written to the destination */
  settled(): Promise<void>
  /** writes what is recorded or with the worker now, in order, and stops watching for the exit */
  close(): void
}

const INFO = 30
const MESSAGE = 'request'
/** A batch is handed over once it holds about this many characters… */
const BATCH_CHARS = 64 * 1024
/** …or this long after its first line, whichever comes first. */
const BATCH_MS = 100
/** lines a batch has room for before its records grow */
const FIRST_CAPACITY = 1024

type PinoInternals = Record<symbol, unknown>

/** What a log hears back from the worker: its batch's text, or that the worker is gone. */
type Listener = { formatted(reply: FormattedBatch): void; workerFailed(): void }

/** how long the wall clock is read from the monotonic one before the two are lined up again */
const REANCHOR_MS = 1000
let anchorMonotonic = Number.NEGATIVE_INFINITY
let anchorWall = 0

/**
 * The wall-clock time (epoch ms) of a performance.now() reading: on this kind of machine a reading
 * of Date.now() costs about twice one of performance.now(), and the request path has read that one
 * already. Lined up with Date.now() again every second, so the line's time is off by well under a
 * millisecond, and a step of the wall clock shows within a second.
 */
function wallClockAt(monotonic: number): number {
  if (monotonic - anchorMonotonic >= REANCHOR_MS || monotonic < anchorMonotonic) {
    anchorMonotonic = performance.now()
    anchorWall = Date.now()
  }
  return Math.round(anchorWall + (monotonic - anchorMonotonic))
}

/** Makes batches' text in a worker thread; `send` is false when there is none and the caller must. */
export type LineFormatter = {
  register(listener: Listener): number
  unregister(log: number): void
  send(log: number, batch: AccessBatch): boolean
}

const WORKER = new URL('./access-log-worker.ts', import.meta.url)

/**
 * One worker thread for the access logs that share it, started with the first batch; it never keeps
 * the process alive. If it cannot start or stops, each log makes its own text from then on.
 */
export function createLineFormatter(workerUrl: URL = WORKER): LineFormatter {
  let worker: Worker | null = null
  let failed = false
  let nextLog = 0
  const listeners = new Map<number, Listener>()
  const fail = () => {
    if (failed) return
    failed = true
    worker = null
    for (const listener of listeners.values()) listener.workerFailed()
  }
  const start = (): Worker | null => {
    try {
      const w = new Worker(workerUrl)
      w.on('message', (reply: FormattedBatch) => listeners.get(reply.log)?.formatted(reply))
      w.on('error', fail)
      w.on('exit', fail)
      // after the listeners: a 'message' listener would hold the process again
      w.unref()
      return w
    } catch {
      failed = true
      return null
    }
  }
  return {
    register(listener) {
      listeners.set(++nextLog, listener)
      return nextLog
    },
    unregister(log) {
      listeners.delete(log)
    },
    send(log, batch) {
      if (failed) return false
      worker ??= start()
      if (worker === null) return false
      worker.postMessage({ log, batch })
      return true
    },
  }
}

/** the process's access logs share one worker */
const shared = createLineFormatter()

export function createAccessLog(logger: Logger, formatter: LineFormatter = shared): AccessLog {
  const internals = logger as unknown as PinoInternals
  const destination = internals[pino.symbols.streamSym] as { write(line: string): unknown }
  // The fixed parts, pino's own: level and time first, then `,"pid":…,"hostname":…` and the
  // logger's bindings, then ours, with the message last.
  const head = `{"level":${INFO},"time":`
  const afterTime = `${String(internals[pino.symbols.chindingsSym] ?? '')},"reqId":"`
  const tail = `,"msg":${JSON.stringify(MESSAGE)}}\n`
  /** a line's characters other than the request id, the answer part and the address (a 13-digit
   * time, a duration of about 4, the address's quotes and key) */
  const fixedChars = head.length + afterTime.length + tail.length + 13 + 4 + 13

  // The batch being recorded: its lines' numbers, and its texts, each answer part and address once.
  let records = new Float64Array(FIRST_CAPACITY * RECORD_SIZE)
  let lines = 0
  let requestIds = ''
  let texts: string[] = []
  let textIndex = new Map<string, number>()
  let pendingChars = 0
  let timer: NodeJS.Timeout | null = null
  let seq = 0
  /** batches with the worker, oldest first, until their text is written */
  const inFlight: AccessBatch[] = []
  let waiting: (() => void)[] = []

  const indexOfText = (text: string): number => {
    let i = textIndex.get(text)
    if (i === undefined) {
      i = texts.push(text) - 1
      textIndex.set(text, i)
    }
    return i
  }

  const wakeIfSettled = () => {
    if (inFlight.length > 0) return
    const wake = waiting
    waiting = []
    for (const w of wake) w()
  }

  /** Writes the text of every batch still with the worker, in order, made here. */
  const writeInFlightHere = () => {
    for (const batch of inFlight.splice(0)) destination.write(formatBatch(batch))
    wakeIfSettled()
  }

  const log = formatter.register({
    formatted(reply) {
      // a batch already written here (at close, or after a failure) is not written twice
      if (inFlight[0]?.seq !== reply.seq) return
      inFlight.shift()
      destination.write(reply.text)
      wakeIfSettled()
    },
    workerFailed: writeInFlightHere,
  })

  /** The recorded lines as a batch, and a fresh one to record into. */
  const takeBatch = (): AccessBatch | null => {
    if (timer !== null) {
      clearTimeout(timer)
      timer = null
    }
    if (lines === 0) return null
    const batch: AccessBatch = {
      seq: ++seq,
      head,
      afterTime,
      tail,
      records: records.slice(0, lines * RECORD_SIZE),
      requestIds,
      texts,
    }
    lines = 0
    requestIds = ''
    texts = []
    textIndex = new Map()
    pendingChars = 0
    return batch
  }

  const flush = () => {
    const batch = takeBatch()
    if (batch === null) return
    inFlight.push(batch)
    if (!formatter.send(log, batch)) writeInFlightHere()
  }

  /** Everything recorded or with the worker, written now, in order: at exit and at close. */
  const writeAllNow = () => {
    const batch = takeBatch()
    if (batch !== null) inFlight.push(batch)
    writeInFlightHere()
  }
  // An exit in between still writes the lines, ahead of the logger's own flush at exit (registered
  // earlier, hence prepended).
  process.prependListener('exit', writeAllNow)

  /** Records a line answered at `end` (performance.now()). */
  function record(part: string, end: number, durationMs: number, address: string, reqId: string): void {
    if ((lines + 1) * RECORD_SIZE > records.length) {
      const grown = new Float64Array(records.length * 2)
      grown.set(records)
      records = grown
    }
    const at = lines++ * RECORD_SIZE
    records[at + RECORD_TIME] = wallClockAt(end)
    records[at + RECORD_DURATION] = durationMs
    records[at + RECORD_REQUEST_ID] = reqId.length
    requestIds += reqId
    records[at + RECORD_ANSWER] = indexOfText(part)
    records[at + RECORD_ADDRESS] = indexOfText(address)
    pendingChars += fixedChars + reqId.length + part.length + address.length
    if (pendingChars >= BATCH_CHARS) flush()
    else if (timer === null) {
      // unref: a batch waiting never keeps the process alive; the exit listener writes it
      timer = setTimeout(flush, BATCH_MS)
      timer.unref()
    }
  }

  function writeAnswer(part: string, startedAt: number, address: string, reqId: string): void {
    if (!logger.isLevelEnabled('info')) return
    const end = performance.now()
    record(part, end, end - startedAt, address, reqId)
  }
  return {
    close() {
      process.removeListener('exit', writeAllNow)
      writeAllNow()
      formatter.unregister(log)
    },
    settled() {
      if (inFlight.length === 0) return Promise.resolve()
      return new Promise((resolve) => waiting.push(resolve))
    },
    write(l) {
      if (!logger.isLevelEnabled('info')) return
      record(
        answerPart(l.method, accessPathJson(l.path), l.status, l.bytes),
        performance.now(),
        l.durationMs,
        l.address,
        l.reqId,
      )
    },
    writeAnswer,
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
