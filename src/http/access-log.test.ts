import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import { pino } from 'pino'
import { createAccessLog } from './access-log.ts'

function capture() {
  const writes: string[] = []
  const stream = new Writable({
    write(chunk, _enc, done) {
      writes.push(String(chunk))
      done()
    },
  })
  return { writes, logger: pino({ level: 'info' }, stream) }
}

const line = (n: number) => ({
  method: 'GET',
  path: `/v1/contests/T-${n}?key=cs_${'a'.repeat(43)}`,
  status: 200,
  bytes: n,
  durationMs: 0.123,
  address: '192.0.2.1',
  reqId: `id-${n}`,
})

test('the lines of one turn reach the destination together, in order, and close() hands over what is pending', () => {
  const { writes, logger } = capture()
  const log = createAccessLog(logger)
  for (let n = 1; n <= 3; n++) log.write(line(n))
  log.close()
  const lines = writes
    .join('')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
  assert.deepEqual(
    lines.map((l) => [l.reqId, l.bytes, l.msg]),
    [
      ['id-1', 1, 'request'],
      ['id-2', 2, 'request'],
      ['id-3', 3, 'request'],
    ],
  )
  // the key is masked, and the line is pino's own shape (level, time, pid, hostname)
  assert.equal(lines[0]!.path, '/v1/contests/T-1?key=cs_[redacted]')
  assert.equal(lines[0]!.level, 30)
  assert.equal(typeof lines[0]!.pid, 'number')
})

test('without close(), the pending lines are written at the end of the turn', async () => {
  const { writes, logger } = capture()
  const log = createAccessLog(logger)
  log.write(line(7))
  await new Promise((resolve) => setImmediate(resolve))
  await new Promise((resolve) => setImmediate(resolve))
  assert.match(writes.join(''), /"reqId":"id-7"/)
  log.close()
})

test('nothing is written above info', () => {
  const { writes, logger } = capture()
  logger.level = 'warn'
  const log = createAccessLog(logger)
  log.write(line(1))
  log.close()
  assert.deepEqual(writes, [])
})
