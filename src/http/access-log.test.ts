import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import { pino } from 'pino'
import { ACCESS_LOG_BATCH_CHARS, ACCESS_LOG_FLUSH_MS, createAccessLog } from './access-log.ts'

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

test('waiting lines reach the destination together, in order, and close() hands over what is pending', () => {
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

test('without close(), waiting lines are written ACCESS_LOG_FLUSH_MS after the first of them', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const { writes, logger } = capture()
  const log = createAccessLog(logger)
  log.write(line(7))
  t.mock.timers.tick(ACCESS_LOG_FLUSH_MS / 2)
  log.write(line(8))
  t.mock.timers.tick(ACCESS_LOG_FLUSH_MS / 2 - 1)
  assert.deepEqual(writes, [], 'nothing before the first line has waited its time')
  t.mock.timers.tick(1)
  assert.equal(writes.length, 1, 'both lines in one hand-over')
  assert.match(writes[0]!, /"reqId":"id-7".*\n.*"reqId":"id-8"/s)
  // the next line starts a new wait
  log.write(line(9))
  t.mock.timers.tick(ACCESS_LOG_FLUSH_MS)
  assert.equal(writes.length, 2)
  log.close()
})

test('ACCESS_LOG_BATCH_CHARS of waiting lines are handed over at once, without waiting', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const { writes, logger } = capture()
  const log = createAccessLog(logger)
  let n = 0
  while (writes.length === 0) {
    log.write(line(++n))
    assert.ok(n < 10_000, 'a batch was handed over')
  }
  const handed = writes.join('')
  assert.ok(handed.length >= ACCESS_LOG_BATCH_CHARS, 'not before the batch is full')
  assert.equal(handed.trimEnd().split('\n').length, n, 'every line so far, the last one included')
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
