// `npm run bench:replay` (decisions §12): replay speed and memory, the recorder's cost and the disk
// a recorded day takes. Tapes come from the simulator (every spot source once a second, a book every
// 2 s of each live contest); each replay runs in its own process on a fresh SQLite store, and the
// same replay is measured on tapes of different lengths, so a flat peak RSS shows it streams.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { sharedSimWorld } from '../src/feeds/sim/sim-world.ts'
import { simTapeHeader, writeSimTape } from '../src/feeds/sim-tape/sim-tape.ts'
import { simTapeWarmupMs } from '../src/main/sim-tape-warmup.ts'
import type { Logger } from '../src/ports/logger.ts'
import { openTape } from '../src/tape/tape-reader.ts'
import { createTapeRecorder } from '../src/tape/tape-recorder.ts'
import { createTapeWriter } from '../src/tape/tape-writer.ts'

const DAY_MS = 86_400_000
const SEED = 7
const FROM = Date.UTC(2026, 10, 1)
const SERIES = ['KXBTC15M']
const SOURCES = ['coinbase', 'kraken', 'bitstamp']
const LENGTHS = (process.env.BENCH_REPLAY_DAYS ?? '1,4').split(',').map(Number)
const dir = mkdtempSync(path.join(tmpdir(), 'cs-bench-tapes-'))
const quiet: Logger = { info() {}, warn() {}, error() {}, debug() {} }

async function simTape(days: number): Promise<{ file: string; bytes: number; records: number }> {
  const file = path.join(dir, `sim-${days}d.ndjson.gz`)
  const opts = {
    world: sharedSimWorld(SEED),
    series: SERIES,
    from: FROM,
    days,
    warmupMs: simTapeWarmupMs(),
    origin: `sim seed ${SEED}`,
  }
  const writer = await createTapeWriter(file, { header: simTapeHeader(opts) })
  let records = 0
  await writeSimTape(opts, {
    write: (r) => {
      records++
      writer.write(r)
    },
    buffered: writer.buffered,
    drainTo: writer.drainTo,
  })
  await writer.close()
  return { file, bytes: statSync(file).size, records }
}

type Run = {
  wallMs: number
  cpuMs: number
  maxRssMiB: number
  liveHeapMiB: number
  summary: { opened: number; signals: number }
}
/** Old-space cap of the last run: the longest tape replayed in a heap too small to hold it. */
const CAP_MIB = 48

function replay(file: string, capMiB?: number): Run {
  const flags = ['--expose-gc', ...(capMiB ? [`--max-old-space-size=${capMiB}`] : [])]
  const out = execFileSync(
    process.execPath,
    [...flags, path.join(import.meta.dirname, 'replay-run.ts'), file],
    {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    },
  )
  return JSON.parse(out.trim().split('\n').at(-1) as string) as Run
}

/** The recorder fed a day of the 1-day tape at its recorded instants: CPU per record and the file it writes. */
async function recordDay(file: string): Promise<{ cpuMs: number; records: number; bytes: number }> {
  const recDir = mkdtempSync(path.join(dir, 'rec-'))
  let now = FROM
  const recorder = createTapeRecorder({
    dir: recDir,
    keepDays: 30,
    venue: 'kalshi',
    series: SERIES,
    sources: SOURCES,
    clock: { now: () => now },
    logger: quiet,
    origin: 'bench',
    flushMs: 3_600_000,
  })
  const tape = await openTape(file)
  now = Date.parse(tape.header.from)
  await recorder.start()
  let records = 0
  let cpuUs = 0
  let lastFlush = now
  for await (const batch of tape.batches()) {
    const c0 = process.cpuUsage()
    for (const r of batch) {
      now = Math.max(now, r.t)
      if (now >= FROM + DAY_MS) break
      records++
      if (r.k === 'spot')
        recorder.spot(
          r.src,
          r.px !== undefined
            ? { mid: r.px, exchangeAt: null }
            : {
                mid: ((r.bid as number) + (r.ask as number)) / 2,
                bid: r.bid as number,
                ask: r.ask as number,
                exchangeAt: null,
              },
        )
      else if (r.k === 'market') recorder.market(r.m)
      else if (r.k === 'book') recorder.book(r.ticker, r.ob)
      else if (r.k === 'exchange') recorder.exchange(r.status)
    }
    const c = process.cpuUsage(c0)
    cpuUs += c.user + c.system
    // the live recorder writes a member every 2 s: the same here, on the tape's clock
    if (now - lastFlush >= 2_000) {
      lastFlush = now
      await recorder.flush()
    }
    if (now >= FROM + DAY_MS) break
  }
  tape.close()
  await recorder.close()
  const bytes = statSync(
    path.join(recDir, `tape-${new Date(FROM).toISOString().slice(0, 10)}.ndjson.gz`),
  ).size
  return { cpuMs: cpuUs / 1000, records, bytes }
}

try {
  const load0 = loadavg()[0] as number
  console.log(
    `bench:replay — ${SERIES.join(',')}, sources ${SOURCES.join(',')} at 1/s, a book every 2 s; load average ${load0.toFixed(2)} on this machine`,
  )
  const rows: string[] = []
  let oneDay = ''
  let longest = ''
  for (const days of LENGTHS) {
    const tape = await simTape(days)
    if (days === LENGTHS[0]) oneDay = tape.file
    longest = tape.file
    const run = replay(tape.file)
    const dps = days / (run.wallMs / 1000)
    rows.push(
      [
        `${days} d`.padEnd(5),
        `${(tape.bytes / 1e6 / days).toFixed(2)} MB/d`.padStart(11),
        `${run.summary.opened} contests`.padStart(13),
        `${run.summary.signals} signals`.padStart(14),
        `wall ${(run.wallMs / 1000).toFixed(1)} s`.padStart(12),
        `cpu ${(run.cpuMs / 1000).toFixed(1)} s`.padStart(11),
        `${(dps * 10).toFixed(2)} d/10 s wall`.padStart(17),
        `${Math.round((days * DAY_MS) / run.wallMs).toLocaleString('en-US')}× real`.padStart(14),
        `${Math.round((days * DAY_MS) / run.cpuMs).toLocaleString('en-US')}× per CPU`.padStart(16),
        `peak RSS ${run.maxRssMiB.toFixed(0)} MiB`.padStart(18),
        `live heap at end ${run.liveHeapMiB.toFixed(1)} MiB`.padStart(24),
      ].join('  '),
    )
    console.log(rows.at(-1))
  }
  const capped = replay(longest, CAP_MIB)
  console.log(
    `${LENGTHS.at(-1)} d again with the JS heap capped at ${CAP_MIB} MiB: ${capped.summary.signals} signals, ` +
      `peak RSS ${capped.maxRssMiB.toFixed(0)} MiB, cpu ${(capped.cpuMs / 1000).toFixed(1)} s (more collection, same result)`,
  )
  const rec = await recordDay(oneDay)
  console.log(
    `recorder: ${rec.records.toLocaleString('en-US')} records of a day in ${rec.cpuMs.toFixed(0)} ms CPU ` +
      `(${((100 * rec.cpuMs) / DAY_MS).toFixed(4)}% of one core over the day, ${((1000 * rec.cpuMs) / rec.records).toFixed(1)} µs a record); ` +
      `day file with a gzip member every 2 s: ${(rec.bytes / 1e6).toFixed(2)} MB`,
  )
  console.log(
    `load average at the end ${(loadavg()[0] as number).toFixed(2)} (2 cores: figures above 2 mean a shared, busy machine)`,
  )
} finally {
  rmSync(dir, { recursive: true, force: true })
}
