// npm run bench:log: the access log's own cost per line, apart from any HTTP, in CPU time (user and
// system, every thread of the process, so the thread pool's writes count too; in brackets the main
// thread's alone). Each way runs in a
// fresh child process writing 300,000 lines into a file through pino's asynchronous destination, as
// the service does with its stdout redirected, handing lines over in turns of `LINES_PER_TURN`:
//   line only   — the line built as one string and dropped
//   per turn    — the line built as one string, the turn's lines handed over at the end of the turn
//   service     — the service's access log (access-log.ts): a kept answer part, the pieces of a batch
//                 of about 64 KiB / 100 ms joined once
// Interleaved, BENCH_LOG_ROUNDS (3) rounds; medians printed.
import { fork } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pino } from 'pino'
import { accessPathJson, answerPart, createAccessLog } from '../src/http/access-log.ts'

const LINES = 300_000
const WAYS = ['line only', 'per turn', 'service'] as const
type Way = (typeof WAYS)[number]
const TURN_SIZES = [5, 30]

async function child(way: Way, perTurn: number, file: string): Promise<void> {
  const destination = pino.destination({ dest: file, sync: false, mkdir: false })
  await new Promise((resolve) => destination.once('ready', resolve))
  const logger = pino({ level: 'info' }, destination)
  const log = createAccessLog(logger)
  const part = answerPart('GET', accessPathJson('/v1/contests/KXBTC15M-26NOV261200-00'), 200, 1234)
  const id = 'c1f0e8a2-5b7d-4c3e-9a1f-0d2b3c4d5e6f'
  // The per-turn way: the same line as the service's, handed over once a turn.
  const head = `{"level":30,"time":`
  let pending: string[] = []
  let scheduled = false
  const flushTurn = () => {
    scheduled = false
    const lines = pending
    pending = []
    destination.write(lines.join(''))
  }
  const write: Record<Way, (address: string, durationMs: number) => void> = {
    'line only': (address, durationMs) => {
      const line = `${head}${Date.now()},"reqId":"${id}${part}${Math.round(durationMs * 100) / 100},"address":${JSON.stringify(address)}}\n`
      if (line.length === 0) throw new Error('unreachable')
    },
    'per turn': (address, durationMs) => {
      if (!scheduled) {
        scheduled = true
        setImmediate(flushTurn)
      }
      pending.push(
        `${head}${Date.now()},"reqId":"${id}${part}${Math.round(durationMs * 100) / 100},"address":${JSON.stringify(address)}}\n`,
      )
    },
    service: (address, durationMs) => log.writeAnswer(part, performance.now() - durationMs, address, id),
  }
  const one = write[way]
  const before = process.cpuUsage()
  const threadBefore = process.threadCpuUsage()
  for (let i = 0; i < LINES; i += perTurn) {
    for (let j = 0; j < perTurn; j++) one(`10.${(i >> 8) & 255}.${i & 255}.${j}`, (i % 997) / 100)
    await new Promise((resolve) => setImmediate(resolve))
  }
  const used = process.cpuUsage(before)
  const thread = process.threadCpuUsage(threadBefore)
  log.close()
  destination.flushSync()
  process.send?.({
    userUs: used.user / LINES,
    sysUs: used.system / LINES,
    mainUs: (thread.user + thread.system) / LINES,
  })
}

type Cost = { userUs: number; sysUs: number; mainUs: number }

async function runOne(way: Way, perTurn: number, file: string): Promise<Cost> {
  const proc = fork(import.meta.filename, ['child', way, String(perTurn), file], { stdio: 'inherit' })
  return new Promise((resolve, reject) => {
    proc.once('message', (m) => resolve(m as Cost))
    proc.once('exit', (code) => code !== 0 && reject(new Error(`${way} exited ${code}`)))
  })
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!

async function main(): Promise<void> {
  const rounds = Number(process.env.BENCH_LOG_ROUNDS ?? 3)
  const dir = mkdtempSync(path.join(tmpdir(), 'cs-log-bench-'))
  try {
    process.stdout.write(`access log, µs of CPU a line (user + sys), medians of ${rounds} rounds\n`)
    for (const perTurn of TURN_SIZES) {
      const got = new Map<Way, number[]>(WAYS.map((w) => [w, []]))
      const onMain = new Map<Way, number[]>(WAYS.map((w) => [w, []]))
      for (let r = 0; r < rounds; r++)
        for (const way of r % 2 ? [...WAYS].reverse() : WAYS) {
          const { userUs, sysUs, mainUs } = await runOne(way, perTurn, path.join(dir, `${r}.log`))
          got.get(way)!.push(userUs + sysUs)
          onMain.get(way)!.push(mainUs)
        }
      const cells = WAYS.map(
        (w) => `${w} ${median(got.get(w)!).toFixed(2)} (main ${median(onMain.get(w)!).toFixed(2)})`,
      ).join('   ')
      process.stdout.write(`  ${String(perTurn).padStart(2)} lines a turn:  ${cells}\n`)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const [mode, way, perTurn, file] = process.argv.slice(2)
if (mode === 'child') await child(way as Way, Number(perTurn), file!)
else await main()
