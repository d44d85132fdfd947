import assert from 'node:assert/strict'
import { performance } from 'node:perf_hooks'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import { pino } from 'pino'
import { accessPathJson, answerPart, createAccessLog, createWallClock } from './access-log.ts'

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

test('the lines of one batch reach the destination together, in order, and close() hands over what is pending', () => {
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

test('a batch waits 100 ms after its first line, or until it holds about 64 KiB, never longer', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const { writes, logger } = capture()
  const log = createAccessLog(logger)
  log.write(line(7))
  t.mock.timers.tick(99)
  assert.deepEqual(writes, [], 'nothing is handed over before 100 ms')
  log.write(line(8))
  t.mock.timers.tick(1)
  assert.equal(writes.length, 1, '100 ms after the first line, the batch goes')
  assert.match(writes[0]!, /"reqId":"id-7".*\n.*"reqId":"id-8"/s)
  // 64 KiB of lines go at once, without waiting for the timer
  let n = 0
  const handedOver = () => writes.length
  while (handedOver() === 1) log.write(line(100 + n++))
  const batch = String(writes.at(1))
  // counted from the pieces' lengths, with the time and duration at their usual widths: about 64 KiB
  assert.ok(batch.length > 63 * 1024, 'the batch was handed over when it reached about 64 KiB')
  assert.ok(batch.length < 65 * 1024, 'and not much later')
  log.close()
})

test('a kept answer part gives the very line the plain fields give, timed from the start it is given', () => {
  const a = capture()
  const b = capture()
  // the wall clock in the test's hands: the host's may be stepped by its time service mid-test
  const wall = 1_796_000_000_000
  const plain = createAccessLog(
    a.logger,
    createWallClock(() => wall),
  )
  const kept = createAccessLog(
    b.logger,
    createWallClock(() => wall),
  )
  const l = line(3)
  plain.write(l)
  kept.writeAnswer(
    answerPart(l.method, accessPathJson(l.path), l.status, l.bytes),
    performance.now() - 5,
    l.address,
    l.reqId,
  )
  plain.close()
  kept.close()
  const strip = (text: string) => text.replace(/"durationMs":[\d.]+/, '')
  assert.equal(strip(b.writes.join('')), strip(a.writes.join('')))
  const keptLine = JSON.parse(b.writes.join('')) as { time: number; durationMs: number }
  // the wall-clock time of the answer, and the time since the start given
  assert.equal(keptLine.time, wall)
  assert.ok(keptLine.durationMs >= 5 && keptLine.durationMs < 1000, String(keptLine.durationMs))
})

test('the wall-clock time of a line runs on the monotonic clock and follows a step of the wall clock within a second', () => {
  let wall = 1_000_000
  const wallClockAt = createWallClock(() => wall)
  assert.equal(wallClockAt(500), 1_000_000, 'lined up at the first reading')
  wall = 2_000_000 // the wall clock is stepped
  assert.equal(wallClockAt(1_499.6), 1_001_000, 'within the second, the monotonic clock alone (rounded)')
  assert.equal(wallClockAt(1_500), 2_000_000, 'a second on, lined up with the stepped wall clock')
  assert.equal(wallClockAt(1_750), 2_000_250)
})

test('durations are in milliseconds to the hundredth, short and long alike', () => {
  const { writes, logger } = capture()
  const log = createAccessLog(logger)
  for (const durationMs of [0.123, 0.125, 7, 99.994, 100.006, 123_456.789])
    log.write({ ...line(1), durationMs })
  log.close()
  const durations = writes
    .join('')
    .trimEnd()
    .split('\n')
    .map((l) => (JSON.parse(l) as { durationMs: number }).durationMs)
  assert.deepEqual(durations, [0.12, 0.13, 7, 99.99, 100.01, 123_456.79])
})

test('nothing is written above info', () => {
  const { writes, logger } = capture()
  logger.level = 'warn'
  const log = createAccessLog(logger)
  log.write(line(1))
  log.close()
  assert.deepEqual(writes, [])
})
