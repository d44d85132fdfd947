// The access log's worker thread: turns each batch of recorded lines into their text and hands the
// text back, so the request path spends no time making it (access-log.ts).
import { parentPort } from 'node:worker_threads'
import { type AccessBatch, formatBatch } from './access-batch.ts'

export type FormattedBatch = { log: number; seq: number; text: string }

parentPort?.on('message', (message: { log: number; batch: AccessBatch }) => {
  const reply: FormattedBatch = { log: message.log, seq: message.batch.seq, text: formatBatch(message.batch) }
  parentPort?.postMessage(reply)
})
