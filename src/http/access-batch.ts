// A batch of access-log lines as numbers and text, and the one function that turns it into the
// lines (decisions §4). The request path records a line as five numbers and its request id
// (access-log.ts); the lines' text is made from them here, in the access log's worker thread, or on the main thread when the
// process exits or the log closes with a batch not yet written. Pure: no I/O.

/** A line's numbers, in this order, in `AccessBatch.records`. */
export const RECORD_TIME = 0
export const RECORD_DURATION = 1
export const RECORD_REQUEST_ID = 2
export const RECORD_ANSWER = 3
export const RECORD_ADDRESS = 4
/** numbers a line takes */
export const RECORD_SIZE = 5

export type AccessBatch = {
  /** the batch's number within its log: replies are matched to batches in order */
  seq: number
  /** `{"level":30,"time":` — pino's level and the key of its time */
  head: string
  /** after the time: pino's bindings (pid, hostname…) and the key of the request id, with its quote */
  afterTime: string
  /** the end of a line: the message and the closing brace, with its newline */
  tail: string
  /**
   * per line: the time (epoch ms), the duration (ms), the length of its request id in `requestIds`,
   * then indexes into `texts` of the answer part (access-log.ts `answerPart`) and the client address
   */
  records: Float64Array
  /** the lines' request ids one after another: a line's is as long as its record says */
  requestIds: string
  texts: string[]
}

const ADDRESS_KEY = ',"address":'

/** The batch's lines, in order, each ending in a newline. */
export function formatBatch(batch: AccessBatch): string {
  const { head, afterTime, tail, records, requestIds, texts } = batch
  let out = ''
  let idAt = 0
  for (let at = 0; at + RECORD_SIZE <= records.length; at += RECORD_SIZE) {
    const idEnd = idAt + records[at + RECORD_REQUEST_ID]!
    out +=
      head +
      String(records[at + RECORD_TIME]) +
      afterTime +
      requestIds.slice(idAt, idEnd) +
      texts[records[at + RECORD_ANSWER]!] +
      durationText(records[at + RECORD_DURATION]!) +
      ADDRESS_KEY +
      JSON.stringify(texts[records[at + RECORD_ADDRESS]!]) +
      tail
    idAt = idEnd
  }
  return out
}

/** Milliseconds to the hundredth. */
function durationText(durationMs: number): string {
  return String(Math.round(durationMs * 100) / 100)
}
