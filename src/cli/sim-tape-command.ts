// `contest-signals sim tape [--venue kalshi|polymarket] --days N [--seed S] [--from T] --out PATH`
// (decisions §12, §14): the simulator's world as a tape in one venue's shapes (Kalshi's by default,
// Polymarket's with its own rule); replaying it gives the simulator's own history.
import { existsSync, rmdirSync, statSync, unlinkSync } from 'node:fs'
import { mkdir, rename, rmdir, unlink } from 'node:fs/promises'
import { constants } from 'node:os'
import path from 'node:path'
import type { Config } from '../config/config.ts'
import { parseInstant } from '../domain/instant.ts'
import { QUARTER_MS } from '../domain/ticker.ts'
import { SIM_PARAMS } from '../feeds/sim/sim-params.ts'
import { sharedSimWorld } from '../feeds/sim/sim-world.ts'
import { simTapeWarmupMs } from '../main/sim-tape-warmup.ts'
import { drawSimSeed } from '../main/sim-timeline.ts'
import { systemClock } from '../main/system-clock.ts'
import { REAL_VENUE_NAMES, venueKind } from '../main/venue-kinds.ts'
import { createTapeWriter } from '../tape/tape-writer.ts'

export type SimTapeArgs = {
  /** the venue whose shapes and rule the tape takes: kalshi (default) or polymarket */
  venue?: string | undefined
  days: string | undefined
  seed: string | undefined
  from: string | undefined
  out: string | undefined
}

const DAY_MS = 86_400_000
const MAX_DAYS = 366

export async function runSimTapeCommand(config: Config, args: SimTapeArgs): Promise<number> {
  const usage = (problem: string): number => {
    process.stderr.write(`contest-signals sim tape: ${problem} (see contest-signals sim --help)\n`)
    return 2
  }
  if (args.out === undefined || args.out === '') return usage('--out PATH is required')
  const venue = venueKind(args.venue ?? 'kalshi')
  if (!venue)
    return usage(
      `--venue ${JSON.stringify(args.venue)} is not a venue the simulator writes (${REAL_VENUE_NAMES.join(', ')})`,
    )
  if (
    args.days === undefined ||
    !/^[0-9]+$/.test(args.days) ||
    Number(args.days) < 1 ||
    Number(args.days) > MAX_DAYS
  )
    return usage(`--days must be a whole number from 1 to ${MAX_DAYS}`)
  const days = Number(args.days)
  if (args.seed !== undefined && (!/^[0-9]+$/.test(args.seed) || !Number.isSafeInteger(Number(args.seed))))
    return usage('--seed must be a whole number')
  const seed = args.seed === undefined ? (config.simSeed ?? drawSimSeed()) : Number(args.seed)
  let from: number
  if (args.from === undefined) {
    // the last N whole days before today (UTC)
    from = Math.floor(systemClock.now() / DAY_MS) * DAY_MS - days * DAY_MS
  } else {
    const parsed = parseInstant(args.from)
    if (parsed === null)
      return usage(`--from ${JSON.stringify(args.from)} is not an RFC 3339 date-time or a YYYY-MM-DD date`)
    if (parsed % QUARTER_MS !== 0)
      return usage('--from must be on a quarter hour (contests open every 15 minutes)')
    from = parsed
  }
  if (existsSync(args.out)) {
    process.stderr.write(
      `contest-signals sim tape: ${args.out} already exists; choose a new --out (a tape is never overwritten)\n`,
    )
    return 1
  }
  const outDir = path.dirname(args.out)
  if (!statSync(outDir, { throwIfNoEntry: false })?.isDirectory()) {
    process.stderr.write(`contest-signals sim tape: cannot write ${args.out}: no directory ${outDir}\n`)
    return 1
  }

  const opts = {
    world: sharedSimWorld(seed, config.simParams ?? SIM_PARAMS),
    // the configured SERIES (a venue with one series of its own writes that one)
    series: config.series,
    from,
    days,
    warmupMs: simTapeWarmupMs(),
    origin: `sim seed ${seed}`,
  }
  const header = venue.simTapeHeader(opts)
  // written under .partial/ beside --out and moved there whole: a run killed part-way must not leave
  // a tape whose header claims days it does not hold (a replay would take it as whole). A partial
  // left by such a run is started afresh (the writer appends)
  const partial = path.join(outDir, '.partial', path.basename(args.out))
  const tty = process.stderr.isTTY === true
  const progress = tty
    ? {
        onProgress: (at: number, a: number, b: number) =>
          process.stderr.write(
            `\r\x1b[Ksim tape ${new Date(at).toISOString().slice(0, 13)}Z ${((100 * (at - a)) / (b - a)).toFixed(0)}%`,
          ),
      }
    : {}
  // SIGINT or SIGTERM: the part written is no tape; take it back before exiting as the signal would
  const onSignal = (signal: NodeJS.Signals): void => {
    for (const undo of [() => unlinkSync(partial), () => rmdirSync(path.dirname(partial))])
      try {
        undo()
      } catch {
        // gone already, or another run's partial still beside it
      }
    process.stderr.write(
      `${tty ? '\r\x1b[K' : ''}contest-signals sim tape: stopped by ${signal}; nothing written\n`,
    )
    process.exit(128 + (constants.signals[signal] ?? 0))
  }
  // heard from before the partial exists: a signal while the writer opens it must not leave it behind
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  let writer: Awaited<ReturnType<typeof createTapeWriter>> | undefined
  const started = systemClock.now()
  try {
    await mkdir(path.dirname(partial), { recursive: true })
    await unlink(partial).catch(() => undefined)
    writer = await createTapeWriter(partial, { header })
    await venue.writeSimTape({ ...opts, ...progress }, writer)
    await writer.close()
  } catch (err) {
    await writer?.close().catch(() => undefined)
    await unlink(partial).catch(() => undefined)
    await rmdir(path.dirname(partial)).catch(() => undefined)
    throw err
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
  await rename(partial, args.out)
  // left in place while another run writes beside this one
  await rmdir(path.dirname(partial)).catch(() => undefined)
  if (tty) process.stderr.write('\r\x1b[K')
  process.stdout.write(
    `sim tape ${args.out}: seed ${seed}, ${header.venue} ${header.series.join(',')} from ${header.from} to ${header.to}, ` +
      `${(writer.size() / 1e6).toFixed(1)} MB in ${((systemClock.now() - started) / 1000).toFixed(1)} s\n`,
  )
  return 0
}
