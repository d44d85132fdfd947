// Server-Sent Events framing: the one place bytes of the stream are shaped (decisions §6).

/** Sent once, first: clients wait 3 s before reconnecting. */
export const RETRY_FRAME: Buffer = Buffer.from('retry: 3000\n\n')

/**
 * Sent to every stream just before a shutdown ends it: a reconnect delay drawn from
 * [SHUTDOWN_RETRY_MIN_MS, SHUTDOWN_RETRY_MAX_MS), so thousands of clients do not all come back in the
 * same instant to a restarted server (the first frame stays decisions §6's `retry: 3000`).
 */
export const SHUTDOWN_RETRY_MIN_MS = 2000
export const SHUTDOWN_RETRY_MAX_MS = 10_000

export function shutdownRetryFrame(random: () => number): Buffer {
  const ms = SHUTDOWN_RETRY_MIN_MS + Math.floor(random() * (SHUTDOWN_RETRY_MAX_MS - SHUTDOWN_RETRY_MIN_MS))
  return Buffer.from(`retry: ${ms}\n\n`)
}

/** A comment frame: keeps proxies and load balancers from closing an idle stream. */
export const KEEP_ALIVE_FRAME: Buffer = Buffer.from(': keep-alive\n\n')

// A field value holding a line break would end the field early and let the rest be read as another
// field (or end the event); a NUL makes clients drop the id. Either would be a framing bug, not data.
const UNSAFE_FIELD = /[\r\n\0]/
// Every line terminator an SSE parser honours, so a lone CR cannot split a data line behind our back.
const LINE_BREAK = /\r\n|\r|\n/

/**
 * `event: <name>\nid: <id>\ndata: <data>\n\n`. Throws when `event` or `id` holds CR, LF or NUL.
 * A `data` holding line breaks (never the case for JSON.stringify output) becomes several `data:`
 * lines, which clients join with LF.
 */
export function encodeEventFrame(event: string, id: string, data: string): Buffer {
  if (UNSAFE_FIELD.test(event)) throw new TypeError('SSE event name must not contain CR, LF or NUL')
  if (UNSAFE_FIELD.test(id)) throw new TypeError('SSE id must not contain CR, LF or NUL')
  const dataLines = LINE_BREAK.test(data) ? data.split(LINE_BREAK).join('\ndata: ') : data
  return Buffer.from(`event: ${event}\nid: ${id}\ndata: ${dataLines}\n\n`)
}

const CRLF = Buffer.from('\r\n')

/**
 * A frame as one HTTP/1.1 chunk (`<size in hex>\r\n<frame>\r\n`): what `res.write(frame)` puts on a
 * chunk-encoded response's socket, made once so that one write of it can go straight to every
 * subscriber's socket (stream-hub.ts).
 */
export function chunkOf(frame: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${frame.length.toString(16)}\r\n`, 'latin1'), frame, CRLF])
}

/** KEEP_ALIVE_FRAME as a chunk. */
export const KEEP_ALIVE_CHUNK: Buffer = chunkOf(KEEP_ALIVE_FRAME)
