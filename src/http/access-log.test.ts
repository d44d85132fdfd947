import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { performance } from 'node:perf_hooks'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { pino } from 'pino'
import { accessPathJson, answerPart, createAccessLog, createLineFormatter } from './access-log.ts'

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

test('a batch waits 100 ms after its first line, or until it holds about 64 KiB, never longer', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const { writes, logger } = capture()
  const log = createAccessLog(logger)
  log.write(line(7))
  t.mock.timers.tick(99)
  await log.settled()
  assert.deepEqual(writes, [], 'nothing is handed over before 100 ms')
  log.write(line(8))
  t.mock.timers.tick(1)
  await log.settled()
  assert.equal(writes.length, 1, '100 ms after the first line, the batch goes')
  assert.match(writes[0]!, /"reqId":"id-7".*\n.*"reqId":"id-8"/s)
  // 64 KiB of lines go at once, without waiting for the timer
  let n = 0
  while (writes.length === 1) {
    log.write(line(100 + n++))
    await log.settled()
  }
  const batch = String(writes.at(1))
  // counted from the pieces' lengths, with the time and duration at their usual widths: about 64 KiB
  assert.ok(batch.length > 63 * 1024, 'the batch was handed over when it reached about 64 KiB')
  assert.ok(batch.length < 65 * 1024, 'and not much later')
  log.write(line(100 + n))
  log.close()
  const ids = writes
    .join('')
    .trimEnd()
    .split('\n')
    .map((l) => (JSON.parse(l) as { reqId: string }).reqId)
  assert.deepEqual(
    ids,
    ['id-7', 'id-8', ...Array.from({ length: n + 1 }, (_, i) => `id-${100 + i}`)],
    'every line once, in order, across batches',
  )
})

test("the worker's text is the text made at close", async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const a = capture()
  const b = capture()
  const viaWorker = createAccessLog(a.logger)
  const here = createAccessLog(b.logger)
  const lines = [1, 2, 3].map((n) => ({
    ...line(n),
    durationMs: n * 1.005,
    address: n === 2 ? '2001:db8::1' : '198.51.100.7',
  }))
  for (const l of lines) {
    viaWorker.write(l)
    here.write(l)
  }
  t.mock.timers.tick(100)
  await viaWorker.settled()
  here.close()
  assert.equal(a.writes.length, 1, 'the worker made the first')
  const strip = (text: string) => text.replace(/"time":\d+/g, '"time":0')
  assert.equal(strip(a.writes.join('')), strip(b.writes.join('')))
  viaWorker.close()
})

test('if the worker cannot run, every line is still written, once and in order', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const { writes, logger } = capture()
  const broken = createLineFormatter(new URL('./no-such-worker.ts', import.meta.url))
  const log = createAccessLog(logger, broken)
  log.write(line(1))
  log.write(line(2))
  t.mock.timers.tick(100)
  await log.settled()
  log.write(line(3))
  t.mock.timers.tick(100)
  await log.settled()
  log.close()
  const ids = writes
    .join('')
    .trimEnd()
    .split('\n')
    .map((l) => (JSON.parse(l) as { reqId: string }).reqId)
  assert.deepEqual(ids, ['id-1', 'id-2', 'id-3'])
})

test('lines recorded or still with the worker when the process exits are written, once each', () => {
  const child = spawnSync(
    process.execPath,
    [fileURLToPath(new URL('../../test/fixtures/access-log-exit.ts', import.meta.url))],
    { encoding: 'utf8', timeout: 20_000 },
  )
  assert.equal(child.status, 0, child.stderr)
  const ids = child.stdout
    .trimEnd()
    .split('\n')
    .map((l) => (JSON.parse(l) as { reqId: string }).reqId)
  // the fixture hands its first batch of about 64 KiB to the worker, records the rest and exits at once
  assert.deepEqual(
    ids,
    Array.from({ length: 503 }, (_, i) => `id-${i}`),
  )
})

test('a kept answer part gives the very line the plain fields give, timed from the start it is given', () => {
  const a = capture()
  const b = capture()
  const plain = createAccessLog(a.logger)
  const kept = createAccessLog(b.logger)
  const l = line(3)
  plain.write(l)
  const before = Date.now()
  kept.writeAnswer(
    answerPart(l.method, accessPathJson(l.path), l.status, l.bytes),
    performance.now() - 5,
    l.address,
    l.reqId,
  )
  const after = Date.now()
  plain.close()
  kept.close()
  const strip = (text: string) => text.replace(/"time":\d+/, '"time":0').replace(/"durationMs":[\d.]+/, '')
  assert.equal(strip(b.writes.join('')), strip(a.writes.join('')))
  const keptLine = JSON.parse(b.writes.join('')) as { time: number; durationMs: number }
  // the wall-clock time of the answer, and the time since the start given
  assert.ok(
    keptLine.time >= before - 1 && keptLine.time <= after + 1,
    `${keptLine.time} in [${before}, ${after}]`,
  )
  assert.ok(keptLine.durationMs >= 5 && keptLine.durationMs < 1000, String(keptLine.durationMs))
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
